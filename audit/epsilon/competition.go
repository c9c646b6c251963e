package epsilon

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// The NeurIPS 2023 machine-unlearning competition's forgetting score, as the official
// scorer computes it (google-deepmind/unlearning_evaluation, metric.py; spec
// estimators-and-attacks.md §3(b)). It is an estimate with no confidence interval, labelled
// as the competition's wherever the toolkit reports it.
const (
	CompetitionDelta = 1e-5 // δ of every decision rule
	CompetitionCap   = 50.0 // ε is clipped to [0, 50]; also the "peaky distribution" value
	competitionGrid  = 0.01 // threshold grid step
)

// CompetitionResult is the scorer's output for a set of forget examples.
type CompetitionResult struct {
	Epsilons []float64 `json:"epsilons"`         // per example, in [0, 50]
	Score    float64   `json:"forgetting_score"` // F, the mean of the bucket points
	EMax     float64   `json:"e_max"`            // ⌈ln(N − 1)⌉: ε at or above it earns nothing
	N        int       `json:"models_per_side"`
}

// Competition scores K forget examples from N models of each kind: unlearned[i][k] and
// retrained[i][k] are the scores (the competition uses the logit-scaled confidence) of
// example k under the i-th unlearned and i-th retrained model.
func Competition(unlearned, retrained [][]float64) (CompetitionResult, error) {
	if len(unlearned) < 2 || len(retrained) < 2 {
		return CompetitionResult{}, fmt.Errorf("competition score: %d and %d models; want at least 2 of each", len(unlearned), len(retrained))
	}
	k := len(unlearned[0])
	for _, rows := range [][][]float64{unlearned, retrained} {
		for i, row := range rows {
			if len(row) != k {
				return CompetitionResult{}, fmt.Errorf("competition score: model %d scores %d examples, model 0 scores %d", i, len(row), k)
			}
		}
	}
	n := min(len(unlearned), len(retrained))
	res := CompetitionResult{N: n, EMax: math.Ceil(math.Log(float64(n - 1))), Epsilons: make([]float64, k)}
	u, r := make([]float64, len(unlearned)), make([]float64, len(retrained))
	var points float64
	for j := range k {
		for i := range unlearned {
			u[i] = unlearned[i][j]
		}
		for i := range retrained {
			r[i] = retrained[i][j]
		}
		eps := CompetitionEpsilon(u, r)
		res.Epsilons[j] = eps
		points += CompetitionPoints(eps, res.EMax)
	}
	res.Score = points / float64(k)
	return res, nil
}

// CompetitionPoints is the bucket score of one example: buckets of width 0.5 from 0, an ε
// in [0.5k, 0.5k + 0.5) earning 2^(−k), and ε ≥ E_max earning nothing.
func CompetitionPoints(eps, eMax float64) float64 {
	if eps >= eMax {
		return 0
	}
	return math.Pow(2, -math.Floor(eps/0.5))
}

// CompetitionFinalScore is F·(RA_U/RA_R)·(TA_U/TA_R): the forgetting score weighted by the
// retain and test accuracies of the unlearned models relative to the retrained ones.
func CompetitionFinalScore(f, retainU, retainR, testU, testR float64) float64 {
	return f * (retainU / retainR) * (testU / testR)
}

// CompetitionEpsilon is the per-example ε of the scorer:
//
//  1. the positive class is the sample with the larger median;
//  2. single thresholds t on a grid of step 0.01 over the pooled range (positive if s ≥ t),
//     and double thresholds [l, r] around the narrower sample (positive, i.e. that sample,
//     if l ≤ s ≤ r);
//  3. per rule ε = max{ln(1−δ−FPR) − ln FNR, ln(1−δ−FNR) − ln FPR} ≥ 0 with δ = 1e−5;
//     +∞ when FPR = FNR = 0; the rule is discarded when exactly one of them is 0;
//  4. the maximum over surviving rules (0 if none), 50 if the narrower sample's range is
//     below 1 % of the wider one's, clipped to [0, 50].
//
// The spec does not fix how the double thresholds are enumerated; here l and r run over
// the same 0.01 grid with l ≤ median ≤ r inside the narrower sample's range, which is
// labelled as this toolkit's reading.
func CompetitionEpsilon(unlearned, retrained []float64) float64 {
	u, r := slices.Clone(unlearned), slices.Clone(retrained)
	sort.Float64s(u)
	sort.Float64s(r)
	pos, neg := u, r
	if median(r) > median(u) {
		pos, neg = r, u
	}
	narrow, wide := u, r
	if span(r) < span(u) {
		narrow, wide = r, u
	}
	if span(narrow) < 0.01*span(wide) {
		return CompetitionCap
	}
	lo := math.Min(u[0], r[0])
	hi := math.Max(u[len(u)-1], r[len(r)-1])
	g := grid{lo: lo, step: competitionGrid}
	pooled := slices.Concat(u, r)
	best := 0.0
	consider := func(fpr, fnr float64) {
		switch {
		case fpr == 0 && fnr == 0:
			best = math.Inf(1)
		case fpr == 0 || fnr == 0:
			// too few samples to see this rule's error: discarded
		default:
			best = math.Max(best, epsFromRates(fpr, fnr, CompetitionDelta))
		}
	}
	np, nn := float64(len(pos)), float64(len(neg))
	for _, t := range g.lowers(pooled, lo, hi) {
		tp := float64(len(pos) - sort.SearchFloat64s(pos, t))
		fp := float64(len(neg) - sort.SearchFloat64s(neg, t))
		consider(fp/nn, 1-tp/np)
	}
	// double thresholds around the narrower sample: inside means "the narrower sample"
	nIn, nOut := float64(len(narrow)), float64(len(wide))
	m := median(narrow)
	ls := g.lowers(pooled, narrow[0], m)
	rs := g.uppers(pooled, m, narrow[len(narrow)-1])
	for _, l := range ls {
		for _, rr := range rs {
			if rr < l {
				continue
			}
			consider(float64(countIn(wide, l, rr))/nOut, 1-float64(countIn(narrow, l, rr))/nIn)
		}
	}
	return math.Min(CompetitionCap, math.Max(0, best))
}

// grid is the threshold grid lo + k·step. Rates change only when a threshold crosses a
// sample value, so one grid point per interval between consecutive values gives every
// rule the full grid gives; lowers and uppers return those representatives (with their
// neighbours, against rounding in the index arithmetic), which keeps the scan exact and
// independent of the score range.
type grid struct{ lo, step float64 }

func (g grid) at(k int) float64 { return g.lo + float64(k)*g.step }

// lowers: grid points in [from, to] usable as a lower threshold (s ≥ t): the first one,
// and the first above each sample value.
func (g grid) lowers(values []float64, from, to float64) []float64 {
	first := int(math.Ceil((from-g.lo)/g.step - 1e-9))
	ks := []int{first}
	for _, v := range values {
		if v >= from && v <= to {
			k := int(math.Floor((v-g.lo)/g.step)) + 1
			ks = append(ks, k-1, k, k+1)
		}
	}
	return g.points(ks, from, to)
}

// uppers: grid points in [from, to] usable as an upper threshold (s ≤ t): the last one,
// and the last below each sample value.
func (g grid) uppers(values []float64, from, to float64) []float64 {
	last := int(math.Floor((to-g.lo)/g.step + 1e-9))
	ks := []int{last}
	for _, v := range values {
		if v >= from && v <= to {
			k := int(math.Ceil((v-g.lo)/g.step)) - 1
			ks = append(ks, k-1, k, k+1)
		}
	}
	return g.points(ks, from, to)
}

func (g grid) points(ks []int, from, to float64) []float64 {
	slices.Sort(ks)
	ks = slices.Compact(ks)
	var out []float64
	for _, k := range ks {
		if t := g.at(k); t >= from-1e-12 && t <= to+1e-12 {
			out = append(out, t)
		}
	}
	return out
}

func countIn(sorted []float64, l, r float64) int {
	a := sort.SearchFloat64s(sorted, l)
	b := sort.Search(len(sorted), func(i int) bool { return sorted[i] > r })
	return max(0, b-a)
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func span(sorted []float64) float64 { return sorted[len(sorted)-1] - sorted[0] }
