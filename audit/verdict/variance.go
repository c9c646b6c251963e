package verdict

import (
	"math"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// VarianceTest is the two-sided χ² test that a noise variance is the claimed one: with K
// degrees of freedom (coordinates × draws) and Σx²/v the statistic, which is χ²_K under
// the claim and r·χ²_K when the true variance is r·v, it rejects outside [Lower, Upper],
// each tail at Level/2. Too little noise voids a certificate; too much means the release
// is not the mechanism certified: a quantity claimed equal is tested both ways.
type VarianceTest struct {
	K, Level     float64
	Lower, Upper float64 // the acceptance region of Σx²/v
}

// NewVarianceTest is the test on k degrees of freedom at the given level.
//
// At a level so small that 1 − level/2 rounds to 1 (a confidence of 1 − 10⁻¹⁶), the upper
// quantile is taken from the upper tail itself (the inverse of the regularised upper
// incomplete gamma), and a quantile no inverse can compute in float64 (the lower one at a
// level near 10⁻³⁰⁰ on many degrees of freedom) is left out: that side never rejects, so
// the test keeps its level and its stated power is that of the test it runs. Neither is
// ever NaN, which gonum's CDF would never return from.
func NewVarianceTest(k int, level float64) VarianceTest {
	c := distuv.ChiSquared{K: float64(k)}
	t := VarianceTest{K: float64(k), Level: level, Lower: c.Quantile(level / 2), Upper: c.Quantile(1 - level/2)}
	if math.IsInf(t.Upper, 1) || math.IsNaN(t.Upper) {
		t.Upper = 2 * mathext.GammaIncRegCompInv(float64(k)/2, level/2)
	}
	if math.IsNaN(t.Upper) {
		t.Upper = math.Inf(1)
	}
	if math.IsNaN(t.Lower) {
		t.Lower = 0
	}
	return t
}

// Rejects says whether the statistic Σx²/v falls outside the acceptance region.
func (t VarianceTest) Rejects(stat float64) bool { return stat < t.Lower || stat > t.Upper }

// Power is the probability of rejecting when the true variance is r times the claimed.
// r must be positive and finite: a NaN argument would never return from gonum's CDF.
func (t VarianceTest) Power(r float64) float64 {
	if !(r > 0) || math.IsInf(r, 1) {
		return math.NaN()
	}
	c := distuv.ChiSquared{K: t.K}
	return c.CDF(t.Lower/r) + c.Survival(t.Upper/r)
}

// Resolves is the least f ≥ 1 whose f× and 1/f× variances are both rejected with
// probability PowerTarget (+Inf when none up to 10⁶ is).
func (t VarianceTest) Resolves() float64 {
	ok := func(f float64) bool { return t.Power(f) >= PowerTarget && t.Power(1/f) >= PowerTarget }
	lo, hi := 1.0, 2.0
	for !ok(hi) {
		lo, hi = hi, hi*2
		if hi > 1e6 {
			return math.Inf(1)
		}
	}
	for range 60 {
		mid := math.Sqrt(lo * hi)
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
