package ensemble

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// u32 is float32's unit roundoff, 2⁻²⁴.
const u32 = 0x1p-24

// exp32Bound is exp32's relative error bound for a normal result, 3u (u = 2⁻²⁴), from a
// first-order analysis of its steps:
//   - r: x − k·ln2Hi is exact (k·ln2Hi has at most 16 bits, and the difference is a
//     multiple of x's last place smaller than x); k·ln2Lo's rounding (|k| ≤ 150, |ln2Lo| <
//     2.2·10⁻⁴: at most 0.034u), the subtraction's (|r| ≤ ln2/2 + 2⁻²⁰: 0.35u) and ln 2's
//     split (150·1.7·10⁻¹² = 0.004u) move r by at most 0.39u, and eʳ by that relative;
//   - P's fit: 2^−26.6 = 0.17u of eʳ (asm/expcoef.py);
//   - Horner's four products and sums, then r² and r²·P: |r²·P| ≤ 0.07, off by at most
//     0.3u; r + r²·P, at most 0.42 in size, rounds by at most 0.42u; so 1 + (r + r²·P), at
//     least 0.7, is off by (0.3 + 0.42)/0.7 = 1.03u of itself before its own rounding, u;
//   - the product by 2ᵏ is exact where the result is normal.
//
// In all 2.6u; 3u leaves the analysis's second-order terms room.
const exp32Bound = 3 * u32

// deriv32Bound is logisticDeriv32's bound against the exact φ': 5u of |φ'| (exp32's 3u
// passes through σ with a factor 1/(1 + e) ≤ 1, then 1 + e's rounding and the division's)
// plus 2⁻¹⁴⁹, a subnormal result's last place: RoundingBound32's budget for a derivative.
const deriv32Bound = 5 * u32

// exp32 is eˣ to within exp32Bound of a normal result, and to within it plus half a
// subnormal's last place (2⁻¹⁵⁰) of a subnormal one, on 2²² random float32 in [−104, 0]
// and at the edges: 0, −0, the reductions' turns (x = (k + ½)·ln2, where k changes, and
// beside them), the normal range's end (−87.33) and the last nonzero results (−103.97);
// below −104 it is 0. math.Exp's float64 value is within 10⁻¹⁶ of eˣ: the reference.
// Planted, each seen to fail: P's third coefficient rounded to 0.04166; k·ln2Lo left out
// of r; a subnormal result truncated, not rounded. (The sum regrouped as (1 + r) + r²·P
// stays within 3u: only the kernels' bit tests, TestWeights512MatchLogisticWeights, see
// it.) TestExp32Exhaustive checks every float32 in [−104, 0] (opt-in).
func TestExp32Accuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 1))
	n := 1 << 22
	if testing.Short() {
		n = 1 << 18
	}
	xs := []float32{0, float32(math.Copysign(0, -1)), -87.33, -87.34, -103.97, -103.98, -104, -1e-30, -1e-45}
	for k := range 151 {
		edge := -(float32(k) + 0.5) * float32(math.Ln2)
		xs = append(xs, edge, math.Nextafter32(edge, 0), math.Nextafter32(edge, -200))
	}
	for range n {
		xs = append(xs, -104*r.Float32())
	}
	worst := 0.0
	for _, x := range xs {
		worst = max(worst, checkExp32(t, x))
	}
	for _, x := range []float32{-104.01, -200, float32(math.Inf(-1))} {
		if e := exp32(x); e != 0 {
			t.Errorf("exp32(%v) = %v, want 0", x, e)
		}
	}
	if e := exp32(float32(math.NaN())); !math.IsNaN(float64(e)) {
		t.Errorf("exp32(NaN) = %v", e)
	}
	t.Logf("worst relative error of a normal result: %.3gu (bound 3u)", worst)
}

// checkExp32 fails t unless exp32(x) is within exp32Bound of eˣ (plus 2⁻¹⁵⁰ where eˣ is
// subnormal) and returns its relative error in units of 2⁻²⁴ where eˣ is normal, else 0.
func checkExp32(t *testing.T, x float32) float64 {
	got, want := float64(exp32(x)), math.Exp(float64(x))
	err := math.Abs(got - want)
	if want < 0x1p-126 {
		if err > exp32Bound*want+0x1p-150 {
			t.Fatalf("exp32(%v) = %v (subnormal), eˣ = %v: off by %.3g, bound 3u·eˣ + 2⁻¹⁵⁰", x, got, want, err)
		}
		return 0
	}
	if err > exp32Bound*want {
		t.Fatalf("exp32(%v) = %v, eˣ = %v: off by %.3gu, bound 3u", x, got, want, err/want/u32)
	}
	return err / want / u32
}

// With ENSEMBLE_EXHAUSTIVE=1, TestExp32Accuracy's bounds on every float32 in [−104, 0]
// (about 1.1·10⁹ values; 51 s of one core, passed when written: worst 1.482u).
func TestExp32Exhaustive(t *testing.T) {
	if os.Getenv("ENSEMBLE_EXHAUSTIVE") == "" {
		t.Skip("set ENSEMBLE_EXHAUSTIVE=1 to check every float32 in [−104, 0]")
	}
	worst := 0.0
	for b := math.Float32bits(float32(math.Copysign(0, -1))); b <= math.Float32bits(-104); b++ {
		worst = max(worst, checkExp32(t, math.Float32frombits(b)))
	}
	t.Logf("worst relative error of a normal result: %.4gu (bound 3u)", worst)
}

// logisticDeriv32 is φ' to within deriv32Bound of |φ'| plus 2⁻¹⁴⁹ (logisticDeriv's float64
// value, within 10⁻¹⁵ of it, the reference), both labels, on 2²⁰ margins spread from 10⁻³⁰
// to about 150 in size and at the edges: ±0, ±87 (the kernels' range), where φ' becomes
// subnormal (|u| ≈ 87.3) and 0 (≈ 103.97), ±Inf. Planted, each seen to fail: σ's branches
// swapped; σ = 1/(1 + e) on both sides.
func TestLogisticDeriv32Accuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 2))
	n := 1 << 20
	if testing.Short() {
		n = 1 << 16
	}
	us := []float32{0, float32(math.Copysign(0, -1)), 87, -87, 87.3, -87.3, 87.4, -87.4, 103.9, -103.9, 104.1, -104.1,
		float32(math.Inf(1)), float32(math.Inf(-1))}
	for range n {
		us = append(us, float32(math.Copysign(math.Exp(r.Float64()*74-69), r.NormFloat64())))
	}
	worst := 0.0
	for _, u := range us {
		for _, y := range []float32{1, -1} {
			got, want := float64(logisticDeriv32(u, y)), logisticDeriv(float64(u), float64(y))
			err := math.Abs(got - want)
			if err > deriv32Bound*math.Abs(want)+0x1p-149 {
				t.Fatalf("φ'(%v, y = %v) = %v, want %v: off by %.3g, bound 5u·|φ'| + 2⁻¹⁴⁹", u, y, got, want, err)
			}
			if want != 0 && math.Abs(want) >= 0x1p-126 {
				worst = max(worst, err/math.Abs(want)/u32)
			}
		}
	}
	if d := logisticDeriv32(float32(math.NaN()), 1); !math.IsNaN(float64(d)) {
		t.Errorf("φ'(NaN) = %v", d)
	}
	t.Logf("worst relative error: %.3gu (bound 5u)", worst)
}

// With ENSEMBLE_EXHAUSTIVE=1, the float32 weights kernels (AVX-512 and AVX2) give
// logisticDeriv32's bits for every float32 margin whose |t| is at most 87, with y = 1
// (t = −u: every margin's sign is every t's), inv = 1/96. Lanes beyond 87 are computed
// by the kernels too, but the caller redoes their blocks in Go. (151 s of one core for both
// kernels; passed when written.)
func TestWeights32Exhaustive(t *testing.T) {
	if os.Getenv("ENSEMBLE_EXHAUSTIVE") == "" {
		t.Skip("set ENSEMBLE_EXHAUSTIVE=1 to check every float32 margin")
	}
	if !HasAsm {
		t.Skip("no AVX2 here: the kernels never run")
	}
	kernels := weights32Kernels()
	const n, inv = 1 << 12, float32(1.0 / 96)
	z, got := make([]float32, n), make([]float32, n)
	y := []float32{1}
	for base := uint64(0); base < 1<<32; base += n {
		for i := range z {
			z[i] = math.Float32frombits(uint32(base) + uint32(i))
		}
		for _, k := range kernels {
			k.f(&got[0], &z[0], &y[0], 1, n, inv)
			for i, u := range z {
				if !(math.Abs(float64(u)) <= 87) {
					continue
				}
				if want := inv * logisticDeriv32(u, 1); math.Float32bits(got[i]) != math.Float32bits(want) {
					t.Fatalf("%s: margin %v (bits %#x): kernel %v, logisticDeriv32 %v", k.name, u, math.Float32bits(u), got[i], want)
				}
			}
		}
	}
}

// weights32Kernels is the float32 weights kernels this CPU runs (AVX2's, and AVX-512's where
// it has it), by name; the caller checks HasAsm.
func weights32Kernels() []struct {
	name string
	f    func(wz, z, y *float32, rb, w int, inv float32) bool
} {
	ks := []struct {
		name string
		f    func(wz, z, y *float32, rb, w int, inv float32) bool
	}{{"AVX2", weightsAVX2[float32]}}
	if HasAVX512 {
		ks = append(ks, struct {
			name string
			f    func(wz, z, y *float32, rb, w int, inv float32) bool
		}{"AVX-512", weights512[float32]})
	}
	return ks
}
