package epsilon

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
)

// CPUpper is the one-sided Clopper–Pearson upper confidence bound, at level 1 − a, on a
// binomial rate with k successes in n trials: Beta⁻¹(1 − a; k+1, n−k), and 1 when k = n.
func CPUpper(k, n int, a float64) float64 {
	checkCounts(k, n)
	if k == n {
		return 1
	}
	return distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - a)
}

// CPLower is the one-sided Clopper–Pearson lower bound at level 1 − a: Beta⁻¹(a; k, n−k+1),
// and 0 when k = 0.
func CPLower(k, n int, a float64) float64 {
	checkCounts(k, n)
	if k == 0 {
		return 0
	}
	return distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(a)
}

// ClopperPearson is the two-sided exact interval at level conf:
// [Beta⁻¹(a/2; k, n−k+1), Beta⁻¹(1−a/2; k+1, n−k)] with a = 1 − conf.
func ClopperPearson(k, n int, conf float64) (lo, hi float64) {
	a := 1 - conf
	return CPLower(k, n, a/2), CPUpper(k, n, a/2)
}

func checkCounts(k, n int) {
	if n < 1 || k < 0 || k > n {
		panic(fmt.Sprintf("epsilon: %d successes in %d trials", k, n))
	}
}

// Counts are the outcomes of one decision rule on a distinguishing game: positives are
// samples of the law the rule should flag (n of them), negatives of the other (m).
type Counts struct {
	TP, Pos int // true positives out of Pos positive samples
	FP, Neg int // false positives out of Neg negative samples
}

// FNR and FPR are the empirical error rates.
func (c Counts) FNR() float64 { return float64(c.Pos-c.TP) / float64(c.Pos) }
func (c Counts) FPR() float64 { return float64(c.FP) / float64(c.Neg) }

// LowerBound is the high-confidence ε lower bound of one fixed decision rule (Jagielski et
// al. 2020; Nasr et al. 2021): with the one-sided Clopper–Pearson upper bounds FPR̄ and
// FNR̄, each at level a/2 (overall confidence 1 − a),
//
//	ε_LB = max{ ln((1 − δ − FNR̄)/FPR̄), ln((1 − δ − FPR̄)/FNR̄) }⁺,
//
// using only terms whose numerator is positive. Both directions of the (ε, δ) inequality
// are tested, so it bounds ε whichever law the rule favours. An (ε, δ)-DP pair satisfies
// ε ≥ ε_LB with probability at least 1 − a.
func LowerBound(c Counts, delta, a float64) float64 {
	fpr := CPUpper(c.FP, c.Neg, a/2)
	fnr := CPUpper(c.Pos-c.TP, c.Pos, a/2)
	return epsFromRates(fpr, fnr, delta)
}

// epsFromRates is max{ln((1−δ−FNR)/FPR), ln((1−δ−FPR)/FNR)} clipped at 0 (Kairouz–Oh–
// Viswanath), with the rates as given.
func epsFromRates(fpr, fnr, delta float64) float64 {
	eps := 0.0
	if num := 1 - delta - fnr; num > 0 {
		eps = math.Max(eps, math.Log(num/fpr))
	}
	if num := 1 - delta - fpr; num > 0 {
		eps = math.Max(eps, math.Log(num/fnr))
	}
	return eps
}

// PointEstimate is ε̂(FPR, FNR) with the empirical rates: reported, never a bound.
func PointEstimate(c Counts, delta float64) float64 {
	return epsFromRates(c.FPR(), c.FNR(), delta)
}

// RatioMethod is a confidence method for the ratio TPR/FPR, as in TensorFlow Privacy's
// epsilon_lower_bound (δ = 0).
type RatioMethod int

const (
	// KatzLog: ln R̂ ± z·√(1/x₁ − 1/n₁ + 1/x₂ − 1/n₂) (Katz et al. 1978).
	KatzLog RatioMethod = iota
	// Bailey: the cube-root interval of Bailey (1987).
	Bailey
	// CPRatio: the ratio of Clopper–Pearson bounds, TPR_lo/FPR_hi, each at a/2.
	CPRatio
)

// RatioLowerBound is a one-sided lower confidence bound, at level 1 − a, on
// TPR/FPR = (tp/nPos)/(fp/nNeg); ln of it is an ε lower bound at δ = 0. KatzLog and
// Bailey need tp, fp > 0 (the ratio is then estimable); CPRatio does not.
func RatioLowerBound(m RatioMethod, tp, nPos, fp, nNeg int, a float64) float64 {
	p1, p2 := float64(tp)/float64(nPos), float64(fp)/float64(nNeg)
	z := distuv.UnitNormal.Quantile(1 - a)
	switch m {
	case KatzLog:
		if tp == 0 || fp == 0 {
			return math.NaN()
		}
		se := math.Sqrt(1/float64(tp) - 1/float64(nPos) + 1/float64(fp) - 1/float64(nNeg))
		return p1 / p2 * fexp.Exp(-z*se)
	case Bailey:
		if tp == 0 || fp == 0 {
			return math.NaN()
		}
		x1, x2 := float64(tp), float64(fp)
		v := (1-p1)/x1 + (1-p2)/x2 - z*z*(1-p1)*(1-p2)/(9*x1*x2)
		num := 1 - z*math.Sqrt(math.Max(0, v))/3
		den := 1 - z*z*(1-p2)/(9*x2)
		return p1 / p2 * fexp.Pow(num/den, 3)
	case CPRatio:
		return CPLower(tp, nPos, a/2) / CPUpper(fp, nNeg, a/2)
	}
	panic(fmt.Sprintf("epsilon: unknown ratio method %d", m))
}
