package verdict

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Scores of 1e308 made the mean +Inf and the histogram's bin int(NaN): verify panicked
// (index out of range [-9223372036854775808]). SummarizeScores bins any scores, of any
// size, finite or not: every score counted once, edges finite and in order, the ROC rates
// in [0, 1].
func TestSummarizeScoresExtremes(t *testing.T) {
	const big = math.MaxFloat64
	rep := func(v float64, n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	for _, c := range []struct {
		name      string
		unl, retr []float64
	}{
		{"all 1e308", rep(1e308, 40), rep(1e308, 40)},
		{"1e308 against ordinary", rep(1e308, 40), []float64{0.9, 1, 1.1}},
		{"+Max against −Max", rep(big, 5), rep(-big, 5)},
		{"±Max on both sides", []float64{big, -big, 0, 1}, []float64{-big, big, 1e300, -1e300}},
		{"all −Max", rep(-big, 3), rep(-big, 3)},
		{"the smallest subnormal", rep(5e-324, 3), rep(5e-324, 3)},
		{"not finite", []float64{math.Inf(1), math.NaN(), 1}, []float64{math.Inf(-1), 2, 3}},
	} {
		var s *ScoreSummary
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s: panic %v", c.name, r)
				}
			}()
			s = SummarizeScores("x", c.unl, c.retr)
		}()
		nu, nr := 0, 0
		for i := range s.Unlearned {
			nu, nr = nu+s.Unlearned[i], nr+s.Retrained[i]
		}
		if nu != len(c.unl) || nr != len(c.retr) {
			t.Errorf("%s: %d and %d counted of %d and %d", c.name, nu, nr, len(c.unl), len(c.retr))
		}
		for i, e := range s.Edges {
			if math.IsInf(e, 0) || math.IsNaN(e) || (i > 0 && e < s.Edges[i-1]) {
				t.Errorf("%s: edge %d is %v after %v", c.name, i, e, s.Edges[max(0, i-1)])
				break
			}
		}
		for _, p := range s.ROC {
			if !(p.FPR >= 0 && p.FPR <= 1 && p.TPR >= 0 && p.TPR <= 1) {
				t.Errorf("%s: ROC point %v", c.name, p)
				break
			}
		}
	}
	// wide scores are told apart: +Max and −Max land in the end bins
	s := SummarizeScores("x", rep(big, 5), rep(-big, 5))
	if s.Unlearned[scoreBins-1] != 5 || s.Retrained[0] != 5 {
		t.Errorf("+Max against −Max: unlearned %v, retrained %v", s.Unlearned, s.Retrained)
	}
}

// Ordinary scores are binned exactly as before the overflow guard: reports stay byte for
// byte what they were.
func TestSummarizeScoresOrdinaryUnchanged(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	u, r := make([]float64, 200), make([]float64, 200)
	for i := range u {
		u[i], r[i] = rng.NormFloat64()*3+1, rng.NormFloat64()*0.01
	}
	s := SummarizeScores("x", u, r)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range append(append([]float64(nil), u...), r...) {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	want := make([]int, scoreBins)
	for _, v := range u {
		want[min(scoreBins-1, int((v-lo)/(hi-lo)*scoreBins))]++
	}
	for i := range s.Edges {
		if e := lo + (hi-lo)*float64(i)/scoreBins; s.Edges[i] != e {
			t.Fatalf("edge %d: %v, want %v", i, s.Edges[i], e)
		}
	}
	for i := range want {
		if s.Unlearned[i] != want[i] {
			t.Fatalf("bins %v, want %v", s.Unlearned, want)
		}
	}
}
