package onerun

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mathext"
	"pgregory.net/rapid"
)

// counts draws consistent (m, nGuess, nCorrect) with nCorrect above half the guesses, the
// region where a bound can be positive.
func counts(t *rapid.T) (m, nGuess, nCorrect int) {
	m = rapid.IntRange(1, 3000).Draw(t, "m")
	nGuess = rapid.IntRange(0, m).Draw(t, "nGuess")
	nCorrect = rapid.IntRange(nGuess/2, nGuess).Draw(t, "nCorrect")
	return m, nGuess, nCorrect
}

// The p-value grows with δ (α ≥ 0) and, at δ = 0, with ε: a larger claimed ε makes
// the same guesses less surprising. (At δ > 0 the α term need not be monotone in ε.)
func TestPValueMonotone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m, nGuess, nCorrect := counts(t)
		e1 := rapid.Float64Range(0, 8).Draw(t, "e1")
		e2 := rapid.Float64Range(e1, 8).Draw(t, "e2")
		d1 := rapid.Float64Range(0, 1e-3).Draw(t, "d1")
		d2 := rapid.Float64Range(d1, 1e-3).Draw(t, "d2")
		const slack = 1 + 1e-9 // rounding in the summed probabilities
		if p1, p2 := PValue(m, nGuess, nCorrect, e1, 0), PValue(m, nGuess, nCorrect, e2, 0); p1 > p2*slack {
			t.Fatalf("δ = 0: p(ε=%v) = %v > p(ε=%v) = %v", e1, p1, e2, p2)
		}
		if p1, p2 := PValue(m, nGuess, nCorrect, e1, d1), PValue(m, nGuess, nCorrect, e1, d2); p1 > p2*slack {
			t.Fatalf("ε = %v: p(δ=%v) = %v > p(δ=%v) = %v", e1, d1, p1, d2, p2)
		}
		if p := PValue(m, nGuess, nCorrect, e2, d2); !(p >= 0 && p <= 1) {
			t.Fatalf("p = %v outside [0, 1]", p)
		}
	})
}

// Epsilon is where the p-value crosses the significance, to the search's tolerance
// 1e-6: refuted just below (p ≤ a), not refuted above (p > a) at every probed larger ε.
func TestEpsilonIsLargestRefuted(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m, nGuess, nCorrect := counts(t)
		a := rapid.SampledFrom([]float64{0.01, 0.05, 0.1}).Draw(t, "significance")
		delta := rapid.SampledFrom([]float64{0, 1e-6, 1e-5, 1e-3}).Draw(t, "delta")
		eps, err := Epsilon(m, nGuess, nCorrect, a, delta)
		if err != nil {
			t.Fatal(err)
		}
		const tol = 1.01e-6
		if eps > 0 {
			if p := PValue(m, nGuess, nCorrect, eps-tol, delta); p > a {
				t.Fatalf("ε̂ = %v but p(ε̂ − tol) = %v > %v", eps, p, a)
			}
		}
		for _, above := range []float64{tol, 1e-3, 0.1, 1, 5} {
			if p := PValue(m, nGuess, nCorrect, eps+above, delta); p <= a {
				t.Fatalf("ε̂ = %v but p(ε̂ + %v) = %v ≤ %v: a larger ε is refuted", eps, above, p, a)
			}
		}
	})
}

// jaxParetoFrontier is jax_privacy's _pareto_frontier as written: passes that drop, all
// at once, every interior point whose cross product with its neighbours is ≤ 0.
func jaxParetoFrontier(pts []Threshold) []Threshold {
	idx := make([]int, len(pts))
	for i := range idx {
		idx[i] = i
	}
	for len(idx) > 2 {
		keep := []int{idx[0]}
		for j := 1; j < len(idx)-1; j++ {
			a, b, c := pts[idx[j-1]], pts[idx[j]], pts[idx[j+1]]
			if (b.TN-a.TN)*(c.FN-b.FN)-(c.TN-b.TN)*(b.FN-a.FN) > 0 {
				keep = append(keep, idx[j])
			}
		}
		keep = append(keep, idx[len(idx)-1])
		if len(keep) == len(idx) {
			break
		}
		idx = keep
	}
	out := make([]Threshold, len(idx))
	for i, j := range idx {
		out[i] = pts[j]
	}
	return out
}

// The one-pass frontier is jax_privacy's multi-pass one, on count paths with ties
// (scores drawn from a few values) and without.
func TestParetoFrontierMatchesJaxPasses(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		levels := rapid.IntRange(1, 40).Draw(t, "levels")
		score := rapid.Custom(func(t *rapid.T) float64 { return float64(rapid.IntRange(0, levels).Draw(t, "s")) })
		in := rapid.SliceOfN(score, 1, 60).Draw(t, "in")
		out := rapid.SliceOfN(score, 1, 60).Draw(t, "out")
		a, err := NewAuditor(in, out)
		if err != nil {
			t.Fatal(err)
		}
		all := slices.Compact(slices.Sorted(slices.Values(slices.Concat(in, out))))
		all = append(all, math.Inf(1))
		pts := make([]Threshold, len(all))
		for i, s := range all {
			pts[i] = Threshold{Score: s, FN: countBelow(a.in, s), TN: countBelow(a.out, s)}
		}
		if got, want := a.Thresholds(), jaxParetoFrontier(pts); !slices.Equal(got, want) {
			t.Fatalf("frontier %v, jax_privacy's passes %v", got, want)
		}
	})
}

// At δ = 0 the p-value is the binomial tail P[Bin(n, q) ≥ v] = I_q(v, n − v + 1); the
// log-space sum agrees with the regularised incomplete beta function up to n = 100000,
// deep tails included.
func TestPValueBinomialTail(t *testing.T) {
	for _, c := range []struct{ n, v int }{{20, 19}, {100, 90}, {1000, 850}, {5000, 4000}, {100_000, 73_000}, {100_000, 60_000}} {
		for _, eps := range []float64{0.3, 1, 2} {
			got := PValue(2*c.n, c.n, c.v, eps, 0)
			want := mathext.RegIncBeta(float64(c.v), float64(c.n-c.v+1), logistic(eps))
			if want < 1e-300 {
				continue
			}
			if relErr(got, want) > 1e-8 {
				t.Errorf("n=%d v=%d ε=%v: p = %.15g, I_q = %.15g", c.n, c.v, eps, got, want)
			}
		}
	}
}
