package epsilon

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"

	"gonum.org/v1/gonum/stat/distuv"

	"pgregory.net/rapid"
)

// The lazy table is CPUpper, and bracket's counts bracket it: the premise of choose's
// bounds, with CPUpper rising in k, checked where the bounds ask (every k of small n, the
// grid's neighbourhoods of large ones).
func TestCPTableBracketsCPUpper(t *testing.T) {
	checked := 0
	for _, n := range []int{1, 2, 7, 511, 1000, 4097, 100_001, 500_000} {
		for _, a := range []float64{0.025, 0.0125} {
			tab := newCPTable(n, a)
			ks := []int{}
			for k := 0; k <= n; k += max(1, n/3000) {
				ks = append(ks, k, min(n, k+1))
			}
			for _, k := range ks {
				u := tab.at(k)
				if want := CPUpper(k, n, a); math.Float64bits(u) != math.Float64bits(want) {
					t.Fatalf("n = %d, a = %v: the table's bound at %d is %v, CPUpper %v", n, a, k, u, want)
				}
				lo, hi := tab.bracket(k)
				if !(lo <= u && u <= hi) || hi/lo > 1.01 && k > 512 && n-k > 512 {
					t.Fatalf("n = %d, a = %v, k = %d: bracket [%v, %v] of %v", n, a, k, lo, hi, u)
				}
				if k < n && CPUpper(k+1, n, a) < u {
					t.Fatalf("n = %d, a = %v: CPUpper falls from k = %d to %d", n, a, k, k+1)
				}
				checked++
			}
		}
	}
	t.Logf("%d bounds", checked)
}

// neighbourOf names the score next to t as a scan of all the scores does, from the tails
// kept where they settle it and from all the scores where they do not.
func TestNeighbourOfIsNeighbour(t *testing.T) {
	fromTails, fromAll := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		draw := func(label string) []float64 {
			s := make([]float64, rapid.IntRange(1, 30).Draw(t, label+"n"))
			for i := range s {
				s[i] = float64(rapid.IntRange(-20, 20).Draw(t, label)) / 4
			}
			return s
		}
		pos, neg := draw("pos"), draw("neg")
		c := chooser{tails: true, tailL: float64(rapid.IntRange(-24, 24).Draw(t, "tailL")) / 4,
			tailR: float64(rapid.IntRange(-24, 24).Draw(t, "tailR")) / 4}
		for _, v := range pos {
			if v <= c.tailL || v >= c.tailR {
				c.tp = append(c.tp, v)
			}
		}
		for _, v := range neg {
			if v <= c.tailL || v >= c.tailR {
				c.tn = append(c.tn, v)
			}
		}
		all := slices.Concat(pos, neg)
		t0 := all[rapid.IntRange(0, len(all)-1).Draw(t, "t")]
		dir := rapid.SampledFrom([]int{-1, 1}).Draw(t, "dir")
		asked := false
		got := c.neighbourOf(t0, dir, func() ([]float64, []float64) { asked = true; return pos, neg })
		if want := neighbour(pos, neg, t0, dir); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("neighbour of %v (%d) with tails ≤ %v, ≥ %v: %v, a scan gives %v", t0, dir, c.tailL, c.tailR, got, want)
		}
		if asked {
			fromAll++
		} else {
			fromTails++
		}
	})
	if fromTails == 0 || fromAll == 0 {
		t.Fatalf("%d from the tails, %d from all the scores: a path went untested", fromTails, fromAll)
	}
}

// Game.GDP takes each count's normal quantiles from its Clopper–Pearson table, computed
// once a count: the rule and μ must be those of the quantiles computed at every rule, in
// both strategies, on samples with ties and of unequal sizes, asked twice (the second
// time from the kept values).
func TestGDPKeptQuantilesAreComputedOnes(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	draw := func(n int, shift, grid float64) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = r.NormFloat64() + shift
			if grid > 0 {
				s[i] = math.Round(s[i]/grid) * grid
			}
		}
		return s
	}
	mu := func(fpr, fnr float64) float64 {
		return distuv.UnitNormal.Quantile(1-fpr) - distuv.UnitNormal.Quantile(fnr)
	}
	checked := 0
	for _, c := range []struct {
		np, nn      int
		shift, grid float64
	}{{400, 400, 1, 0}, {301, 555, 0.5, 0.1}, {2000, 1999, 2, 0}, {50, 60, 0, 0.5}} {
		pos, neg := draw(c.np, c.shift, c.grid), draw(c.nn, 0, c.grid)
		for _, strategy := range []threshold.Strategy{threshold.Split, threshold.Bonferroni} {
			g := Game{Delta: 1e-5, Confidence: 0.95, Strategy: strategy}
			a := 1 - g.conf()
			var want GDPResult
			if strategy == threshold.Split {
				np, nn := len(pos)/2, len(neg)/2
				uP, uN := newCPTable(np, a/2), newCPTable(nn, a/2)
				want.Rule, _ = bestRule(pos[:np], neg[:nn], func(k Counts) float64 { return mu(uN.at(k.FP), uP.at(k.Pos-k.TP)) })
				k := want.Rule.Count(pos[np:], neg[nn:])
				want.Mu = mu(CPUpper(k.FP, k.Neg, a/2), CPUpper(k.Pos-k.TP, k.Pos, a/2))
			} else {
				uP, uN := newCPTable(len(pos), a/(4*float64(len(pos)+1))), newCPTable(len(neg), a/(4*float64(len(neg)+1)))
				want.Rule, want.Mu = bestRule(pos, neg, func(k Counts) float64 { return mu(uN.at(k.FP), uP.at(k.Pos-k.TP)) })
			}
			for range 2 {
				got, err := g.GDP(pos, neg)
				if err != nil {
					t.Fatal(err)
				}
				if got.Rule != want.Rule || math.Float64bits(got.Mu) != math.Float64bits(want.Mu) {
					t.Errorf("%d and %d scores, %v: rule %+v μ %v; computed at every rule %+v μ %v", c.np, c.nn, strategy, got.Rule, got.Mu, want.Rule, want.Mu)
				}
				checked++
			}
		}
	}
	if checked != 16 {
		t.Fatalf("%d cases checked", checked)
	}
}
