package philox

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"testing"
)

// The streams' bits are pinned: SHA-256 of the first 2¹⁶ values of each fill at one
// address, as this file's build computes them. Any build (GOAMD64=v1 or v3, where the
// compiler may fuse products into sums) and the assembly kernels must give these
// bits; a change to them is a new stream, to be versioned, never re-pinned quietly.
// FillWide's was pinned beside Fill32's (the same normals in float32) when the transform
// became float32 arithmetic (transform32.go). (Stream v1's Fill, the uniforms' fills and
// Fill32 were pinned here too until they were removed; Fill32's hash was
// e2d32a6b221080e847d616d125823b11.)
// Every path this CPU has (pure Go, AVX2, AVX-512) is held to the same hashes.
func TestStreamsPinned(t *testing.T) {
	const seed, trial, step, n = 0x0123456789abcdef, 1<<40 + 7, 11, 1 << 16
	cases := []struct {
		name string
		bits func() []uint64
		want string
	}{
		{"FillWide", func() []uint64 {
			x := make([]float64, n)
			FillWide(x, seed, trial, step)
			return bits64(x)
		}, "3e8328037cd79292ec9fa6c81d6628ae"},
	}
	if len(cases) == 0 {
		t.Fatal("no pinned streams")
	}
	for _, p := range paths() {
		for _, c := range cases {
			h := sha256.New()
			onPath(p, func() {
				for _, b := range c.bits() {
					h.Write(binary.LittleEndian.AppendUint64(nil, b))
				}
			})
			if got := hex.EncodeToString(h.Sum(nil)[:16]); got != c.want {
				t.Errorf("%s on %s: stream hash %s, pinned %s", c.name, pathNames[p], got, c.want)
			}
		}
	}
}

func bits64(x []float64) []uint64 {
	out := make([]uint64, len(x))
	for i, v := range x {
		out[i] = math.Float64bits(v)
	}
	return out
}
