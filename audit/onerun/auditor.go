package onerun

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"
	"gonum.org/v1/gonum/mathext"
)

// Auditor audits privacy from the attack scores of canaries: In holds the scores of the
// canaries that were included in training, Out those that were not, and an included
// canary is expected to score higher. The decision rules are thresholds t: a canary
// scoring at least t is guessed "included". It matches jax_privacy.auditing's
// CanaryScoreAuditor, whose methods it mirrors; build it with NewAuditor. An Auditor is
// never modified after NewAuditor and is safe for concurrent use.
//
// Only the thresholds on the Pareto frontier of the (false-negative, true-negative) count
// pairs are kept (see Thresholds): the others are dominated by randomising between two
// frontier thresholds, so every rate-based quantity here (AUROC, TPR at FPR, the bounds)
// is that of the convex hull of the ROC curve.
type Auditor struct {
	in, out    []float64 // sorted copies
	thresholds []Threshold
}

// Threshold is one decision rule on the Pareto frontier: guess "included" for the
// canaries scoring at least Score. FN counts the included canaries below Score, TN the
// excluded ones below it.
type Threshold struct {
	Score  float64
	FN, TN int
}

// NewAuditor checks and copies the scores (included canaries in, excluded out) and
// computes the Pareto-frontier thresholds: every distinct score and +∞, pruned as
// jax_privacy's _get_tn_fn_counts and _pareto_frontier prune them. Neither side may be
// empty, and no score may be NaN.
func NewAuditor(in, out []float64) (*Auditor, error) {
	if len(in) == 0 || len(out) == 0 {
		return nil, fmt.Errorf("canary score auditor: %d included and %d excluded canaries: need both sides", len(in), len(out))
	}
	for side, s := range map[string][]float64{"included": in, "excluded": out} {
		for i, v := range s {
			if math.IsNaN(v) {
				return nil, fmt.Errorf("canary score auditor: %s canary %d scores NaN", side, i)
			}
		}
	}
	a := &Auditor{in: slices.Clone(in), out: slices.Clone(out)}
	slices.Sort(a.in)
	slices.Sort(a.out)
	all := slices.Concat(a.in, a.out)
	slices.Sort(all)
	all = slices.Compact(all)
	all = append(all, math.Inf(1))
	pts := make([]Threshold, len(all))
	for i, t := range all {
		pts[i] = Threshold{Score: t, FN: countBelow(a.in, t), TN: countBelow(a.out, t)}
	}
	a.thresholds = paretoFrontier(pts)
	return a, nil
}

// countBelow is the number of the sorted scores below t.
func countBelow(sorted []float64, t float64) int {
	return sort.SearchFloat64s(sorted, t)
}

// paretoFrontier keeps the points, ordered by FN (ties by TN), that lie strictly above the
// segment joining their neighbours on the (FN, TN) plane: the upper convex hull, ends
// included, without collinear points. jax_privacy's _pareto_frontier reaches the same
// set by removing dominated points in passes; a monotone chain reaches it in one pass.
func paretoFrontier(pts []Threshold) []Threshold {
	hull := make([]Threshold, 0, len(pts))
	for _, p := range pts {
		for len(hull) >= 2 && !strictlyAbove(hull[len(hull)-2], hull[len(hull)-1], p) {
			hull = hull[:len(hull)-1]
		}
		hull = append(hull, p)
	}
	return hull
}

// strictlyAbove reports whether b makes a strict clockwise turn between a and c, that is,
// whether jax_privacy's cross product (b−a)_y·(c−b)_x − (c−b)_y·(b−a)_x is positive.
func strictlyAbove(a, b, c Threshold) bool {
	d1x, d1y := int64(b.FN-a.FN), int64(b.TN-a.TN)
	d2x, d2y := int64(c.FN-b.FN), int64(c.TN-b.TN)
	return d1y*d2x-d2y*d1x > 0
}

// Thresholds returns the Pareto-frontier thresholds in increasing order of Score, the
// last being +∞ (guess nothing). Their number is what Bonferroni divides by.
func (a *Auditor) Thresholds() []Threshold { return slices.Clone(a.thresholds) }

func (a *Auditor) nPos() int { return len(a.in) }
func (a *Auditor) nNeg() int { return len(a.out) }

// The threshold behind a bound is chosen by a threshold.Strategy: threshold.Bonferroni
// makes the bound hold simultaneously over every Pareto-frontier threshold by dividing the
// significance by their number, and takes the best; threshold.Fixed(t) uses the threshold
// t, fixed before seeing the scores, at full significance. threshold.Split (the game's)
// is refused: jax_privacy's Split strategy draws its split from NumPy's generator.

// checkStrategy refuses the strategies the auditor does not offer.
func checkStrategy(s threshold.Strategy) error {
	if s == threshold.Split {
		return fmt.Errorf("threshold strategy %s is not offered by the one-run auditor; want bonferroni or a fixed threshold", s)
	}
	return nil
}

// EpsilonOneRun is the one-run ε lower bound (Steinke, Nasr and Jagielski, NeurIPS 2023,
// arXiv 2305.08846) from the canaries' scores: m = len(In) + len(Out) canaries, the
// guesses are the canaries scoring at least the threshold, Epsilon of those guesses at
// the strategy's significance. It matches jax_privacy's CanaryScoreAuditor.epsilon_one_run
// (one-sided), including its search order over thresholds (decreasing Clopper–Pearson
// lower bound on precision) and its warm starts, so values agree to far better than the
// search tolerance. jax_privacy requires δ > 0; δ = 0 is accepted here.
func (a *Auditor) EpsilonOneRun(significance, delta float64, s threshold.Strategy) (float64, error) {
	if err := checkLevels(significance, delta, false); err != nil {
		return 0, fmt.Errorf("one-run epsilon: %w", err)
	}
	if err := checkStrategy(s); err != nil {
		return 0, fmt.Errorf("one-run epsilon: %w", err)
	}
	eps, err := a.oneRun(significance, delta, s, epsilonOneRun)
	if err != nil {
		return 0, fmt.Errorf("one-run epsilon: %w", err)
	}
	return eps, nil
}

// EpsilonOneRunFDP is the f-DP one-run ε lower bound (Mahloujifar, Melis and Chaudhuri,
// NeurIPS 2024, arXiv 2410.22235) from the canaries' scores, as EpsilonOneRun but with
// EpsilonFDP of the guesses. It matches jax_privacy's
// CanaryScoreAuditor.epsilon_one_run_fdp. δ must be in (0, 1].
func (a *Auditor) EpsilonOneRunFDP(significance, delta float64, s threshold.Strategy) (float64, error) {
	if err := checkLevels(significance, delta, true); err != nil {
		return 0, fmt.Errorf("one-run f-DP epsilon: %w", err)
	}
	if err := checkStrategy(s); err != nil {
		return 0, fmt.Errorf("one-run f-DP epsilon: %w", err)
	}
	eps, err := a.oneRun(significance, delta, s, epsilonOneRunFDP)
	if err != nil {
		return 0, fmt.Errorf("one-run f-DP epsilon: %w", err)
	}
	return eps, nil
}

type oneRunFunc func(epsLo float64, m, nGuess, nCorrect int, significance, delta float64) (float64, error)

// oneRun is jax_privacy's _epsilon_one_run_all_thresholds under a strategy.
func (a *Auditor) oneRun(significance, delta float64, s threshold.Strategy, audit oneRunFunc) (float64, error) {
	m := a.nPos() + a.nNeg()
	if t, fixed := s.Threshold(); fixed {
		tp := a.nPos() - countBelow(a.in, t)
		fp := a.nNeg() - countBelow(a.out, t)
		return audit(0, m, tp+fp, tp, significance, delta)
	}
	significance /= float64(len(a.thresholds))
	type cand struct {
		guess, correct int
		precLB         float64
	}
	cands := make([]cand, len(a.thresholds))
	for i, t := range a.thresholds {
		tp, fp := a.nPos()-t.FN, a.nNeg()-t.TN
		cands[i] = cand{guess: tp + fp, correct: tp, precLB: 1 - cpUpper(fp, tp+fp, significance)}
	}
	// Search in decreasing order of the precision bound, so that later thresholds are
	// likely ruled out without a search (and the warm starts are jax_privacy's).
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].precLB > cands[j].precLB })
	best, bestQ := 0.0, 0.5
	for _, c := range cands {
		if c.guess == 0 || float64(c.correct)/float64(c.guess) <= bestQ {
			continue // raw precision too low to beat the best so far
		}
		eps, err := audit(best, m, c.guess, c.correct, significance, delta)
		if err != nil {
			return 0, err
		}
		if eps > best {
			best, bestQ = eps, logistic(eps)
		}
	}
	return best, nil
}

// cpUpper is the one-sided Clopper–Pearson upper confidence bound on a binomial rate
// from k successes in n trials, failing with probability significance: the
// (1 − significance) quantile of Beta(k+1, n−k), and 1 when k = n (jax_privacy's
// _clopper_pearson_upper).
func cpUpper(k, n int, significance float64) float64 {
	if k >= n {
		return 1
	}
	return mathext.InvRegIncBeta(float64(k+1), float64(n-k), 1-significance)
}

// EpsilonClopperPearson is the ε lower bound from Clopper–Pearson bounds on the rates of
// a threshold rule (Nasr et al., "Adversary Instantiation", arXiv 2101.04535; Jagielski
// et al., arXiv 2006.07709): with upper bounds FNR̄ and FPR̄ at significance/2 each,
// ε ≥ ln((1 − FNR̄ − δ)/FPR̄), and also ln((1 − FPR̄ − δ)/FNR̄) unless oneSided; clipped
// at 0. It matches jax_privacy's CanaryScoreAuditor.epsilon_clopper_pearson.
// significance must be in (0, 0.5), as jax_privacy requires.
func (a *Auditor) EpsilonClopperPearson(significance, delta float64, oneSided bool, s threshold.Strategy) (float64, error) {
	if !(significance > 0 && significance < 0.5) {
		return 0, fmt.Errorf("Clopper-Pearson epsilon: significance %v outside (0, 0.5)", significance)
	}
	if err := checkLevels(significance, delta, false); err != nil {
		return 0, fmt.Errorf("Clopper-Pearson epsilon: %w", err)
	}
	if err := checkStrategy(s); err != nil {
		return 0, fmt.Errorf("Clopper-Pearson epsilon: %w", err)
	}
	pts := a.thresholds
	if t, fixed := s.Threshold(); fixed {
		pts = []Threshold{{Score: t, FN: countBelow(a.in, t), TN: countBelow(a.out, t)}}
	} else {
		significance /= float64(len(a.thresholds))
	}
	fnrUB := make([]float64, len(pts))
	fprUB := make([]float64, len(pts))
	for i, t := range pts {
		fnrUB[i] = cpUpper(t.FN, a.nPos(), significance/2)
		fprUB[i] = cpUpper(a.nNeg()-t.TN, a.nNeg(), significance/2)
	}
	eps := cpEpsilon(fnrUB, fprUB, delta)
	if !oneSided {
		eps = math.Max(eps, cpEpsilon(fprUB, fnrUB, delta))
	}
	return eps, nil
}

// cpEpsilon is max over rules of ln(1 − fnr − δ) − ln fpr, over the rules with
// 1 − fnr > δ, clipped at 0.
func cpEpsilon(fnr, fpr []float64, delta float64) float64 {
	best := math.Inf(-1)
	for i := range fnr {
		if tpr := 1 - fnr[i]; tpr > delta {
			best = math.Max(best, math.Log(tpr-delta)-math.Log(fpr[i]))
		}
	}
	return math.Max(best, 0)
}

// EpsilonFromGDP is an ε estimate, not a bound, through Gaussian DP (Nasr et al., "Tight
// Auditing of Differentially Private Machine Learning", arXiv 2302.07956): the largest
// μ = Φ⁻¹(1 − FPR̄) − Φ⁻¹(FNR̄) over the Pareto thresholds (0 when it is not positive), with Clopper–Pearson bounds
// Bonferroni-corrected over 2·(number of thresholds) hypotheses, converted to ε at δ by
// δ = Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2) (Dong, Roth and Su, arXiv 1905.02383, Cor. 2.13),
// solved on [0, 100] to 1e-6. It matches jax_privacy's
// CanaryScoreAuditor.epsilon_from_gdp. significance must be in (0, 0.5), δ in (0, 1].
func (a *Auditor) EpsilonFromGDP(significance, delta float64) (float64, error) {
	if !(significance > 0 && significance < 0.5) {
		return 0, fmt.Errorf("GDP epsilon: significance %v outside (0, 0.5)", significance)
	}
	if !(delta > 0 && delta <= 1) {
		return 0, fmt.Errorf("GDP epsilon: delta %v outside (0, 1]", delta)
	}
	n := float64(len(a.thresholds))
	mu := math.Inf(-1)
	for _, t := range a.thresholds {
		fnr := cpUpper(t.FN, a.nPos(), significance/(2*n))
		fpr := cpUpper(a.nNeg()-t.TN, a.nNeg(), significance/(2*n))
		if math.Max(fpr, fnr) >= 1-delta {
			continue // TPR or TNR too small
		}
		// Φ⁻¹(1 − FPR̄) − Φ⁻¹(FNR̄), symmetric in the two rates. It is negative when
		// FPR̄ + FNR̄ > 1, where the upper bounds say nothing; the stored copies of
		// auditing.py take |μ| there, but the reference run (commit 8967688c) gives 0 on
		// a null case that only the signed maximum explains.
		mu = math.Max(mu, -normPPF(fpr)-normPPF(fnr))
	}
	if !(mu > 0) {
		return 0, nil // no threshold left, or none shows any distinguishability
	}
	logDelta := math.Log(delta)
	gap := func(eps float64) float64 {
		return logSub(normLogCDF(-eps/mu+mu/2), eps+normLogCDF(-eps/mu-mu/2)) - logDelta
	}
	const lo, hi = 0, 100
	if gap(lo) <= 0 {
		return lo, nil
	}
	if gap(hi) >= 0 {
		return hi, nil
	}
	eps, err := brentRoot(gap, lo, hi, 1e-6)
	if err != nil {
		return 0, fmt.Errorf("GDP epsilon: %w", err)
	}
	return eps, nil
}

// rocCounts returns the true- and false-positive counts of the Pareto thresholds in
// increasing order (from the threshold +∞ down), as jax_privacy's _get_tp_counts and
// _get_fp_counts.
func (a *Auditor) rocCounts() (tp, fp []int) {
	n := len(a.thresholds)
	tp, fp = make([]int, n), make([]int, n)
	for i, t := range a.thresholds {
		tp[n-1-i] = a.nPos() - t.FN
		fp[n-1-i] = a.nNeg() - t.TN
	}
	return tp, fp
}

// AUROC is the area under the ROC curve of the threshold rules, allowing rules that
// randomise between two thresholds (the area under the curve's convex hull), by the
// trapezoidal rule. It matches jax_privacy's CanaryScoreAuditor.attack_auroc.
func (a *Auditor) AUROC() float64 {
	var area float64
	nPos, nNeg := float64(a.nPos()), float64(a.nNeg())
	for i := 1; i < len(a.thresholds); i++ {
		p, q := a.thresholds[i-1], a.thresholds[i]
		area += (float64(p.TN)/nNeg + float64(q.TN)/nNeg) * (float64(q.FN)/nPos - float64(p.FN)/nPos)
	}
	return 0.5 * area
}

// TPRAtFPR is the largest true-positive rate at false-positive rate fpr of a rule that
// randomises between two Pareto thresholds: its expected TPR, interpolated linearly
// between the thresholds whose false-positive counts bracket fpr·len(Out). It matches
// jax_privacy's CanaryScoreAuditor.tpr_at_given_fpr. fpr must be in [0, 1].
func (a *Auditor) TPRAtFPR(fpr float64) (float64, error) {
	if !(fpr >= 0 && fpr <= 1) {
		return 0, fmt.Errorf("TPR at FPR: fpr %v outside [0, 1]", fpr)
	}
	tp, fp := a.rocCounts()
	return tprAtFPR(fpr, tp, fp), nil
}

// tprAtFPR is jax_privacy's _tpr_at_given_fpr on increasing counts.
func tprAtFPR(fpr float64, tp, fp []int) float64 {
	nPos, nNeg := tp[len(tp)-1], fp[len(fp)-1]
	target := float64(nNeg) * fpr
	// The first count above target; at fpr = 1 the last one.
	i := sort.Search(len(fp), func(i int) bool { return float64(fp[i]) > target })
	i = min(max(i, 1), len(fp)-1)
	fpL, fpR := float64(fp[i-1]), float64(fp[i])
	tpL, tpR := float64(tp[i-1]), float64(tp[i])
	if fpR == fpL {
		return tpR / float64(nPos)
	}
	q := (target - fpL) / (fpR - fpL)
	return (tpL + q*(tpR-tpL)) / float64(nPos)
}

// EpsilonRawCounts is an ε estimate, not a bound, from the raw rates: the largest
// ln((TPR − δ)/FPR) over the Pareto thresholds with at least minCount false positives,
// and at the interpolated rule with FPR exactly minCount/len(Out); also with the roles of
// the classes swapped unless oneSided; clipped at 0, and 0 when minCount ≥ len(Out).
// It matches jax_privacy's CanaryScoreAuditor.epsilon_raw_counts.
func (a *Auditor) EpsilonRawCounts(minCount int, delta float64, oneSided bool) (float64, error) {
	if minCount < 0 {
		return 0, fmt.Errorf("raw-count epsilon: minCount %d is negative", minCount)
	}
	if !(delta >= 0 && delta <= 1) {
		return 0, fmt.Errorf("raw-count epsilon: delta %v outside [0, 1]", delta)
	}
	tp, fp := a.rocCounts()
	eps := rawCounts(tp, fp, minCount, delta)
	if !oneSided {
		fn := make([]int, len(a.thresholds))
		tn := make([]int, len(a.thresholds))
		for i, t := range a.thresholds {
			fn[i], tn[i] = t.FN, t.TN
		}
		eps = math.Max(eps, rawCounts(tn, fn, minCount, delta))
	}
	return math.Max(eps, 0), nil
}

// rawCounts is jax_privacy's _epsilon_raw_counts_helper on increasing counts.
func rawCounts(tp, fp []int, minCount int, delta float64) float64 {
	nPos, nNeg := tp[len(tp)-1], fp[len(fp)-1]
	if minCount >= nNeg {
		return 0
	}
	minFPR := float64(minCount) / float64(nNeg)
	tprAtMin := tprAtFPR(minFPR, tp, fp)
	if delta == 0 {
		return math.Log(tprAtMin / minFPR)
	}
	best := 0.0
	if tprAtMin > delta {
		best = math.Max(0, math.Log(tprAtMin-delta)-math.Log(minFPR))
	}
	for i := range tp {
		tpr, fpr := float64(tp[i])/float64(nPos), float64(fp[i])/float64(nNeg)
		if fp[i] >= minCount && tpr > delta {
			best = math.Max(best, math.Log(tpr-delta)-math.Log(fpr))
		}
	}
	return best
}

// MaxAccuracy is the largest accuracy of a threshold rule on the canaries, at the
// prevalence len(In)/(len(In)+len(Out)). It matches jax_privacy's
// CanaryScoreAuditor.max_accuracy without a significance.
func (a *Auditor) MaxAccuracy() float64 {
	return a.maxAccuracy(func(k, n int) float64 { return float64(k) / float64(n) })
}

// MaxAccuracyUpper is an upper confidence bound, failing with probability significance,
// on the largest accuracy of a threshold rule: MaxAccuracy with each rate replaced by its
// Clopper–Pearson upper bound at significance/2. It matches jax_privacy's
// CanaryScoreAuditor.max_accuracy with a significance. significance must be in (0, 1).
func (a *Auditor) MaxAccuracyUpper(significance float64) (float64, error) {
	if !(significance > 0 && significance < 1) {
		return 0, fmt.Errorf("max accuracy bound: significance %v outside (0, 1)", significance)
	}
	return a.maxAccuracy(func(k, n int) float64 { return cpUpper(k, n, significance/2) }), nil
}

func (a *Auditor) maxAccuracy(rate func(k, n int) float64) float64 {
	nPos, nNeg := a.nPos(), a.nNeg()
	prev := float64(nPos) / float64(nPos+nNeg)
	best := math.Inf(-1)
	for _, t := range a.thresholds {
		best = math.Max(best, rate(nPos-t.FN, nPos)*prev+rate(t.TN, nNeg)*(1-prev))
	}
	return best
}

// ReportFPRs returns the false-positive rates at which Report gives the TPR: 0.001,
// 0.01 and 0.1, as in the reference run.
func ReportFPRs() []float64 { return []float64{0.001, 0.01, 0.1} }

// ReportMinCount is the minimum false-positive count of Report's raw-count estimate.
const ReportMinCount = 10

// Report gathers an Auditor's measures at one significance and δ.
type Report struct {
	Significance, Delta float64
	// ParetoThresholds is the number of Pareto-frontier thresholds, by which the
	// Bonferroni strategy divides the significance.
	ParetoThresholds int
	// Lower bounds on ε at confidence 1 − Significance (Bonferroni strategy).
	EpsilonOneRun, EpsilonOneRunFDP      float64
	EpsilonCPOneSided, EpsilonCPTwoSided float64
	// Estimates of ε, not bounds: Gaussian DP, and raw counts with ReportMinCount.
	EpsilonGDP, EpsilonRawCounts float64
	AUROC                        float64
	// TPRAtFPR[i] is the TPR at ReportFPRs[i].
	TPRAtFPR []float64
	// MaxAccuracy and its upper confidence bound at Significance.
	MaxAccuracy, MaxAccuracyUpper float64
}

// Audit is the package's main entry point: it builds an Auditor on the canaries' scores
// (in: included canaries, out: excluded ones; higher means "included") and measures it at
// the given significance and δ, each measure as jax_privacy's CanaryScoreAuditor computes
// it: one-run ε (Steinke, Nasr and Jagielski, NeurIPS 2023, arXiv 2305.08846) and f-DP
// one-run ε (Mahloujifar, Melis and Chaudhuri, NeurIPS 2024, arXiv 2410.22235) with the
// Bonferroni strategy, Clopper–Pearson ε one- and two-sided, the GDP estimate, AUROC, TPR
// at ReportFPRs, the raw-count estimate with ReportMinCount, and maximum accuracy with its
// upper bound. significance must be in (0, 0.5) and δ in (0, 1].
func Audit(in, out []float64, significance, delta float64) (Report, error) {
	a, err := NewAuditor(in, out)
	if err != nil {
		return Report{}, err
	}
	return a.Report(significance, delta)
}

// Report measures the Auditor as Audit does.
func (a *Auditor) Report(significance, delta float64) (Report, error) {
	r := Report{Significance: significance, Delta: delta, ParetoThresholds: len(a.thresholds)}
	var errs []error
	keep := func(v float64, err error) float64 {
		errs = append(errs, err)
		return v
	}
	r.EpsilonOneRun = keep(a.EpsilonOneRun(significance, delta, threshold.Bonferroni))
	r.EpsilonOneRunFDP = keep(a.EpsilonOneRunFDP(significance, delta, threshold.Bonferroni))
	r.EpsilonCPOneSided = keep(a.EpsilonClopperPearson(significance, delta, true, threshold.Bonferroni))
	r.EpsilonCPTwoSided = keep(a.EpsilonClopperPearson(significance, delta, false, threshold.Bonferroni))
	r.EpsilonGDP = keep(a.EpsilonFromGDP(significance, delta))
	r.EpsilonRawCounts = keep(a.EpsilonRawCounts(ReportMinCount, delta, true))
	r.AUROC = a.AUROC()
	for _, f := range ReportFPRs() {
		r.TPRAtFPR = append(r.TPRAtFPR, keep(a.TPRAtFPR(f)))
	}
	r.MaxAccuracy = a.MaxAccuracy()
	r.MaxAccuracyUpper = keep(a.MaxAccuracyUpper(significance))
	if err := errors.Join(errs...); err != nil {
		return Report{}, fmt.Errorf("canary score audit: %w", err)
	}
	return r, nil
}
