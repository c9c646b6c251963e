package onerun

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"
	"gonum.org/v1/gonum/mathext"
	"pgregory.net/rapid"
)

// These tests hold the Clopper–Pearson bounds and the Gaussian-DP estimate to their
// definitions, computed here from first principles (binomial sums in log space, the
// Gaussian trade-off curve maximised numerically), so that a broken statistic fails
// whether or not the golden files of jax_privacy are read.

// binomPMFLog is ln P[Bin(n, p) = j].
func binomPMFLog(j, n int, p float64) float64 {
	a, _ := math.Lgamma(float64(n) + 1)
	b, _ := math.Lgamma(float64(j) + 1)
	c, _ := math.Lgamma(float64(n-j) + 1)
	lp := a - b - c
	if j > 0 {
		lp += float64(j) * math.Log(p)
	}
	if n > j {
		lp += float64(n-j) * math.Log1p(-p)
	}
	return lp
}

// binomSum is P[lo ≤ Bin(n, p) ≤ hi], summed in log space about its largest term.
func binomSum(lo, hi, n int, p float64) float64 {
	top := math.Inf(-1)
	for j := lo; j <= hi; j++ {
		top = math.Max(top, binomPMFLog(j, n, p))
	}
	var s float64
	for j := lo; j <= hi; j++ {
		s += math.Exp(binomPMFLog(j, n, p) - top)
	}
	return s * math.Exp(top)
}

// cpUpperByDefinition is the one-sided Clopper–Pearson upper bound from its definition:
// the p at which P[Bin(n, p) ≤ k] = alpha (1 when k = n), found by bisection on p to
// 1e-15 (the sum decreases in p).
func cpUpperByDefinition(k, n int, alpha float64) float64 {
	if k >= n {
		return 1
	}
	lo, hi := 0.0, 1.0
	for hi-lo > 1e-15 {
		mid := (lo + hi) / 2
		if binomSum(0, k, n, mid) > alpha {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// cpLower is the one-sided Clopper–Pearson lower bound on a rate from k successes in n,
// by the symmetry the package relies on (its precision bound is 1 − cpUpper of the
// failures): 1 − cpUpper(n − k, n, alpha).
func cpLower(k, n int, alpha float64) float64 { return 1 - cpUpper(n-k, n, alpha) }

// The Clopper–Pearson bounds meet their definitions: at the upper bound p̄ of k successes
// in n, P[Bin(n, p̄) ≤ k] is the significance α, and at the lower bound p, P[Bin(n, p) ≥ k]
// is α, each to 1e-9 relative (the bounds are quantiles of Beta laws, computed to about
// 1e-13 here); a two-sided interval at α leaves α/2 in each tail. The bound also agrees
// with the root found by bisection on the definition (to 1e-9 absolute). Planted by hand:
// cpUpper from Beta(k + 1, n − k + 1) fails (at k = 0, n = 1, α = 0.05 the tail at p̄ is
// 0.22); the quantile at α instead of 1 − α fails (the tail there is 1 − α).
func TestClopperPearsonMeetsItsDefinition(t *testing.T) {
	for _, n := range []int{1, 2, 7, 50, 333, 1000} {
		for _, k := range []int{0, 1, n / 3, n / 2, n - 1, n} {
			if k < 0 || k > n {
				continue
			}
			for _, alpha := range []float64{0.05, 0.025, 1e-3, 0.05 / 80} {
				up := cpUpper(k, n, alpha)
				if k == n {
					if up != 1 {
						t.Errorf("k = n = %d: upper bound %v; want 1", n, up)
					}
				} else {
					if tail := binomSum(0, k, n, up); math.Abs(tail-alpha) > 1e-9*alpha {
						t.Errorf("k=%d n=%d α=%g: P[Bin(n, %.15g) ≤ k] = %.15g; want α (rel %.2g)", k, n, alpha, up, tail, math.Abs(tail-alpha)/alpha)
					}
					if want := cpUpperByDefinition(k, n, alpha); math.Abs(up-want) > 1e-9 {
						t.Errorf("k=%d n=%d α=%g: upper bound %.15g, by bisection on the definition %.15g", k, n, alpha, up, want)
					}
				}
				lo := cpLower(k, n, alpha)
				if k == 0 {
					if lo != 0 {
						t.Errorf("k = 0, n = %d: lower bound %v; want 0", n, lo)
					}
				} else if tail := binomSum(k, n, n, lo); math.Abs(tail-alpha) > 1e-9*alpha {
					t.Errorf("k=%d n=%d α=%g: P[Bin(n, %.15g) ≥ k] = %.15g; want α", k, n, alpha, lo, tail)
				}
				// Two-sided at α: α/2 in each tail.
				if k > 0 && k < n {
					l2, u2 := cpLower(k, n, alpha/2), cpUpper(k, n, alpha/2)
					below, above := binomSum(k, n, n, l2), binomSum(0, k, n, u2)
					if math.Abs(below-alpha/2) > 1e-9*alpha || math.Abs(above-alpha/2) > 1e-9*alpha || !(l2 < float64(k)/float64(n) && float64(k)/float64(n) < u2) {
						t.Errorf("k=%d n=%d α=%g two-sided [%.6g, %.6g]: tails %.15g and %.15g; want α/2 each, around k/n", k, n, alpha, l2, u2, below, above)
					}
				}
			}
		}
	}
}

// The Clopper–Pearson bounds cover: over 20 000 seeded draws of Bin(n, p) at each of six
// (n, p), the one-sided upper bound at α = 0.05 falls below p, and the two-sided interval
// at α (α/2 a side) misses p, at most as often as α allows: no more than the count whose
// binomial tail at rate α is below 1e-6 (the false-failure probability of each of the 12
// comparisons; the bounds are conservative: measured, at most 987 one-sided and 873
// two-sided misses, against 1 150 allowed). Planted by hand: cpUpper from
// Beta(k + 1, n − k + 1) fails (1 492 one-sided misses at n = 100, p = 0.9; 1 451
// two-sided at n = 10, p = 0.1); the quantile at α instead of 1 − α misses 18 549 to all.
func TestClopperPearsonCovers(t *testing.T) {
	const alpha = 0.05
	draws := 20_000
	if testing.Short() {
		draws = 5_000
	}
	limit := 0 // the largest miss count allowed: P[Bin(draws, α) > limit] < 1e-6
	for mathext.RegIncBeta(float64(limit+1), float64(draws-limit), alpha) >= 1e-6 {
		limit++
	}
	r := rand.New(rand.NewPCG(41, 3))
	for _, c := range []struct {
		n int
		p float64
	}{{10, 0.5}, {10, 0.1}, {40, 0.3}, {100, 0.05}, {100, 0.9}, {400, 0.5}} {
		var oneSided, twoSided int
		for range draws {
			k := 0
			for range c.n {
				if r.Float64() < c.p {
					k++
				}
			}
			if cpUpper(k, c.n, alpha) < c.p {
				oneSided++
			}
			if cpUpper(k, c.n, alpha/2) < c.p || cpLower(k, c.n, alpha/2) > c.p {
				twoSided++
			}
		}
		t.Logf("n=%d p=%g: one-sided misses %d, two-sided %d of %d (at most %d allowed)", c.n, c.p, oneSided, twoSided, draws, limit)
		if oneSided > limit || twoSided > limit {
			t.Errorf("n=%d p=%g: the bounds at α = %g miss %d (one-sided) and %d (two-sided) of %d draws; at most %d allowed", c.n, c.p, alpha, oneSided, twoSided, draws, limit)
		}
	}
}

// The upper bound grows with the successes k, shrinks as the trials n grow with k fixed,
// and grows as the significance falls (a surer bound is wider); the lower bound is below
// it. Planted by hand: the quantile at α instead of 1 − α fails.
func TestClopperPearsonMonotoneInCounts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 2000).Draw(t, "n")
		k := rapid.IntRange(0, n-1).Draw(t, "k")
		a1 := rapid.Float64Range(1e-6, 0.5).Draw(t, "a1")
		a2 := rapid.Float64Range(a1, 0.5).Draw(t, "a2")
		u := cpUpper(k, n, a1)
		if !(u > 0 && u <= 1) {
			t.Fatalf("cpUpper(%d, %d, %v) = %v outside (0, 1]", k, n, a1, u)
		}
		if next := cpUpper(k+1, n, a1); next < u {
			t.Fatalf("cpUpper(%d, %d) = %v > cpUpper(%d, %d) = %v: more successes, a lower bound", k, n, u, k+1, n, next)
		}
		if more := cpUpper(k, n+1, a1); more > u {
			t.Fatalf("cpUpper(%d, %d) = %v < cpUpper(%d, %d) = %v: more trials, a looser bound", k, n, u, k, n+1, more)
		}
		if looser := cpUpper(k, n, a2); looser > u {
			t.Fatalf("k=%d n=%d: bound %v at α = %v < %v at α = %v: a surer bound is narrower", k, n, u, a1, looser, a2)
		}
		if l := cpLower(k, n, a1); l > float64(k)/float64(n) || float64(k)/float64(n) > u {
			t.Fatalf("k=%d n=%d α=%v: [%v, %v] does not hold k/n", k, n, a1, l, u)
		}
	})
}

// gdpDelta is the δ(ε) of μ-Gaussian DP from its trade-off curve f(α) = Φ(Φ⁻¹(1 − α) − μ)
// (Dong, Roth and Su, arXiv 1905.02383): δ(ε) = sup over α of 1 − f(α) − e^ε·α, written
// with α = Φ(−t) as sup over t of g(t) = Φ(μ − t) − e^ε·Φ(−t), ε ≥ 0, maximised
// numerically — not by the closed form: the best of a grid of step 0.01 on [−10, 60],
// then golden-section search on the grid steps either side (g has one maximum and flat
// tails, which a golden-section search over the whole line could be misled by).
func gdpDelta(eps, mu float64) float64 {
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	g := func(t float64) float64 { return phi(mu-t) - math.Exp(eps)*phi(-t) }
	const step = 0.01
	best := -10.0
	for t := -10.0; t <= 60; t += step {
		if g(t) > g(best) {
			best = t
		}
	}
	lo, hi := best-step, best+step
	const r = 0.6180339887498949
	for hi-lo > 1e-12 {
		a, b := hi-r*(hi-lo), lo+r*(hi-lo)
		if g(a) < g(b) {
			lo = a
		} else {
			hi = b
		}
	}
	return math.Max(g((lo+hi)/2), g(best))
}

// gdpMu is the estimate's μ from its definition: the largest Φ⁻¹(1 − FPR̄) − Φ⁻¹(FNR̄)
// over the Pareto thresholds whose Clopper–Pearson upper bounds FPR̄, FNR̄ (found by
// bisection on the binomial tail) are taken at significance/(2·thresholds) and are both
// below 1 − δ.
func gdpMu(a *Auditor, significance, delta float64) float64 {
	th := a.Thresholds()
	each := significance / (2 * float64(len(th)))
	mu := math.Inf(-1)
	for _, t := range th {
		fnr := cpUpperByDefinition(t.FN, len(a.in), each)
		fpr := cpUpperByDefinition(len(a.out)-t.TN, len(a.out), each)
		if math.Max(fnr, fpr) >= 1-delta {
			continue
		}
		mu = math.Max(mu, -mathext.NormalQuantile(fpr)-mathext.NormalQuantile(fnr))
	}
	return mu
}

// gdpAuditor is an auditor on m seeded canaries, half included scoring N(shift, 1), half
// excluded scoring N(0, 1).
func gdpAuditor(t interface{ Fatal(...any) }, m int, shift float64, seed uint64) *Auditor {
	r := rand.New(rand.NewPCG(seed, 41))
	in, out := make([]float64, m/2), make([]float64, m-m/2)
	for i := range in {
		in[i] = shift + r.NormFloat64()
	}
	for i := range out {
		out[i] = r.NormFloat64()
	}
	a, err := NewAuditor(in, out)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// The GDP estimate is the ε at which the μ-GDP trade-off curve's δ(ε) is the δ asked for,
// μ being the estimate's (Clopper–Pearson bounds at significance/(2·thresholds), recomputed
// here from the binomial tail): δ(ε̂ − 1e-5) > δ > δ(ε̂ + 1e-5), two-sided (the search
// stops within its 1e-6; δ(ε) falls in ε, far more than the maximisation's rounding over
// 1e-5), and 0 exactly when no positive μ or δ(0) ≤ δ. Planted by hand: the sign of μ/2 in
// either Φ term flipped fails (ε̂ = 0 in all six positive cases), so does −ln δ written
// +ln δ, and so does significance/n for significance/(2n) (ε̂ 0.08 to 0.81 too large).
func TestEpsilonFromGDPMatchesTheTradeoffCurve(t *testing.T) {
	const significance = 0.05
	checked := 0
	for _, c := range []struct {
		m     int
		shift float64
		delta float64
	}{
		{200, 2, 1e-5}, {1000, 1, 1e-5}, {1000, 3, 1e-6}, {400, 4, 1e-3}, {2000, 0.5, 1e-5}, {100, 0, 1e-5}, {600, 6, 1e-5},
	} {
		a := gdpAuditor(t, c.m, c.shift, uint64(c.m))
		eps, err := a.EpsilonFromGDP(significance, c.delta)
		if err != nil {
			t.Fatal(err)
		}
		mu := gdpMu(a, significance, c.delta)
		t.Logf("m=%d shift=%g δ=%g: μ = %.5g, ε̂ = %.7g", c.m, c.shift, c.delta, mu, eps)
		if !(mu > 0) || gdpDelta(0, mu) <= c.delta {
			if eps != 0 {
				t.Errorf("m=%d shift=%g: μ = %v, δ(0) = %v ≤ δ; want ε̂ = 0, got %v", c.m, c.shift, mu, gdpDelta(0, math.Max(mu, 0)), eps)
			}
			continue
		}
		checked++
		const step = 1e-5
		if eps < step {
			t.Errorf("m=%d shift=%g: ε̂ = %v, but μ = %.6g gives δ(0) = %.6g > δ = %g: want the ε where δ(ε) falls to δ", c.m, c.shift, eps, mu, gdpDelta(0, mu), c.delta)
			continue
		}
		if below, above := gdpDelta(eps-step, mu), gdpDelta(eps+step, mu); !(below > c.delta && c.delta > above) {
			t.Errorf("m=%d shift=%g: ε̂ = %.9g, but μ = %.6g gives δ(ε̂ − %g) = %.6g, δ(ε̂ + %g) = %.6g; want them either side of δ = %g",
				c.m, c.shift, eps, mu, step, below, step, above, c.delta)
		}
	}
	if checked < 5 {
		t.Errorf("%d of the cases have a positive estimate; the test needs at least 5", checked)
	}
}

// The GDP estimate grows with the significance (a less sure μ is larger), falls as δ
// grows, and is 0 on canaries that do not separate. Monotone to the search's tolerance
// 1e-6 (two searches, each within 1e-6 of its root). Planted by hand: cpUpper's quantile at
// α instead of 1 − α fails (ε̂ 9.48 at significance 0.25, 7.92 at 0.49).
func TestEpsilonFromGDPMonotone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := rapid.IntRange(20, 600).Draw(t, "m")
		shift := rapid.Float64Range(0, 6).Draw(t, "shift")
		a := gdpAuditor(t, m, shift, rapid.Uint64().Draw(t, "seed"))
		s1 := rapid.Float64Range(1e-4, 0.49).Draw(t, "s1")
		s2 := rapid.Float64Range(s1, 0.49).Draw(t, "s2")
		d1 := rapid.Float64Range(1e-9, 0.1).Draw(t, "d1")
		d2 := rapid.Float64Range(d1, 0.1).Draw(t, "d2")
		at := func(s, d float64) float64 {
			e, err := a.EpsilonFromGDP(s, d)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		const tol = 2e-6
		if e1, e2 := at(s1, d1), at(s2, d1); e1 > e2+tol {
			t.Fatalf("δ=%v: ε̂ = %v at significance %v > %v at %v", d1, e1, s1, e2, s2)
		}
		if e1, e2 := at(s1, d1), at(s1, d2); e2 > e1+tol {
			t.Fatalf("significance %v: ε̂ = %v at δ = %v < %v at δ = %v", s1, e1, d1, e2, d2)
		}
	})
	scores := gdpAuditor(t, 400, 0, 1).out
	same, err := NewAuditor(scores, scores) // the very same scores on both sides
	if err != nil {
		t.Fatal(err)
	}
	if e, err := same.EpsilonFromGDP(0.05, 1e-5); err != nil || e != 0 {
		t.Errorf("identical scores: ε̂ = %v, %v; want 0", e, err)
	}
}

// EpsilonClopperPearson is its definition: with each Pareto threshold's rates bounded
// above at significance/(2·thresholds) (the tail of the binomial at the bound, recomputed
// here by bisection), the largest ln((1 − FNR̄ − δ)/FPR̄), also with the rates' roles
// swapped when two-sided, clipped at 0 — to 1e-9 relative; and MaxAccuracyUpper is the
// largest accuracy with each rate at its upper bound at significance/2. Planted by hand:
// significance for significance/2 fails in either (ε 0.10 to 0.17 too large; the accuracy
// bound 0.001 to 0.014 too small).
func TestEpsilonClopperPearsonIsItsDefinition(t *testing.T) {
	const significance, delta = 0.05, 1e-5
	for _, c := range []struct {
		m     int
		shift float64
	}{{200, 2}, {1000, 1}, {400, 4}, {100, 0}, {60, 8}} {
		a := gdpAuditor(t, c.m, c.shift, uint64(c.m)+7)
		th := a.Thresholds()
		nPos, nNeg := len(a.in), len(a.out)
		each := significance / float64(len(th)) / 2
		oneSided, swapped := math.Inf(-1), math.Inf(-1)
		accuracy := math.Inf(-1)
		for _, x := range th {
			fnr := cpUpperByDefinition(x.FN, nPos, each)
			fpr := cpUpperByDefinition(nNeg-x.TN, nNeg, each)
			if 1-fnr > delta {
				oneSided = math.Max(oneSided, math.Log(1-fnr-delta)-math.Log(fpr))
			}
			if 1-fpr > delta {
				swapped = math.Max(swapped, math.Log(1-fpr-delta)-math.Log(fnr))
			}
			tpr := cpUpperByDefinition(nPos-x.FN, nPos, significance/2)
			tnr := cpUpperByDefinition(x.TN, nNeg, significance/2)
			prev := float64(nPos) / float64(nPos+nNeg)
			accuracy = math.Max(accuracy, tpr*prev+tnr*(1-prev))
		}
		want1, want2 := math.Max(oneSided, 0), math.Max(oneSided, math.Max(swapped, 0))
		got1, err := a.EpsilonClopperPearson(significance, delta, true, threshold.Bonferroni)
		if err != nil {
			t.Fatal(err)
		}
		got2, err := a.EpsilonClopperPearson(significance, delta, false, threshold.Bonferroni)
		if err != nil {
			t.Fatal(err)
		}
		gotAcc, err := a.MaxAccuracyUpper(significance)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("m=%d shift=%g: Clopper–Pearson ε %.6g one-sided, %.6g two-sided; accuracy bound %.6g", c.m, c.shift, got1, got2, gotAcc)
		for _, v := range []struct {
			what      string
			got, want float64
		}{{"one-sided ε", got1, want1}, {"two-sided ε", got2, want2}, {"max accuracy bound", gotAcc, accuracy}} {
			if math.Abs(v.got-v.want) > 1e-9*math.Max(1, math.Abs(v.want)) {
				t.Errorf("m=%d shift=%g: %s %.12g; by definition %.12g", c.m, c.shift, v.what, v.got, v.want)
			}
		}
	}
}
