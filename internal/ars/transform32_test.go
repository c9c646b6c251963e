package ars

import (
	"math"
	"math/big"
	"testing"

	"pgregory.net/rapid"
)

// fma32Exact is x·y + z rounded once to float32, in exact arithmetic (big.Float): the
// value VFMADD231PS gives.
func fma32Exact(x, y, z float32) float32 {
	p := new(big.Float).SetPrec(1000).SetFloat64(float64(x))
	p.Mul(p, new(big.Float).SetFloat64(float64(y)))
	p.Add(p, new(big.Float).SetFloat64(float64(z)))
	f, _ := p.Float32() // nearest, ties to even
	return f
}

// fma32 is the fused float32 multiply-add, against exact arithmetic: on arbitrary
// finite operands, and on sums that land exactly halfway between two float32s in
// float64 while the exact sum is not halfway (double rounding's one failure, where
// float32(math.FMA) is wrong: 8+2⁻²⁰ times 8−2⁻²⁰ plus 2³⁰+128 is 2³⁰+192−2⁻⁴⁰, which
// rounds to 2³⁰+192 in float64 and then, ties to even, to 2³⁰+256, where the exact
// sum rounds to 2³⁰+128). Planted: fma32 without its tie correction fails on the
// crafted cases and, on its own, the rapid property (its tie case; before it, the
// property drew no double-rounding case in 10⁵ checks).
func TestFMA32IsFused(t *testing.T) {
	ties := [][3]float32{
		{8 + 0x1p-20, 8 - 0x1p-20, 0x1p30 + 128},      // exact below the tie
		{8 + 0x1p-20, 8 + 0x1p-20, 0x1p30 + 64 + 256}, // exact above a tie
		{-(8 + 0x1p-20), 8 - 0x1p-20, -(0x1p30 + 128)},
		{8 + 0x1p-20, 8 - 0x1p-20, -(0x1p30 + 256)},
		// Overflow's tie: MaxFloat32 + 2¹⁰³ − 2⁵⁷ rounds to 2¹²⁸ − 2¹⁰³ in float64, the
		// midpoint to 2¹²⁸, which float32 rounds to Inf; the exact sum to MaxFloat32.
		{(1 + 0x1p-23) * 0x1p52, (1 - 0x1p-23) * 0x1p51, math.MaxFloat32},
		{-(1 + 0x1p-23) * 0x1p52, (1 - 0x1p-23) * 0x1p51, -math.MaxFloat32},
	}
	for _, c := range ties {
		if got, want := fma32(c[0], c[1], c[2]), fma32Exact(c[0], c[1], c[2]); got != want {
			t.Errorf("fma32(%v, %v, %v) = %v, exact %v", c[0], c[1], c[2], got, want)
		}
	}
	if x, y, z := ties[0][0], ties[0][1], ties[0][2]; float32(math.FMA(float64(x), float64(y), float64(z))) == fma32Exact(x, y, z) {
		t.Fatal("the crafted tie is not a double-rounding case: the test cannot fail")
	}
	finite := rapid.Custom(func(t *rapid.T) float32 {
		// Exponents within ±60, so that no product or sum overflows or goes subnormal.
		m := rapid.Uint32Range(0, 1<<23-1).Draw(t, "mantissa")
		e := rapid.IntRange(-60, 60).Draw(t, "exponent")
		v := float32(math.Ldexp(float64(1<<23|m), e-23))
		if rapid.Bool().Draw(t, "negative") {
			v = -v
		}
		return v
	})
	edges := []uint32{0, 1, 0x7fffff, 0x800000, 0x7f7fffff, 0x7f800000, 0x7fc00000}
	anyFloat32 := rapid.Custom(func(t *rapid.T) float32 {
		b := rapid.Uint32().Draw(t, "bits")
		if rapid.Bool().Draw(t, "edge") {
			b = rapid.SampledFrom(edges).Draw(t, "edge bits") | uint32(rapid.IntRange(0, 1).Draw(t, "sign"))<<31
		}
		return math.Float32frombits(b)
	})
	rapid.Check(t, func(t *rapid.T) {
		x, y, z := finite.Draw(t, "x"), finite.Draw(t, "y"), finite.Draw(t, "z")
		switch rapid.IntRange(0, 3).Draw(t, "case") {
		case 1:
			// z cancels the product's top bits: sums near zero, exact cancellations.
			z = -float32(float64(x) * float64(y))
			z += float32(math.Ldexp(float64(rapid.IntRange(-8, 8).Draw(t, "nudge")), rapid.IntRange(-80, 40).Draw(t, "scale")))
		case 2:
			// Double rounding's ties: x·y = 2ᴾ(1 − a²·2⁻⁴⁶) and z's float32 ulp 2ᴾ⁺¹, so
			// the sum, a²·2ᴾ⁻⁴⁶ < 2ᴾ⁻²⁹ (half its float64 ulp) off z's float32 midpoint
			// z ± 2ᴾ, rounds onto that midpoint in float64; about half of these are cases
			// where float32(math.FMA) is wrong (25 % of all checks, measured over 10⁵;
			// the other cases above give none).
			a := rapid.IntRange(1, 362).Draw(t, "a")
			ex, ey := rapid.IntRange(-30, 30).Draw(t, "ex"), rapid.IntRange(-30, 30).Draw(t, "ey")
			x = float32(math.Ldexp(float64(1<<23+a), ex-23))
			y = float32(math.Ldexp(float64(1<<23-a), ey-23))
			z = float32(math.Ldexp(float64(1<<23|rapid.Uint32Range(0, 1<<23-1).Draw(t, "z mantissa")), ex+ey+1))
			if rapid.Bool().Draw(t, "x negative") {
				x = -x
			}
			if rapid.Bool().Draw(t, "z negative") {
				z = -z
			}
		case 3:
			// Any bits, or an edge value: subnormals, overflow, ±0, ±Inf and NaN.
			x, y, z = anyFloat32.Draw(t, "x any"), anyFloat32.Draw(t, "y any"), anyFloat32.Draw(t, "z any")
			if isNaN32(x) || isNaN32(y) || isNaN32(z) ||
				math.IsInf(float64(x), 0) || math.IsInf(float64(y), 0) || math.IsInf(float64(z), 0) {
				// Exact arithmetic has no NaN and big.Float panics on ∞ − ∞ or 0·∞: there
				// the float64 FMA's result, NaN or ±Inf, is exact.
				got, want := fma32(x, y, z), float32(math.FMA(float64(x), float64(y), float64(z)))
				if math.Float32bits(got) != math.Float32bits(want) && !(isNaN32(got) && isNaN32(want)) {
					t.Fatalf("fma32(%v, %v, %v) = %v, want %v", x, y, z, got, want)
				}
				return
			}
		}
		if got, want := fma32(x, y, z), fma32Exact(x, y, z); math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("fma32(%v, %v, %v) = %v, exact %v", x, y, z, got, want)
		}
	})
}

// The float32 transform is the Box–Muller transform of its uniforms to within its
// first-order error analysis, relatively, in units of u = 2⁻²⁴ (float32's unit
// roundoff: each rounded operation is off by at most u of its result):
//
//   - the radius: s = f/(2+f) carries f's rounding (×2/(2+f) ≤ 1.17), the sum's and
//     the division's, 3.2u; Q its last fused step's u and the series' 0.03u; so s·Q
//     = −2 ln m is within 4.2u. Where −2 ln u = E + s·Q cancels most (e = 31, E = 2ln2,
//     R² ≥ ln 2), R²'s error is ((u + ρ)·E + 4.2u·|s·Q|)/R² + u = 7.3u (ρ = 0.046u,
//     2ln2's rounding to float32), halved by the square root, plus its own u: 4.7u;
//   - the sine: f's rounding u, the series' last fused step u and its error 0.6u
//     (0.47u of it π/2's rounding), the product f·S u, the inner steps damped by
//     z·S'/S ≤ 0.11: 3.7u; the cosine: its last step u, z = f² (3u) and the inner
//     steps (u) damped by z·C'/C ≤ 0.45, the series 0.16u: 3u;
//   - a normal, their product rounded: 4.7u + 3.7u + u = 9.4u.
//
// Measured over 2²² words and the reductions' edges: 2.77u and 2.92u. The reference is
// float64 (math.Log, and math.Sincos of the angle reduced in turns exactly, so that
// sines near an axis keep their digits), within 2⁻⁵⁰ of exact. Planted: the cosine's
// z² or atanh's z coefficient changed in its fourth digit, or the m > √2 select
// dropped, fails it (a change where a coefficient weighs less than u, atanh's z² in its
// fourth digit, does not: TestStreamsPinned holds the bits).
func TestTransform32Accuracy(t *testing.T) {
	const radiusTol, angleTol, normalTol = 4.7 * 0x1p-24, 3.7 * 0x1p-24, 9.4 * 0x1p-24
	words := []uint32{0, 1, 2, 1 << 31, 1<<31 - 1, 1<<31 + 1, math.MaxUint32, math.MaxUint32 - 1,
		1 << 29, 1<<29 - 1, 1<<29 + 1, 3 << 29, 1 << 30, 1<<30 - 1, 1<<30 + 1, 3 << 30,
		3037000499, 3037000500, 1518500249, 1518500250} // ⌊√2·2³¹⌋, ⌊√2·2³⁰⌋ and one past: the m > √2 select's edges
	n := 1 << 22
	if testing.Short() {
		n = 1 << 18
	}
	x := uint64(0x9e3779b97f4a7c15)
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
		words = append(words, uint32(x>>32))
	}
	worstR, worstA := 0.0, 0.0
	for _, w := range words {
		exact := math.Sqrt(-2 * math.Log((float64(w)+0.5)*0x1p-32))
		if e := math.Abs(float64(radius32(w))-exact) / exact; e > worstR {
			worstR = e
			if e > radiusTol {
				t.Errorf("radius32(%d) = %v, exact %v: relative error %.3g u", w, radius32(w), exact, e*0x1p24)
			}
		}
		k := (w + 1<<29) >> 30
		f := float64(int32(w<<2)) * 0x1p-32 // exact in float64
		s0, c0 := math.Sincos(math.Pi / 2 * f)
		es, ec := turn(s0, c0, k&3)
		s, c := sinCos32(w)
		// A normal, R·cos or R·sin of one word's radius and another's angle (here the
		// same word's): the two errors and the product's rounding, 9.4u.
		r := radius32(w)
		for _, p := range [][2]float64{{float64(r * c), exact * ec}, {float64(r * s), exact * es}} {
			if p[1] != 0 && math.Abs(p[0]-p[1]) > normalTol*math.Abs(p[1]) {
				t.Errorf("normal of word %d = %v, exact %v: relative error %.3g u", w, p[0], p[1], math.Abs(p[0]-p[1])/math.Abs(p[1])*0x1p24)
			}
		}
		for _, p := range [][2]float64{{float64(s), es}, {float64(c), ec}} {
			if p[1] == 0 {
				if p[0] != 0 {
					t.Errorf("sinCos32(%d) = %v, %v where exact is 0", w, s, c)
				}
				continue
			}
			if e := math.Abs(p[0]-p[1]) / math.Abs(p[1]); e > worstA {
				worstA = e
				if e > angleTol {
					t.Errorf("sinCos32(%d) = %v, %v, exact %v, %v: relative error %.3g u", w, s, c, es, ec, e*0x1p24)
				}
			}
		}
	}
	t.Logf("worst relative errors over %d words: radius %.3f u, sine-cosine %.3f u", len(words), worstR*0x1p24, worstA*0x1p24)
}

// turn is (s, c) turned by q right angles in float64, exactly (a swap and signs): the
// reference's quadrant, written as plainly as it reads, apart from quadrant32's masks.
func turn(s, c float64, q uint32) (sin, cos float64) {
	switch q {
	case 1:
		return c, -s
	case 2:
		return -s, -c
	case 3:
		return -c, s
	}
	return s, c
}

// isNaN32 reports whether f is a NaN.
func isNaN32(f float32) bool { return f != f }
