package epsilon

import (
	"fmt"
	"math"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"
	"github.com/unlearnaudit/unlearnaudit/internal/floatsort"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"gonum.org/v1/gonum/stat/distuv"
)

// A Rule flags a sample as positive when its score is ≥ Threshold (Above) or ≤ Threshold.
type Rule struct {
	Threshold float64 `json:"threshold"`
	Above     bool    `json:"above"`
}

// Count applies the rule to positive and negative samples.
func (r Rule) Count(pos, neg []float64) Counts {
	c := Counts{Pos: len(pos), Neg: len(neg)}
	for _, s := range pos {
		if r.flags(s) {
			c.TP++
		}
	}
	for _, s := range neg {
		if r.flags(s) {
			c.FP++
		}
	}
	return c
}

func (r Rule) flags(s float64) bool {
	if r.Above {
		return s >= r.Threshold
	}
	return s <= r.Threshold
}

// Game is a distinguishing game: scores of samples from two laws, and the (δ, confidence)
// at which to bound ε.
type Game struct {
	Delta      float64
	Confidence float64 // 0 means 0.95
	// Strategy chooses the rule's threshold: Split (the zero value) or Bonferroni; the
	// game chooses its threshold, so threshold.Fixed is refused.
	Strategy threshold.Strategy
}

// Result is the best bound a game found.
type Result struct {
	Epsilon  float64 // the ε lower bound, holding with probability ≥ Confidence
	Rule     Rule    // the rule that achieved it
	Counts   Counts  // the counts it was bounded with (the held-out half for Split)
	Point    float64 // ε̂ at the empirical rates of those counts (an estimate)
	Strategy threshold.Strategy
}

func (g Game) conf() float64 {
	if g.Confidence == 0 {
		return 0.95
	}
	return g.Confidence
}

// LowerBound plays the game on positive and negative scores and returns the largest
// ε lower bound over single-threshold rules, chosen by the game's strategy.
func (g Game) LowerBound(pos, neg []float64) (Result, error) {
	if err := g.check(pos, neg); err != nil {
		return Result{}, err
	}
	if g.Strategy == threshold.Split { // a family of one statistic
		res, err := g.Family([]Statistic{{Pos: pos, Neg: neg}})
		return res.Result, err
	}
	a := 1 - g.conf()
	uP, uN := cpTableFor(len(pos), a/(4*float64(len(pos)+1))), cpTableFor(len(neg), a/(4*float64(len(neg)+1)))
	bound := func(c Counts) float64 { return epsFromRates(uN.at(c.FP), uP.at(c.Pos-c.TP), g.Delta) }
	r, eps := bestRule(pos, neg, bound)
	c := r.Count(pos, neg)
	return Result{Epsilon: eps, Rule: r, Counts: c, Point: PointEstimate(c, g.Delta), Strategy: threshold.Bonferroni}, nil
}

func (g Game) check(pos, neg []float64) error {
	switch {
	case !(g.Delta >= 0 && g.Delta < 1):
		return fmt.Errorf("distinguishing game: δ = %v; want 0 ≤ δ < 1", g.Delta)
	case g.conf() == 1:
		// a confidence within 1e-16 of 1 that the checks split (1 − (1 − c)/k, (1 + c)/2)
		// rounds to 1 in float64: say so, rather than show a 1 the user never typed
		return fmt.Errorf("distinguishing game: confidence 1 after the checks split it (a confidence within about 1e-15 of 1 rounds to 1 in float64); want at most 0.999999999999")
	case !(g.conf() > 0 && g.conf() < 1):
		return fmt.Errorf("distinguishing game: confidence %v; want a level in (0, 1)", g.conf())
	case len(pos) < 4 || len(neg) < 4:
		return fmt.Errorf("distinguishing game: %d and %d samples; want at least 4 on each side", len(pos), len(neg))
	}
	if _, fixed := g.Strategy.Threshold(); fixed {
		return fmt.Errorf("distinguishing game: strategy %s; the game chooses its threshold (split or bonferroni)", g.Strategy)
	}
	for _, s := range [][]float64{pos, neg} {
		for _, v := range s {
			if math.IsNaN(v) {
				return fmt.Errorf("distinguishing game: NaN score")
			}
		}
	}
	return nil
}

// bestRule returns the rule with the largest value of f over every partition of the
// scores by a threshold, in both directions, the first of equals in sweep's order, and
// that value; its threshold lies between scores (sweep).
func bestRule(pos, neg []float64, f func(Counts) float64) (Rule, float64) {
	sp, sn := slices.Clone(pos), slices.Clone(neg)
	floatsort.Sort(sp) // as sort.Float64s
	floatsort.Sort(sn)
	bestV := math.Inf(-1)
	r := sweep(sp, sn, func(c Counts) bool {
		if v := f(c); v > bestV {
			bestV = v
			return true
		}
		return false
	})
	return r, bestV
}

// GDPResult is the Gaussian-DP route (Nasr et al. 2023, "Tight auditing"): a lower bound
// on the GDP parameter μ from the best rule's rate bounds, converted to ε at δ through
// the Gaussian privacy profile.
type GDPResult struct {
	Mu      float64 // lower bound on μ: Φ⁻¹(1 − FPR̄) − Φ⁻¹(FNR̄)
	Epsilon float64 // ε at δ of a μ-GDP mechanism (0 when μ ≤ 0)
	Rule    Rule
}

// GDP plays the game with the GDP statistic instead of the (ε, δ) one, with the same
// threshold strategies. Its ε is a lower bound under the assumption that the pair is
// exactly Gaussian-DP (the trade-off curve of a Gaussian pair); it is reported as that.
func (g Game) GDP(pos, neg []float64) (GDPResult, error) {
	if err := g.check(pos, neg); err != nil {
		return GDPResult{}, err
	}
	a := 1 - g.conf()
	mu := func(fpr, fnr float64) float64 {
		return distuv.UnitNormal.Quantile(1-fpr) - distuv.UnitNormal.Quantile(fnr)
	}
	var r Rule
	var m float64
	switch g.Strategy {
	case threshold.Split:
		np, nn := len(pos)/2, len(neg)/2
		uP, uN := cpTableFor(np, a/2), cpTableFor(nn, a/2) // the selection half's, shared
		// mu(uN.at(FP), uP.at(FN)) with each count's quantile kept by its table
		r, _ = bestRule(pos[:np], neg[:nn], func(c Counts) float64 { return uN.quantileAbove(c.FP) - uP.quantileAt(c.Pos-c.TP) })
		c := r.Count(pos[np:], neg[nn:])
		m = mu(CPUpper(c.FP, c.Neg, a/2), CPUpper(c.Pos-c.TP, c.Pos, a/2))
	default:
		uP, uN := cpTableFor(len(pos), a/(4*float64(len(pos)+1))), cpTableFor(len(neg), a/(4*float64(len(neg)+1)))
		r, m = bestRule(pos, neg, func(c Counts) float64 { return uN.quantileAbove(c.FP) - uP.quantileAt(c.Pos-c.TP) })
	}
	res := GDPResult{Mu: m, Rule: r}
	if m > 0 {
		res.Epsilon = dp.GaussianExactEpsilon(m, g.Delta) // +Inf at δ = 0: a Gaussian pair is never (ε, 0)-DP
	}
	return res, nil
}
