package epsilon

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/internal/floatsort"
)

// The NeurIPS 2023 machine-unlearning competition's forgetting score, as the official
// scorer computes it (google-deepmind/unlearning_evaluation, metric.py; spec
// estimators-and-attacks.md §3(b)). It is an estimate with no confidence interval, labelled
// as the competition's wherever the toolkit reports it.
const (
	CompetitionDelta = 1e-5 // δ of every decision rule
	CompetitionCap   = 50.0 // ε is clipped to [0, 50]; also the "peaky distribution" value
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
	if len(unlearned) != len(retrained) {
		return CompetitionResult{}, fmt.Errorf("competition score: %d unlearned and %d retrained models; the scorer pairs them, want as many of each", len(unlearned), len(retrained))
	}
	n := len(unlearned)
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
		if math.IsNaN(eps) {
			lo, hi := math.Min(slices.Min(u), slices.Min(r)), math.Max(slices.Max(u), slices.Max(r))
			return CompetitionResult{}, fmt.Errorf("competition score: example %d: scores from %.3g to %.3g need more than the %d thresholds the scorer lays (100 per unit of score): not scores on the scale of a loss or a confidence", j, lo, hi, maxCompetitionGrid)
		}
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
	return fexp.Pow(2, -math.Floor(eps/0.5))
}

// CompetitionFinalScore is F·(RA_U/RA_R)·(TA_U/TA_R): the forgetting score weighted by the
// retain and test accuracies of the unlearned models relative to the retrained ones.
func CompetitionFinalScore(f, retainU, retainR, testU, testR float64) float64 {
	return f * (retainU / retainR) * (testU / testR)
}

// CompetitionEpsilon is the per-example ε of the official scorer (metric.py, _get_epsilons;
// spec estimators-and-attacks.md §3(b) and (b′)):
//
//  1. if the narrower sample's range is below 1 % of the wider one's, ε = 50 (the "peaky
//     distribution" guard);
//  2. single thresholds: the positive sample is the one with the larger median (ties: the
//     unlearned one is negative); t runs over linspace(min, max, ⌈(max − min)·100⌉) of the
//     pooled scores, computed in float32 as torch.linspace does, and flags s ≥ t;
//  3. double thresholds: the positive sample becomes the one of strictly smaller range (on a
//     tie, the single-threshold negative); with w that range, right ends r run over
//     linspace(min(pos) + w − 2, max(pos) + 2, ⌈(max(pos) − min(pos) − w + 4)·100⌉) and, for
//     each, left ends l over linspace(r − w − 2, r − w + 2, 400); l ≤ s ≤ r flags;
//  4. per rule ε = max{ln(1−δ−FPR) − ln FNR, ln(1−δ−FNR) − ln FPR} ≥ 0 with δ = 1e−5, a
//     logarithm of a negative number counting as NaN; +∞ when FPR = FNR = 0; the rule is
//     discarded when exactly one of them is 0 or both terms are NaN;
//  5. the maximum over surviving rules (0 if none), clipped to [0, 50].
//
// It is NaN when a threshold grid would exceed maxCompetitionGrid (scores spanning more
// than 41 943 units, or an infinite score), which the official scorer runs out of memory on.
//
// The official rates are float32 means, so its ε agree with these to about 1e-7 relative.
func CompetitionEpsilon(unlearned, retrained []float64) float64 {
	u, r := slices.Clone(unlearned), slices.Clone(retrained)
	floatsort.Sort(u) // as sort.Float64s
	floatsort.Sort(r)
	pos, neg := u, r
	if median(r) > median(u) {
		pos, neg = r, u
	}
	posDiff, negDiff := span(pos), span(neg)
	if largest := math.Max(posDiff, negDiff); math.Min(posDiff, negDiff)/largest < 0.01 {
		return CompetitionCap // (0/0 is NaN and, as in the official code, does not trip the guard)
	}
	best, survived := 0.0, false
	consider := func(tp, fp int, np, nn int) {
		fpr := float64(fp) / float64(nn)
		fnr := float64(np-tp) / float64(np)
		eps, keep := competitionRuleEpsilon(fpr, fnr)
		if keep {
			best, survived = math.Max(best, eps), true
		}
	}
	// single thresholds, in float32 as the scorer's torch.linspace makes them
	lo, hi := math.Min(u[0], r[0]), math.Max(u[len(u)-1], r[len(r)-1])
	n1, ok1 := competitionGrid(lo, hi)
	if !ok1 {
		return math.NaN()
	}
	for _, t := range linspace32(lo, hi, n1) {
		consider(countIn(pos, t, math.Inf(1)), countIn(neg, t, math.Inf(1)), len(pos), len(neg))
	}
	// double thresholds around the sample of strictly smaller range
	in, out := pos, neg
	if posDiff >= negDiff {
		in, out = neg, pos
	}
	width := math.Min(posDiff, negDiff)
	rFrom, rTo := in[0]+width-competitionBuffer, in[len(in)-1]+competitionBuffer
	nLeft := int(math.Ceil(2 * competitionBuffer * competitionPerUnit))
	left := make([]float64, nLeft)
	n2, ok2 := competitionGrid(rFrom, rTo)
	if !ok2 {
		return math.NaN()
	}
	for _, rr := range linspace64(nil, rFrom, rTo, n2) {
		for _, l := range linspace64(left, rr-width-competitionBuffer, rr-width+competitionBuffer, nLeft) {
			consider(countIn(in, l, rr), countIn(out, l, rr), len(in), len(out))
		}
	}
	if !survived {
		return 0
	}
	return math.Min(CompetitionCap, math.Max(0, best))
}

// maxCompetitionGrid bounds each of the scorer's threshold grids, 100 per unit of score:
// scores spanning more than 41 943 units (a model's loss or logit-scaled confidence spans
// tens) would make a grid of their span × 100 thresholds, 226 billion at a span of 2.3e9
// (the HF demo at --epsilon 5e-324, whose noise makes the projections that wide), and
// run out of memory. Past it CompetitionEpsilon is NaN and Competition an error naming it.
const maxCompetitionGrid = 1 << 22

// competitionGrid is the number of thresholds the scorer lays from from to to, and false
// when it exceeds maxCompetitionGrid or is not a number (an infinite score).
func competitionGrid(from, to float64) (int, bool) {
	n := math.Ceil((to - from) * competitionPerUnit)
	if !(n <= maxCompetitionGrid) {
		return 0, false
	}
	return int(n), true
}

const (
	competitionPerUnit = 100 // thresholds per unit of score (NUM_THRESHOLDS_PER_UNIT)
	competitionBuffer  = 2.0 // how far double thresholds reach beyond the narrower sample
)

// competitionRuleEpsilon is the official per-rule ε and whether the rule survives.
func competitionRuleEpsilon(fpr, fnr float64) (float64, bool) {
	switch {
	case fpr == 0 && fnr == 0:
		return math.Inf(1), true
	case fpr == 0 || fnr == 0:
		return 0, false // too few samples to see this rule's error
	}
	a := logOrNaN(1-CompetitionDelta-fpr) - math.Log(fnr)
	b := logOrNaN(1-CompetitionDelta-fnr) - math.Log(fpr)
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return 0, false
	case math.IsNaN(a):
		a = b
	case math.IsNaN(b):
		b = a
	}
	return math.Max(0, math.Max(a, b)), true
}

func logOrNaN(x float64) float64 {
	if x < 0 {
		return math.NaN()
	}
	return math.Log(x)
}

// linspace32 is torch.linspace(from, to, n) in float32: the ends rounded to float32, the
// step (to − from)/(n − 1) in float32, the first half counted up from the start and the
// second half down from the end.
func linspace32(from, to float64, n int) []float64 {
	if n <= 0 {
		return nil
	}
	a, b := float32(from), float32(to)
	out := make([]float64, n)
	if n == 1 {
		out[0] = float64(a)
		return out
	}
	step := (b - a) / float32(n-1)
	half := n / 2
	for i := range n {
		if i < half {
			out[i] = float64(a + step*float32(i))
		} else {
			out[i] = float64(b - step*float32(n-1-i))
		}
	}
	return out
}

// linspace64 is numpy.linspace(from, to, n) into dst (reallocated if short): i·step + from
// with step = (to − from)/(n − 1), and the last point exactly to.
func linspace64(dst []float64, from, to float64, n int) []float64 {
	if n <= 0 {
		return dst[:0]
	}
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	if n == 1 {
		dst[0] = from
		return dst
	}
	step := (to - from) / float64(n-1)
	for i := range n {
		dst[i] = float64(i)*step + from
	}
	dst[n-1] = to
	return dst
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
