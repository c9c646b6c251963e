package onerun

import (
	"fmt"
	"math"
	"sort"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"
)

// GaussianMu is the Gaussian-DP μ of the Gaussian mechanism that is exactly (ε, δ)-DP:
// 1/σ for the least σ at sensitivity 1 (Balle and Wang 2018). A mechanism that adds
// Gaussian noise to a shift of at most μ standard deviations per canary is (ε, δ)-DP with
// respect to each canary, so no one-run audit refutes (ε, δ) for it, whatever m.
func GaussianMu(eps, delta float64) (float64, error) {
	if !(eps > 0) || !(delta > 0 && delta < 1) {
		return 0, fmt.Errorf("the Gaussian μ of ε = %v, δ = %v: want ε > 0 and δ in (0, 1)", eps, delta)
	}
	sigma, err := gaussianSigma(eps, delta)
	if err != nil {
		return 0, fmt.Errorf("the Gaussian μ: %w", err)
	}
	return 1 / sigma, nil
}

// maxTypicalMu is the largest shift TypicalRefutingMu tries: at 40 standard deviations
// the two halves of a typical run of up to a million canaries are separated.
const maxTypicalMu = 40

// TypicalRefutingMu is the least per-canary shift μ, in noise standard deviations, at
// which a typical run of m canaries refutes (eps, delta) at the significance: half the
// canaries included, their scores at the quantiles (k − ½)/(m/2) of N(μ, 1) and the
// excluded ones' at those of N(0, 1), audited as Audit does (EpsilonOneRun, Bonferroni
// over the Pareto thresholds). It is what a mechanism adding Gaussian noise to a fixed
// shift must leak per canary for one run of m canaries to show it, about half the time;
// +Inf when no outcome of m canaries could. Found by bisection to 1e-3.
func TypicalRefutingMu(m int, significance, eps, delta float64) (float64, error) {
	if m < 2 {
		return 0, fmt.Errorf("typical refuting μ: %d canaries; want at least 2", m)
	}
	if err := checkLevels(significance, delta, false); err != nil {
		return 0, fmt.Errorf("typical refuting μ: %w", err)
	}
	refutes := func(mu float64) (bool, error) {
		a, err := NewAuditor(typicalScores(m-m/2, mu), typicalScores(m/2, 0))
		if err != nil {
			return false, err
		}
		e, err := a.EpsilonOneRun(significance, delta, threshold.Bonferroni)
		return e > eps, err
	}
	ok, err := refutes(maxTypicalMu)
	if err != nil || !ok {
		return math.Inf(1), err
	}
	lo, hi := 0.0, float64(maxTypicalMu)
	for hi-lo > 1e-3 {
		mid := (lo + hi) / 2
		ok, err := refutes(mid)
		if err != nil {
			return 0, fmt.Errorf("typical refuting μ: %w", err)
		}
		if ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// typicalScores are the quantiles (k − ½)/n, k = 1..n, of N(mu, 1).
func typicalScores(n int, mu float64) []float64 {
	out := make([]float64, n)
	for k := range out {
		out[k] = mu + normPPF((float64(k)+0.5)/float64(n))
	}
	return out
}

// BinormalMu estimates the per-canary Gaussian-DP μ of a run from its scores (in: the
// included canaries', out: the excluded ones', higher meaning included): √2·Φ⁻¹(AUC), the
// shift in noise standard deviations of two unit normals with that area under the ROC
// (ties count ½). It reads a shift spread over many canaries; a leak confined to a few
// canaries, which one run cannot show, reads as a small μ. +Inf when the scores are
// separated; negative when the included canaries score lower.
func BinormalMu(in, out []float64) (float64, error) {
	if len(in) == 0 || len(out) == 0 {
		return 0, fmt.Errorf("binormal μ: %d included and %d excluded canaries; want both", len(in), len(out))
	}
	a, err := NewAuditor(in, out)
	if err != nil {
		return 0, fmt.Errorf("binormal μ: %w", err)
	}
	var wins float64
	for _, v := range a.in {
		below := countBelow(a.out, v)                                               // excluded canaries scoring below v
		atMost := sort.Search(len(a.out), func(i int) bool { return a.out[i] > v }) // … or at v
		wins += float64(below) + float64(atMost-below)/2
	}
	auc := wins / (float64(len(in)) * float64(len(out)))
	if auc >= 1 {
		return math.Inf(1), nil
	}
	return math.Sqrt2 * normPPF(auc), nil
}
