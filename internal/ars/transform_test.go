package ars

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
// Stream v3's (ARS-4x32-7, the pair layout) was pinned when it replaced v2 (Philox4x32-10,
// whose FillWide hash was 3e8328037cd79292ec9fa6c81d6628ae). Every route this CPU has
// (pure Go, AVX2, AVX-512; Go's words, AES-NI's, VAES's) is held to the same hashes.
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
		}, "42f107e803dc34657ced6004947c8a6d"},
	}
	if len(cases) == 0 {
		t.Fatal("no pinned streams")
	}
	for _, r := range routes() {
		for _, c := range cases {
			h := sha256.New()
			onRoute(r, func() {
				for _, b := range c.bits() {
					h.Write(binary.LittleEndian.AppendUint64(nil, b))
				}
			})
			if got := hex.EncodeToString(h.Sum(nil)[:16]); got != c.want {
				t.Errorf("%s on %s: stream hash %s, pinned %s", c.name, r, got, c.want)
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
