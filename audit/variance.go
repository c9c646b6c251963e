package audit

import (
	"math"

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
func NewVarianceTest(k int, level float64) VarianceTest {
	c := distuv.ChiSquared{K: float64(k)}
	return VarianceTest{K: float64(k), Level: level, Lower: c.Quantile(level / 2), Upper: c.Quantile(1 - level/2)}
}

// Rejects says whether the statistic Σx²/v falls outside the acceptance region.
func (t VarianceTest) Rejects(stat float64) bool { return stat < t.Lower || stat > t.Upper }

// Power is the probability of rejecting when the true variance is r times the claimed.
func (t VarianceTest) Power(r float64) float64 {
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
