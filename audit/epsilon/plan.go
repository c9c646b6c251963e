package epsilon

import (
	"errors"
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"gonum.org/v1/gonum/stat/distuv"
)

// MaxCertifiable is the resolution limit of a distinguishing game with the given number
// of trials per side: the largest ε lower bound any rule could show, reached at perfect
// separation (no false positives, no false negatives), at confidence conf. With Split,
// half the trials choose the rule and half bound it. It grows like ln(n): a claim above it
// cannot be shown violated with these trials, whatever the method does.
func MaxCertifiable(trials int, delta, conf float64, s Strategy) float64 {
	a := 1 - conf
	n := trials
	var fpr float64
	switch s {
	case Split:
		n = trials - trials/2
		fpr = CPUpper(0, n, a/2)
	default:
		fpr = CPUpper(0, n, a/(4*float64(n+1)))
	}
	return epsFromRates(fpr, fpr, delta)
}

// TrialsForResolution is the least number of trials per side whose MaxCertifiable exceeds
// eps, or an error when none up to 10⁹ does.
func TrialsForResolution(eps, delta, conf float64, s Strategy) (int, error) {
	return leastTrials(func(n int) bool { return MaxCertifiable(n, delta, conf, s) > eps })
}

// leastTrials is the least n ≥ 4 with ok(n), for ok monotone in n (doubling, then
// bisection).
func leastTrials(ok func(int) bool) (int, error) {
	lo, hi := 4, 8
	if ok(lo) {
		return lo, nil
	}
	for !ok(hi) {
		lo, hi = hi, 2*hi
		if hi > 1e9 {
			return 0, errors.New("no trial count up to 10⁹ suffices")
		}
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// PowerSpec says what violation a test should catch.
type PowerSpec struct {
	Claim  float64 // the claimed ε
	Factor float64 // the true ε is Factor × Claim (> 1)
	Power  float64 // probability of catching it (e.g. 0.8)
	Delta  float64
	Conf   float64 // confidence of the ε lower bound
}

// TrialsToDetect is the number of trials per side with which the split-threshold game
// shows ε_LB > Claim with probability at least Power, when the truth is a Gaussian pair
// (μ-GDP) whose ε at δ is Factor × Claim and the rule's threshold is placed optimally on
// the selection half.
//
// The power is computed conservatively: the bound at threshold t exceeds the claim with
// at least the probability that both error counts stay at or below their √Power binomial
// quantiles (the counts are independent), so the reported count never overstates the
// power. The Gaussian shape of the leak is an assumption (it is the shape of the
// toolkit's Gaussian mechanisms); leaks of another shape may need fewer or more trials.
func TrialsToDetect(p PowerSpec) (int, float64, error) {
	switch {
	case !(p.Claim > 0), !(p.Factor > 1), !(p.Power > 0 && p.Power < 1), !(p.Delta > 0 && p.Delta < 1), !(p.Conf > 0 && p.Conf < 1):
		return 0, 0, fmt.Errorf("plan: claim %v, factor %v, power %v, δ %v, confidence %v; want ε > 0, factor > 1, and power, δ, confidence in (0, 1)",
			p.Claim, p.Factor, p.Power, p.Delta, p.Conf)
	}
	target := p.Factor * p.Claim
	mu, err := gdpMuFor(target, p.Delta)
	if err != nil {
		return 0, 0, err
	}
	q := math.Sqrt(p.Power)
	a := 1 - p.Conf
	detects := func(trials int) bool {
		n := trials - trials/2 // evaluation half
		// thresholds on a grid of the negative law's quantiles: FPR = Φ̄(t), FNR = Φ(t − μ)
		for i := 1; i < 400; i++ {
			t := -3 + float64(i)*(mu+9)/400
			fpr := 1 - distuv.UnitNormal.CDF(t)
			fnr := distuv.UnitNormal.CDF(t - mu)
			fp := binomialQuantile(n, fpr, q)
			fn := binomialQuantile(n, fnr, q)
			if LowerBound(Counts{TP: n - fn, Pos: n, FP: fp, Neg: n}, p.Delta, a) > p.Claim {
				return true
			}
		}
		return false
	}
	n, err := leastTrials(detects)
	return n, mu, err
}

// gdpMuFor is the μ of the Gaussian pair whose exact ε at δ is eps.
func gdpMuFor(eps, delta float64) (float64, error) {
	lo, hi := 0.0, 1.0
	for dp.GaussianExactEpsilon(hi, delta) < eps {
		lo, hi = hi, 2*hi
		if hi > 1e4 {
			return 0, fmt.Errorf("plan: no Gaussian pair reaches ε = %v at δ = %v", eps, delta)
		}
	}
	for hi-lo > 1e-12*hi {
		mid := (lo + hi) / 2
		if dp.GaussianExactEpsilon(mid, delta) < eps {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}

// binomialQuantile is the least k with P(Bin(n, p) ≤ k) ≥ q.
func binomialQuantile(n int, p, q float64) int {
	if p <= 0 {
		return 0
	}
	if p >= 1 {
		return n
	}
	b := distuv.Binomial{N: float64(n), P: p}
	lo, hi := 0, n
	for lo < hi {
		mid := (lo + hi) / 2
		if b.CDF(float64(mid)) >= q {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}
