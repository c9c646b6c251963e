package onerun

import (
	"errors"
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
)

// binomTail holds ln C(n, k) for k = 0..n, so that one search over ε evaluates the
// Binomial(n, q) probabilities at many q without recomputing the coefficients.
type binomTail struct {
	n         int
	logChoose []float64
	w         []float64 // scratch: e^(ln P[Bin = k] − M)
}

func newBinomTail(n int) *binomTail {
	lc := make([]float64, n+1)
	ln1, _ := math.Lgamma(float64(n) + 1)
	for k := 0; k <= n; k++ {
		a, _ := math.Lgamma(float64(k) + 1)
		b, _ := math.Lgamma(float64(n-k) + 1)
		lc[k] = ln1 - a - b
	}
	return &binomTail{n: n, logChoose: lc, w: make([]float64, n+1)}
}

// pValue is PValue for n = t.n guesses.
func (t *binomTail) pValue(m, nCorrect int, eps, delta float64) float64 {
	n := t.n
	logQ, log1mQ := -softplus(-eps), -softplus(eps)
	top := math.Inf(-1)
	for k := 0; k <= n; k++ {
		lp := t.logChoose[k] + float64(k)*logQ + float64(n-k)*log1mQ
		t.w[k] = lp
		top = math.Max(top, lp)
	}
	// The probabilities sum to 1: dividing by their computed sum rather than
	// multiplying by e^top cancels the rounding common to every ln C(n, k).
	var total float64
	for k := range t.w {
		t.w[k] = fexp.Exp(t.w[k] - top)
		total += t.w[k]
	}
	scale := 1 / total
	// β = P[Bin(n, q) ≥ nCorrect], summed from the far tail inwards.
	var tail float64
	for k := n; k >= nCorrect; k-- {
		tail += t.w[k]
	}
	beta := math.Min(tail*scale, 1)
	if delta == 0 {
		return beta
	}
	// α = max over i of P[nCorrect − i ≤ Bin < nCorrect] / i.
	var window, alpha float64
	for i := 1; i <= nCorrect; i++ {
		window += t.w[nCorrect-i]
		alpha = math.Max(alpha, window/float64(i))
	}
	return math.Min(beta+alpha*scale*delta*2*float64(m), 1)
}

func checkCounts(m, nGuess, nCorrect int) error {
	switch {
	case m < 1:
		return fmt.Errorf("m = %d canaries: need at least one", m)
	case nGuess < 0 || nGuess > m:
		return fmt.Errorf("nGuess = %d outside [0, m = %d]", nGuess, m)
	case nCorrect < 0 || nCorrect > nGuess:
		return fmt.Errorf("nCorrect = %d outside [0, nGuess = %d]", nCorrect, nGuess)
	}
	return nil
}

func checkLevels(significance, delta float64, deltaPositive bool) error {
	if !(significance > 0 && significance < 1) {
		return fmt.Errorf("significance %v outside (0, 1)", significance)
	}
	if deltaPositive && !(delta > 0 && delta <= 1) {
		return fmt.Errorf("delta %v outside (0, 1]", delta)
	}
	if !(delta >= 0 && delta <= 1) {
		return fmt.Errorf("delta %v outside [0, 1]", delta)
	}
	return nil
}

// PValue is the probability, under the hypothesis that the mechanism is (ε, δ)-DP with
// respect to each canary's inclusion bit, of an auditor making nCorrect or more correct
// guesses out of nGuess among m canaries each included with probability ½ (Steinke,
// Nasr and Jagielski, "Privacy Auditing with One (1) Training Run", NeurIPS 2023,
// arXiv 2305.08846, Theorem 3.1 with its δ term):
//
//	p(ε, δ) = min(1, β + α·δ·2m),  β = P[Bin(nGuess, q) ≥ nCorrect],  q = e^ε/(1+e^ε),
//	α = max_{1≤i≤nCorrect} P[nCorrect − i ≤ Bin(nGuess, q) < nCorrect] / i,
//
// β alone when δ = 0. It matches jax_privacy.auditing._one_run_p_value. The binomial
// probabilities are summed in log space, accurate for nGuess in the hundreds of thousands.
// PValue is NaN when the counts are inconsistent (not 0 ≤ nCorrect ≤ nGuess ≤ m, m ≥ 1)
// or δ is outside [0, 1].
func PValue(m, nGuess, nCorrect int, eps, delta float64) float64 {
	if checkCounts(m, nGuess, nCorrect) != nil || !(delta >= 0 && delta <= 1) || math.IsNaN(eps) {
		return math.NaN()
	}
	return newBinomTail(nGuess).pValue(m, nCorrect, eps, delta)
}

// Epsilon is the one-run ε lower bound of Steinke, Nasr and Jagielski (NeurIPS 2023,
// arXiv 2305.08846): the largest ε at which PValue(m, nGuess, nCorrect, ε, δ) ≤
// significance, that is, the largest ε whose (ε, δ) claim the guesses refute at
// confidence 1 − significance; 0 when none is refuted. It matches
// jax_privacy.auditing._epsilon_one_run started from ε = 0, search included (doubling to
// bracket the root, then Brent's method to 1e-6), so its value agrees with jax_privacy's
// to far better than the search tolerance.
func Epsilon(m, nGuess, nCorrect int, significance, delta float64) (float64, error) {
	if err := checkCounts(m, nGuess, nCorrect); err != nil {
		return 0, fmt.Errorf("one-run epsilon: %w", err)
	}
	if err := checkLevels(significance, delta, false); err != nil {
		return 0, fmt.Errorf("one-run epsilon: %w", err)
	}
	eps, err := epsilonOneRun(0, m, nGuess, nCorrect, significance, delta)
	if err != nil {
		return 0, fmt.Errorf("one-run epsilon: %w", err)
	}
	return eps, nil
}

// epsilonOneRun is jax_privacy's _epsilon_one_run: the bound, or epsLo when no ε ≥ epsLo
// is refuted.
func epsilonOneRun(epsLo float64, m, nGuess, nCorrect int, significance, delta float64) (float64, error) {
	t := newBinomTail(nGuess)
	if t.pValue(m, nCorrect, epsLo, 0) > significance {
		return epsLo, nil // not refuted even at δ = 0
	}
	objective := func(eps float64) float64 { return significance - t.pValue(m, nCorrect, eps, delta) }
	return searchUp(objective, epsLo)
}

// searchUp finds the largest ε ≥ epsLo with objective(ε) > 0 as jax_privacy does: epsLo
// itself if objective(epsLo) ≤ 0; else double from max(1, 2·epsLo) until the objective
// is ≤ 0, then Brent's method with xtol 1e-6 on the last doubling step.
func searchUp(objective func(float64) float64, epsLo float64) (float64, error) {
	if objective(epsLo) <= 0 {
		return epsLo, nil
	}
	epsHi := math.Max(1, 2*epsLo)
	for objective(epsHi) > 0 {
		epsLo, epsHi = epsHi, epsHi*2
		if math.IsInf(epsHi, 1) {
			return 0, errors.New("no ε is large enough: the claim is refuted at every ε")
		}
	}
	return brentRoot(objective, epsLo, epsHi, 1e-6)
}

// EpsilonFDP is the one-run ε lower bound of Mahloujifar, Melis and Chaudhuri, "Auditing
// f-Differential Privacy in One Run" (NeurIPS 2024, arXiv 2410.22235, Algorithm
// audit_rh_with_cap): the largest ε such that the guesses refute, at confidence
// 1 − significance, the claim that the mechanism satisfies the trade-off function of the
// Gaussian mechanism calibrated to (ε, δ); 0 when none is refuted. It is usually well
// above Epsilon for the same guesses. It matches jax_privacy.auditing._epsilon_one_run_fdp
// started from ε = 0 (with dp_accounting.get_sigma_gaussian for the calibration), search
// included. δ must be in (0, 1].
func EpsilonFDP(m, nGuess, nCorrect int, significance, delta float64) (float64, error) {
	if err := checkCounts(m, nGuess, nCorrect); err != nil {
		return 0, fmt.Errorf("one-run f-DP epsilon: %w", err)
	}
	if err := checkLevels(significance, delta, true); err != nil {
		return 0, fmt.Errorf("one-run f-DP epsilon: %w", err)
	}
	eps, err := epsilonOneRunFDP(0, m, nGuess, nCorrect, significance, delta)
	if err != nil {
		return 0, fmt.Errorf("one-run f-DP epsilon: %w", err)
	}
	return eps, nil
}

// fdpObjective is positive when nCorrect right out of nGuess guesses among m canaries
// refute, at the given significance, the trade-off function of the Gaussian mechanism
// calibrated to (ε, δ).
func fdpObjective(eps float64, m, nGuess, nCorrect int, significance, delta float64) (float64, error) {
	sigma, err := gaussianSigma(eps, delta)
	if err != nil {
		return 0, fmt.Errorf("calibrating the Gaussian mechanism at ε = %v: %w", eps, err)
	}
	blowUpInv := func(x float64) float64 { return normCDF(normPPF(x) - 1/sigma) }
	if sigma == 0 {
		blowUpInv = func(x float64) float64 {
			if x == 1 {
				return 1
			}
			return 0
		}
	}
	r := significance * float64(nCorrect) / float64(m)
	h := significance * float64(nGuess-nCorrect) / float64(m)
	for i := nCorrect - 1; i >= 0; i-- {
		hNew := math.Max(h, blowUpInv(r))
		if h == hNew {
			break // neither h nor r can change any more
		}
		rNew := math.Min(r+(float64(i)/float64(nGuess-i))*(hNew-h), 1)
		h, r = hNew, rNew
	}
	return r + h - float64(nGuess)/float64(m), nil
}

// epsilonOneRunFDP is jax_privacy's _epsilon_one_run_fdp: the bound, or epsLo when no
// ε ≥ epsLo is refuted.
func epsilonOneRunFDP(epsLo float64, m, nGuess, nCorrect int, significance, delta float64) (float64, error) {
	var firstErr error
	objective := func(eps float64) float64 {
		v, err := fdpObjective(eps, m, nGuess, nCorrect, significance, delta)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			return math.NaN()
		}
		return v
	}
	eps, err := searchUp(objective, epsLo)
	if firstErr != nil {
		return 0, firstErr
	}
	return eps, err
}
