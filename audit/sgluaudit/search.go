package sgluaudit

import (
	"errors"
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"github.com/unlearnaudit/unlearnaudit/reference/sglu"
)

// BestDPEpsilon converts any Rényi curve ε(α) to (ϵ, δ) with Mironov's conversion
// ϵ = ε(α) + log(1/δ)/(α−1), minimised over the α range by golden-section search on
// log(α − 1) (for curves without a closed form, such as Corollary 3.9's). The search
// assumes the objective is unimodal in log(α − 1), which holds for every bound here. The
// zero range is sglu.DefaultAlphas.
func BestDPEpsilon(f func(alpha float64) float64, delta float64, r sglu.AlphaRange) (eps, alpha float64) {
	r = r.OrDefault()
	if !(r.Max > 1) {
		return math.Inf(1), r.Max
	}
	l := math.Log(1 / delta)
	obj := func(u float64) float64 {
		a := 1 + fexp.Exp(u)
		return f(a) + l/(a-1)
	}
	lo := math.Log(math.Max(r.Min-1, 1e-6))
	hi := math.Log(math.Min(r.Max, 1e12) - 1)
	bestU, best := dp.GoldenSection(obj, lo, hi, 1e-12)
	// the ends themselves, where the optimum may sit
	for _, e := range []float64{lo, hi} {
		if v := obj(e); v < best {
			best, bestU = v, e
		}
	}
	return best, 1 + fexp.Exp(bestU)
}

// LeastKNonConvergent is Algorithm 5 corrected (spec sglu §2.5): the least K ≥ 1 whose
// Theorem 3.2 bound, converted at δ at its optimal α in the range, is at most the target.
// The printed algorithm adds 2R·c^{Tn/b} to ε2 instead of to Z and returns K + 1.
func LeastKNonConvergent(target, delta, sigma float64, p sglu.Problem, nc NonConvergent, v sglu.Variance, r sglu.AlphaRange) (int, error) {
	ok := func(K int) bool {
		eps, _ := sglu.BestEpsilonWeakTriangle(NonConvergentCoefficient(sigma, p, K, nc, v), delta, r)
		return eps <= target
	}
	return sglu.LeastEpochs(ok, fmt.Sprintf("ϵ̂ = %v at δ = %v with σ = %v", target, delta, sigma))
}

// SigmaSearch configures Algorithm 4.
type SigmaSearch struct {
	Low, High, Tol float64 // bracket and tolerance; defaults 1e-15, 10, 1e-8 (the code's)
}

func (s SigmaSearch) withDefaults() SigmaSearch {
	if s.Low == 0 {
		s.Low = 1e-15
	}
	if s.High == 0 {
		s.High = 10
	}
	if s.Tol == 0 {
		s.Tol = 1e-8
	}
	return s
}

// SearchSigma is Algorithm 4 corrected (it prints "return K"; spec sglu §2.7): the
// smallest σ in the bracket, to the tolerance, whose least K is at most K̂, by bisection
// on a leastK that is non-increasing in σ. It returns σ_high, so leastK(σ) ≤ K̂ holds at
// the result.
func SearchSigma(Khat int, leastK func(sigma float64) (int, error), s SigmaSearch) (float64, error) {
	s = s.withDefaults()
	meets := func(sigma float64) (bool, error) {
		k, err := leastK(sigma)
		if errors.Is(err, sglu.ErrInfeasible) {
			return false, nil
		}
		return err == nil && k <= Khat, err
	}
	ok, err := meets(s.High)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("σ search: even σ = %v needs more than K̂ = %d epochs: %w", s.High, Khat, sglu.ErrInfeasible)
	}
	return dp.Bisect(s.Low, s.High, func(lo, hi float64) float64 { return (lo + hi) / 2 },
		func(lo, hi float64) bool { return hi-lo <= s.Tol }, meets)
}

// SigmaClosedForm is the smallest σ at which the convergent bound from distance Z meets
// the target with K̂ epochs, with α unclamped: every bound depends on σ through 1/σ², so
// σ* = √(Z²·PABIFactor(c, K̂n/b)/(k·η·A_max)), k = 2 (paper variance) or 4 (true), A_max =
// (√(ℓ+ϵ̂) − √ℓ)². A test oracle for SearchSigma.
func SigmaClosedForm(p sglu.Problem, Khat int, target, delta, Z float64, mode sglu.PABIMode, v sglu.Variance) float64 {
	k := 2.0
	if v == sglu.TrueVariance {
		k = 4
	}
	f := sglu.PABIFactor(p.StepSize, p.StrongConvexity, float64(Khat*p.StepsPerEpoch()), mode)
	return math.Sqrt(Z * Z * f / (k * p.StepSize * sglu.MaxLinearCoefficient(target, delta)))
}

// Table3Sigma is the σ of the paper's Table 3: Algorithm 4 over the corrected Algorithm 5
// at K̂ = 1, δ = 1/n, α ∈ [2, 1e4], with the official runs' configuration of Theorem 3.2
// (R = 0 in the 2R terms, no 2R cap on Z, F_T = 1/(1 − c^{n/b}); spec sglu §2.5, §4.5).
func Table3Sigma(p sglu.Problem, target float64) (float64, error) {
	p.Radius = math.Inf(1)
	nc := NonConvergent{T: 1, InitRadius: 0, FT: ProofFT}
	delta := 1 / float64(p.N)
	return SearchSigma(1, func(sigma float64) (int, error) {
		return LeastKNonConvergent(target, delta, sigma, p, nc, sglu.PaperVariance, sglu.NonConvergentAlphas)
	}, SigmaSearch{})
}

// SequentialNonConvergent carries Theorem 3.2 along Theorem 3.11's recursion, for a
// learner run T epochs from an initial law on C_{R0} (R0 = nc.InitRadius) that then serves
// single-record requests in turn. After request s the unlearned model is compared with T
// epochs of retraining on D_s (same B) through ν_{D_s} by the weak triangle inequality:
// ε1 = a·(2R0)²c^{2Tn/b}/(2s²) as in Theorem 3.2, and ε2 = a·Z_s²·c^{2K_s n/b}/(2s²) with
// Z_1 Theorem 3.2's Z and Z_{s+1} = min(c^{K_s n/b}·Z_s + Z_B, 2R) (Theorem 3.11: the
// learner's distance to ν_{D_s} contracts over K_s epochs, then moves by at most Z_B).
// Each K_s is the least meeting the target; eps[s] is what request s certifies. For one
// request it is Theorem 3.2 and LeastKNonConvergent exactly. The composition is ours, of
// the paper's own lemmas; the paper states the sequential case only under convergence.
func SequentialNonConvergent(target, delta, sigma float64, p sglu.Problem, nc NonConvergent, requests int, v sglu.Variance, r sglu.AlphaRange) (Ks []int, eps []float64, err error) {
	z := NonConvergentZ(p, nc)
	for s := range requests {
		conv := func(K int) float64 {
			e, _ := sglu.BestEpsilonWeakTriangle(nonConvergentCoefficient(z, sigma, p, K, nc, v), delta, r)
			return e
		}
		K, err := sglu.LeastEpochs(func(K int) bool { return conv(K) <= target },
			fmt.Sprintf("ϵ̂ = %v at δ = %v with σ = %v (request %d)", target, delta, sigma, s+1))
		if err != nil {
			return nil, nil, err
		}
		Ks, eps = append(Ks, K), append(eps, conv(K))
		z = p.NextZ(z, K)
	}
	return Ks, eps, nil
}
