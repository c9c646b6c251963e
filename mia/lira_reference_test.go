package mia_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/mia"
	"gonum.org/v1/gonum/mat"
)

// The small vector of the LiRA tests: 7 shadows × 3 examples, membership unbalanced on
// purpose (example 0 is IN for 4 shadows, example 1 for 3, example 2 for 2), so the
// reference code's cut to the fewest IN (2) and OUT (3) scores of any example matters.
var (
	liraScores = [][]float64{
		{2.1, 0.3, 1.0},
		{1.9, 0.2, 0.4},
		{2.3, 0.9, 1.1},
		{0.5, 1.0, 0.3},
		{0.7, 0.8, 1.2},
		{0.4, 0.1, 0.5},
		{1.5, 0.6, 0.9},
	}
	liraIn = [][]bool{
		{true, false, true},
		{true, false, false},
		{true, true, true},
		{false, true, false},
		{false, true, false},
		{false, false, false},
		{true, false, false},
	}
	liraTarget = []float64{2.0, 0.2, 0.8}
)

func liraMatrix() *mat.Dense {
	m := mat.NewDense(len(liraScores), len(liraScores[0]), nil)
	for i, row := range liraScores {
		m.SetRow(i, row)
	}
	return m
}

// split is each example's IN and OUT scores in shadow order.
func split() (in, out [][]float64) {
	n := len(liraScores[0])
	in, out = make([][]float64, n), make([][]float64, n)
	for i, row := range liraScores {
		for k, v := range row {
			if liraIn[i][k] {
				in[k] = append(in[k], v)
			} else {
				out[k] = append(out[k], v)
			}
		}
	}
	return in, out
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// npMedian is np.median: the middle value, or the mean of the two middle ones.
func npMedian(x []float64) float64 {
	y := slices.Sorted(slices.Values(x))
	if n := len(y); n%2 == 1 {
		return y[n/2]
	} else {
		return (y[n/2-1] + y[n/2]) / 2
	}
}

// stdDDOF is √(Σ(x − x̄)²/(k − ddof)): np.std(x, ddof=ddof); np.std's default is ddof 0.
func stdDDOF(x []float64, ddof int) float64 {
	m, ss := mean(x), 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss / float64(len(x)-ddof))
}

// logpdf is scipy.stats.norm.logpdf(x, mu, sd).
func logpdf(x, mu, sd float64) float64 {
	z := (x - mu) / sd
	return -0.5*math.Log(2*math.Pi) - math.Log(sd) - 0.5*z*z
}

// referenceLiRA is the reference implementation's statistic (TF Privacy,
// research/mi_lira_2021/plot.py), recomputed here from its formulas: dat_in/dat_out are
// each example's IN/OUT scores in shadow order cut to the fewest any example has; the
// centre is np.median per example; the spread np.std (ddof 0) per example, or with
// fix_variance np.std of the whole dat_in array (online, for IN and OUT both) or dat_out
// (offline); online, generate_ours's prediction is −logpdf_in + logpdf_out and the ROC is
// taken on −prediction, so the membership statistic is logpdf_in − logpdf_out; offline,
// generate_ours_offline's prediction is logpdf_out, so the statistic is −logpdf_out.
func referenceLiRA(offline, fixVariance bool) []float64 {
	in, out := split()
	cutIn, cutOut := len(liraScores), len(liraScores)
	for k := range in {
		cutIn, cutOut = min(cutIn, len(in[k])), min(cutOut, len(out[k]))
	}
	var allIn, allOut []float64
	for k := range in {
		in[k], out[k] = in[k][:cutIn], out[k][:cutOut]
		allIn, allOut = append(allIn, in[k]...), append(allOut, out[k]...)
	}
	stat := make([]float64, len(in))
	for k, phi := range liraTarget {
		sdIn, sdOut := stdDDOF(in[k], 0), stdDDOF(out[k], 0)
		if offline {
			if fixVariance {
				sdOut = stdDDOF(allOut, 0)
			}
			stat[k] = -logpdf(phi, npMedian(out[k]), sdOut)
			continue
		}
		if fixVariance {
			sdIn, sdOut = stdDDOF(allIn, 0), stdDDOF(allIn, 0)
		}
		stat[k] = logpdf(phi, npMedian(in[k]), sdIn) - logpdf(phi, npMedian(out[k]), sdOut)
	}
	return stat
}

// paperLiRA is the paper's statistic (Carlini et al. 2022, §IV), as FitLiRA computes it by
// default: each example's Gaussians fitted with the sample mean and the sample standard
// deviation (ddof 1) of all its IN and OUT scores; online the log-likelihood ratio,
// offline the one-sided Φ((φ − μ_out)/σ_out); the fixed variance is the root mean square
// of the per-example spreads (IN and OUT online, OUT offline).
func paperLiRA(offline, fixVariance bool) []float64 {
	in, out := split()
	var sq []float64
	for k := range in {
		sq = append(sq, stdDDOF(out[k], 1)*stdDDOF(out[k], 1))
		if !offline {
			sq = append(sq, stdDDOF(in[k], 1)*stdDDOF(in[k], 1))
		}
	}
	global := math.Sqrt(mean(sq))
	stat := make([]float64, len(in))
	for k, phi := range liraTarget {
		sdIn, sdOut := stdDDOF(in[k], 1), stdDDOF(out[k], 1)
		if fixVariance {
			sdIn, sdOut = global, global
		}
		if offline {
			stat[k] = 0.5 * math.Erfc(-(phi-mean(out[k]))/sdOut/math.Sqrt2)
			continue
		}
		stat[k] = logpdf(phi, mean(in[k]), sdIn) - logpdf(phi, mean(out[k]), sdOut)
	}
	return stat
}

// LiRA against its two sources, on the small vector, all four variants of each (online
// or offline, per-example or fixed variance):
//
//   - ReferenceCode with the median centre against the reference implementation's
//     formulas (referenceLiRA: np.median, np.std with ddof 0, its fixed variance over the
//     pooled IN scores, its two-sided offline statistic), and against the same numbers
//     computed in Python from the formulas (statistics.median and statistics.pstdev,
//     ddof 0), printed below;
//   - the default options against the paper's formulas (paperLiRA: mean, ddof 1).
//
// Tolerance 1e-12 relative: the only differences are summation order in the means and
// logarithms (the statistics reach 112, so a few ulps of 1e-14). A sample standard
// deviation put where np.std's belongs (or the reverse) changes a spread of k = 2 or 3
// scores by √2 or √1.5, a median for a mean moves a centre by up to 0.5, and the fixed
// variance taken over the OUT scores instead of the IN ones (online) changes it from
// 0.4784 to 0.3095: each far outside it.
func TestLiRAAgainstReferenceFormulas(t *testing.T) {
	// Python 3, statistics module, from the same formulas (the reference code's cut to 2 IN
	// and 3 OUT scores per example, median, pstdev):
	python := map[[2]bool][]float64{
		{false, false}: {72.54234494756811, -112.00958537349419, -9.920511112322467},
		{false, true}:  {4.915048543689321, -1.22876213592233, 0.21298543689320393},
		{true, false}:  {71.15869838777874, -1.586379113843455, 0.5026951473281923},
		{true, true}:   {11.489117494100041, -0.25379487703398307, 0.5812566693577698},
	}
	for _, offline := range []bool{false, true} {
		for _, fixed := range []bool{false, true} {
			for _, c := range []struct {
				name string
				opt  mia.LiRAOptions
				want []float64
			}{
				{"reference code", mia.LiRAOptions{Offline: offline, FixedVariance: fixed, Center: mia.Median, ReferenceCode: true}, referenceLiRA(offline, fixed)},
				{"reference code (Python)", mia.LiRAOptions{Offline: offline, FixedVariance: fixed, Center: mia.Median, ReferenceCode: true}, python[[2]bool{offline, fixed}]},
				{"paper (default)", mia.LiRAOptions{Offline: offline, FixedVariance: fixed}, paperLiRA(offline, fixed)},
			} {
				what := fmt.Sprintf("%s, offline %v, fixed variance %v", c.name, offline, fixed)
				l, err := mia.FitLiRA(liraMatrix(), liraIn, c.opt)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				got := make([]float64, len(liraTarget))
				l.Statistic(got, liraTarget)
				for k := range got {
					if math.Abs(got[k]-c.want[k]) > 1e-12*math.Max(1, math.Abs(c.want[k])) {
						t.Errorf("%s: example %d statistic %.17g; want %.17g", what, k, got[k], c.want[k])
					}
				}
			}
		}
	}
}
