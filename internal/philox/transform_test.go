package philox

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"testing"

	"pgregory.net/rapid"
)

// logUnit is within 6 ulp of math.Log at 2²⁰ of Fill's uniforms and at the edges of its
// range and of its mantissa's reduction. The bound is the error analysis's: s carries 1.5
// ulp (m−1 exact, m+1 and the division rounded), the polynomial A(s²) 1 (within 2⁻⁵⁸ of
// atanh(s)/s, its last FMA's rounding ½ ulp of A ≈ 1, the others and s²'s error damped by
// s² ≤ 0.03): 2s·A within 2.5 ulp of ln m; e·ln 2 within 1 (ln 2 and the product
// rounded); the FMA adds ½. The sum is smallest against its parts at e = −1, m near √2
// (−0.69 + 0.35 = −0.35), where those are 2 and 2.5 ulp of the sum, its rounding ½ and
// math.Log's own ½ more: 5.5 ≤ 6. Planted: A's last coefficient dropped (2·10⁻¹²
// relative) fails it.
func TestLogUnit(t *testing.T) {
	us := make([]float64, 1<<20)
	FillUniform(us, 0x5eed0005, 0, 0)
	edges := []float64{0x1p-54, 0x1p-53, 1 - 0x1p-53, 0.5, 1, math.Sqrt2 / 2, math.Nextafter(math.Sqrt2/2, 0),
		math.Nextafter(math.Sqrt2/2, 1), 0.25 * math.Sqrt2, 1e-10, 0.999}
	worst := 0.0
	for _, u := range append(us, edges...) {
		got, want := logUnit(u), math.Log(u)
		ulp := math.Abs(math.Nextafter(want, 0) - want)
		if want == 0 {
			ulp = 0x1p-1074
		}
		e := math.Abs(got-want) / ulp
		worst = max(worst, e)
		if !(e <= 6) {
			t.Fatalf("logUnit(%v) = %v, math.Log %v: %.1f ulp apart (bound 6)", u, got, want, e)
		}
	}
	t.Logf("worst %.2f ulp", worst)
}

// sinCosTurns(v) is within 2⁻⁴⁹ of math.Sincos(2πv), absolutely, at 2²⁰ of Fill's uniforms
// and at the octants' edges. The bound is mostly the reference's: 2π rounded to float64
// (2⁻⁵¹ at most, times v < 1) and the product 2πv rounded (2⁻⁵¹, as it is below 8) move its
// argument by up to 2⁻⁵⁰, and math.Sincos adds up to an ulp (2⁻⁵³ near 1); sinCosTurns's
// own error is the polynomials' (f = 4v − k exact, π/2 in the coefficients; within 2⁻⁵⁴
// of sin(πf/2)/f and cos(πf/2), f²'s and the FMAs' roundings about an ulp, f·S's ½; the
// quadrant turn is exact), under 2⁻⁵¹ since both are below 1: 2⁻⁵⁰ + 2⁻⁵³ + 2⁻⁵¹ < 2⁻⁴⁹.
// Planted: the sine's last coefficient dropped (10⁻¹¹ off) and quadrants 1 and 3 swapped
// each fail it.
func TestSinCosTurns(t *testing.T) {
	vs := make([]float64, 1<<20)
	FillUniform(vs, 0x5eed0006, 0, 0)
	for q := range 8 {
		c := float64(q) / 8
		vs = append(vs, c, math.Nextafter(c, 1), math.Nextafter(c, 0))
	}
	vs = append(vs, 1-0x1p-53)
	worst := 0.0
	for _, v := range vs {
		if v < 0 || v >= 1 {
			continue
		}
		s, c := sinCosTurns(v)
		ws, wc := math.Sincos(2 * math.Pi * v)
		e := max(math.Abs(s-ws), math.Abs(c-wc))
		worst = max(worst, e)
		if !(e <= 0x1p-49) {
			t.Fatalf("sinCosTurns(%v) = %v, %v; math.Sincos(2πv) = %v, %v: %.3g apart (bound 2⁻⁴⁹)", v, s, c, ws, wc, e)
		}
	}
	t.Logf("worst %.3g = 2^%.2f", worst, math.Log2(worst))
}

// The streams' bits are pinned: SHA-256 of the first 2¹⁶ values of each fill at one
// address, as this file's build computes them. Any build (GOAMD64=v1 or v3, where the
// compiler may fuse products into sums) and the assembly kernels must give these
// bits; a change to them is a new stream, to be versioned, never re-pinned quietly. With
// math.Sincos in place of sinCosTurns, Fill's hash differed between GOAMD64=v1 and v3.
// Fill's hash was regenerated once, deliberately, when the transform became Estrin
// polynomials with FMAs (issue 44, before the stream was released); the other three
// did not change (Fill32's float64 values moved by an ulp or so, never across a float32
// rounding in these 2¹⁶). Fill32's was regenerated once more, deliberately, when its
// transform became float32 arithmetic (transform32.go; values within a few float32 ulp of
// the old ones), and FillWide's, its values widened, pinned beside it.
// Every path this CPU has (pure Go, AVX2, AVX-512) is held to the same hashes.
func TestStreamsPinned(t *testing.T) {
	const seed, trial, step, n = 0x0123456789abcdef, 1<<40 + 7, 11, 1 << 16
	cases := []struct {
		name string
		bits func() []uint64
		want string
	}{
		{"Fill", func() []uint64 {
			x := make([]float64, n)
			Fill(x, seed, trial, step)
			return bits64(x)
		}, "d3a8b8fd79c938c8120395b76979d5a6"},
		{"Fill32", func() []uint64 {
			x := make([]float32, n)
			Fill32(x, seed, trial, step)
			return bits32(x)
		}, "e2d32a6b221080e847d616d125823b11"},
		{"FillWide", func() []uint64 {
			x := make([]float64, n)
			FillWide(x, seed, trial, step)
			return bits64(x)
		}, "3e8328037cd79292ec9fa6c81d6628ae"},
		{"FillUniform", func() []uint64 {
			x := make([]float64, n)
			FillUniform(x, seed, trial, step)
			return bits64(x)
		}, "6c72b628939eb59382bba0d6bfbf3790"},
		{"FillUniform32", func() []uint64 {
			x := make([]float32, n)
			FillUniform32(x, seed, trial, step)
			return bits32(x)
		}, "143818d78877b90b62e399a8adcd6500"},
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

func bits32(x []float32) []uint64 {
	out := make([]uint64, len(x))
	for i, v := range x {
		out[i] = uint64(math.Float32bits(v))
	}
	return out
}

// The pure-Go path's side-by-side forms give the one-at-a-time functions' bits, value by
// value (a property over arbitrary uniforms, counters and keys, and at the reductions'
// edges): boxMuller2 and block2. Planted: boxMuller2's second sine-cosine taken of v1
// fails it.
func TestTwoAtOnceIsTwiceOne(t *testing.T) {
	edges := []float64{0x1p-54, 0x1p-53, 1 - 0x1p-53, 0.5, 0.125, 0.25, 0.375, 0.625, 0.75, 0.875,
		math.Sqrt2 / 2, math.Nextafter(math.Sqrt2/2, 0), math.Nextafter(math.Sqrt2/2, 1)}
	same := func(t *rapid.T, what string, got, want float64) {
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%s = %v, one at a time %v", what, got, want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		unit := rapid.OneOf(rapid.SampledFrom(edges), rapid.Float64Range(0x1p-54, 1-0x1p-53))
		u1, u2 := unit.Draw(t, "u1"), unit.Draw(t, "u2")
		v1, v2 := unit.Draw(t, "v1"), unit.Draw(t, "v2")
		a1, b1, a2, b2 := boxMuller2(u1, v1, u2, v2)
		wa1, wb1 := boxMuller(u1, v1)
		wa2, wb2 := boxMuller(u2, v2)
		same(t, "boxMuller2's first cosine", a1, wa1)
		same(t, "boxMuller2's first sine", b1, wb1)
		same(t, "boxMuller2's second cosine", a2, wa2)
		same(t, "boxMuller2's second sine", b2, wb2)
		word := rapid.Uint32()
		x := [4]uint32{word.Draw(t, "x0"), word.Draw(t, "x1"), word.Draw(t, "x2"), word.Draw(t, "x3")}
		y := [4]uint32{word.Draw(t, "y0"), word.Draw(t, "y1"), word.Draw(t, "y2"), word.Draw(t, "y3")}
		key := [2]uint32{word.Draw(t, "k0"), word.Draw(t, "k1")}
		if gx, gy := block2(x, y, key); gx != Block(x, key) || gy != Block(y, key) {
			t.Fatalf("block2 = %08x %08x, Block %08x %08x", gx, gy, Block(x, key), Block(y, key))
		}
	})
}
