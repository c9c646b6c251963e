package epsilon

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"
	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
)

// A Statistic is one pre-registered number per model of each side — the mean loss over the
// deleted records, a projection of the parameters, … — a fixed function of the published
// model, so that a bound on it is a bound on the models (post-processing). A statistic
// fitted on data (a direction) must be fitted on the selection half alone (the first
// len/2 of each side), which Family never evaluates on.
type Statistic struct {
	Name     string
	Pos, Neg []float64 // one value per model: the law the rule should flag, and the other
}

// FamilyResult is the family game's bound and the statistic that gave it.
type FamilyResult struct {
	Result
	Chosen int // the index of the statistic that decided
	// Selection holds each statistic's ε lower bound on the selection half: what the
	// choice was made on, not bounds.
	Selection []float64
}

// Family plays one game over a pre-registered family of statistics (spec
// estimators-and-attacks §(g)). With Split it chooses the statistic and its rule together
// on the first half of each side — the pair with the largest ε lower bound there, the first
// of equals in the family's order — and bounds ε with that pair alone on the second halves,
// which the choice never saw: one held-out evaluation, so the game keeps its whole
// confidence, however many statistics the family holds. Split is the only strategy; a
// family of one is Game.LowerBound's split game.
//
// The sides may differ in size; each is bounded with its own Clopper–Pearson interval.
//
// The choice scores each pair by its ε lower bound on the selection half at
// SelectionLevel, not at the game's confidence, so the rule chosen from given scores is
// the same at every confidence (see SelectionLevel).
func (g Game) Family(stats []Statistic) (FamilyResult, error) {
	if len(stats) == 0 {
		return FamilyResult{}, fmt.Errorf("family game: no statistics")
	}
	for i, s := range stats {
		if len(s.Pos) != len(stats[0].Pos) || len(s.Neg) != len(stats[0].Neg) {
			return FamilyResult{}, fmt.Errorf("family game: statistic %d (%s) has %d and %d values; the first has %d and %d",
				i, s.Name, len(s.Pos), len(s.Neg), len(stats[0].Pos), len(stats[0].Neg))
		}
		if err := g.check(s.Pos, s.Neg); err != nil {
			return FamilyResult{}, fmt.Errorf("family game: statistic %s: %w", s.Name, err)
		}
	}
	if g.Strategy != threshold.Split {
		return FamilyResult{}, fmt.Errorf("family game: the split strategy only (the statistic is chosen on the selection half)")
	}
	out := FamilyResult{Selection: make([]float64, len(stats))}
	a := 1 - g.conf()
	np, nn := len(stats[0].Pos)/2, len(stats[0].Neg)/2
	// the selection's bounds, at SelectionLevel (not the game's confidence), from the
	// tables the checks share (every count is asked for)
	as := SelectionLevel(min(np, nn))
	uP, uN := cpTableFor(np, as/2), cpTableFor(nn, as/2)
	lb := func(c Counts) float64 { return epsFromRates(uN.at(c.FP), uP.at(c.Pos-c.TP), g.Delta) }
	best, bestV := Rule{}, math.Inf(-1)
	for i, s := range stats {
		var r Rule
		var v float64
		if np == nn {
			// the planner's pruned sweep picks bestRule's rule, ties included
			// (TestPowerSimChooseIsRuleSweep), from a few hundred bounds, not one per count;
			// the rule's counts are the best candidate's, so v is bestRule's value
			r = (&powerSim{sel: np, delta: g.Delta, uSel: uN}).choose(s.Pos[:np], s.Neg[:nn], &chooser{})
			v = lb(r.Count(s.Pos[:np], s.Neg[:nn]))
		} else {
			r, v = bestRule(s.Pos[:np], s.Neg[:nn], lb)
		}
		out.Selection[i] = v
		if v > bestV {
			best, bestV, out.Chosen = r, v, i
		}
	}
	s := stats[out.Chosen]
	c := best.Count(s.Pos[np:], s.Neg[nn:])
	out.Result = Result{Epsilon: LowerBound(c, g.Delta, a), Rule: best, Counts: c, Point: PointEstimate(c, g.Delta), Strategy: threshold.Split}
	return out, nil
}

// SelectionLevel is the a at which the split game scores a rule on its selection half of n
// models a side — each rate's Clopper–Pearson bound at a/2, a = min(0.05, 1/n), a level
// of 1 − a — whatever the game's confidence.
//
// It does not depend on the game's confidence. When it did (the game scored rules at its
// own level), a higher confidence chose better rules: the choice maximises a noisy
// criterion over about n thresholds, and a lenient bound is drawn to the far-tail
// thresholds whose few selection counts happened to be lucky, which the held-out half then
// does not confirm (the winner's curse). A stricter bound penalises small counts and
// chooses rules the held-out half confirms, so the planner's count fell as confidence rose
// (δ = 1e-6, ε = 1 against 2×: 682 766 trials at 95 %, 607 884 at 98 %, 505 660 at 99.5 %).
// With a choice that ignores the confidence, a held-out bound at a higher confidence is
// lower for the same rule, so the power at every count, replicate by replicate, cannot rise
// with confidence (TestPowerIsNonIncreasingInConfidence). The level tightens as 1/n, like a
// bound that holds for all n thresholds at once (the Bonferroni strategy's), because the
// winner's curse grows with the thresholds to choose from; up to 20 models a side it is
// 95 % (each rate at 0.025), where a stricter one would leave no rule with ε > 0.
func SelectionLevel(n int) float64 {
	if n < 1 {
		return 0.05
	}
	return min(0.05, 1/float64(n))
}

// RankPValue is the exact one-sided rank p-value of a statistic t of one model among the
// same statistic of n reference models, small when t is lower than theirs:
//
//	p = (#{r < t} + U·(1 + #{r = t})) / (n + 1),   U ~ Uniform(0, 1),
//
// ties broken at random (u is U). When the model and the references are exchangeable — the
// model drawn from the references' law — p is exactly Uniform(0, 1), so P(p ≤ x) = x for
// every x; it is never smaller than U/(n + 1), nor larger than 1.
func RankPValue(t float64, refs []float64, u float64) float64 {
	below, ties := RankCounts(t, refs)
	return (float64(below) + u*float64(1+ties)) / float64(len(refs)+1)
}

// ConservativeRankPValue is RankPValue with the tie-breaker at its largest, U = 1:
//
//	p = (#{r < t} + 1 + #{r = t}) / (n + 1),
//
// a function of the statistics alone, so that no seed can move a verdict decided on it.
// It is never below the randomised p-value, so P(p ≤ x) ≤ x when the model and the
// references are exchangeable: valid, and conservative by at most (1 + ties)/(n + 1).
func ConservativeRankPValue(t float64, refs []float64) float64 {
	return RankPValue(t, refs, 1)
}

// RankCounts are how many references lie below t and how many equal it.
func RankCounts(t float64, refs []float64) (below, ties int) {
	for _, r := range refs {
		switch {
		case r < t:
			below++
		case r == t:
			ties++
		}
	}
	return below, ties
}

// rankThreshold is RankTest's t = ((1 − confidence)/k − δ)/e^ε.
func rankThreshold(k int, epsilon, delta, confidence float64) float64 {
	return ((1-confidence)/float64(k) - delta) / fexp.Exp(epsilon)
}

// RankTest is the test of an (ε, δ) claim that k published models' statistics (models)
// are drawn from a law within (ε, δ) of the references' law (refs, n of them). Each model's
// one-sided rank p-value (ConservativeRankPValue; or RankPValue with its tie-breaker drawn
// from rng, when one is given) is compared with
//
//	t = ((1 − confidence)/k − δ)/e^ε:
//
// under the claim, for any event E of the statistic, P_model(E) ≤ e^ε·P_ref(E) + δ, and the
// event {p ≤ t} has probability t under the references' law, so with Bonferroni over the k
// models some p ≤ t has probability at most 1 − confidence. A p ≤ t shows the claim
// violated at that confidence; nothing shows it holds (one model cannot bound a law).
type RankTest struct {
	PValues   []float64 // one a model
	Min       float64   // the smallest
	Worst     int       // the model it belongs to
	Threshold float64   // t; ≤ 0 when δ alone exceeds the per-model level, and nothing can fail
	Violated  bool      // Min ≤ Threshold
	// Randomised says the p-values are RankPValue's, tie-breakers drawn from a seeded
	// generator: exactly uniform, but a verdict on them can move with the seed.
	Randomised bool
}

// Ranks runs RankTest's test: on the conservative p-values (ConservativeRankPValue) when
// rng is nil, a verdict no seed moves; on the exact randomised ones (RankPValue, U drawn
// from rng) otherwise, which a model below every reference can reach with fewer
// references, at the price of a verdict that depends on the draw.
func Ranks(models, refs []float64, epsilon, delta, confidence float64, rng *rand.Rand) (RankTest, error) {
	switch {
	case len(models) == 0:
		return RankTest{}, fmt.Errorf("rank test: no models")
	case len(refs) == 0:
		return RankTest{}, fmt.Errorf("rank test: no reference models")
	case !(confidence > 0 && confidence < 1) || !(delta >= 0 && delta < 1) || !(epsilon >= 0) || math.IsInf(epsilon, 1):
		return RankTest{}, fmt.Errorf("rank test: ε %v, δ %v, confidence %v; want ε ≥ 0 finite, δ in [0, 1), confidence in (0, 1)", epsilon, delta, confidence)
	}
	for i, v := range models {
		if math.IsNaN(v) {
			return RankTest{}, fmt.Errorf("rank test: model %d: NaN statistic", i)
		}
	}
	for i, v := range refs {
		if math.IsNaN(v) {
			return RankTest{}, fmt.Errorf("rank test: reference %d: NaN statistic", i)
		}
	}
	rt := RankTest{PValues: make([]float64, len(models)), Min: math.Inf(1),
		Threshold: rankThreshold(len(models), epsilon, delta, confidence), Randomised: rng != nil}
	for i, v := range models {
		p := ConservativeRankPValue(v, refs)
		if rng != nil {
			p = RankPValue(v, refs, rng.Float64())
		}
		rt.PValues[i] = p
		if p < rt.Min {
			rt.Min, rt.Worst = p, i
		}
	}
	rt.Violated = rt.Threshold > 0 && rt.Min <= rt.Threshold
	return rt, nil
}

// RanksNeeded is the fewest references with which a model whose statistic is below every
// reference's is certain to show a violation: its conservative p-value is 1/(n + 1) (the
// randomised one at most that), so n + 1 ≥ 1/t is needed and suffices; with fewer, no model
// can show one on the conservative p-value (0 when t ≤ 0: no number of references can).
func RanksNeeded(k int, epsilon, delta, confidence float64) int {
	t := rankThreshold(k, epsilon, delta, confidence)
	if !(t > 0) {
		return 0
	}
	return int(math.Ceil(1/t)) - 1
}

// RanksMaxEpsilon is the largest ε that k models ranked among n references can show
// violated at δ and the confidence: a model below every reference has the conservative
// p-value 1/(n + 1), which is at most t = ((1 − confidence)/k − δ)/e^ε exactly when
// ε ≤ ln((n + 1)·((1 − confidence)/k − δ)). −Inf when no ε ≥ 0 can be shown (the
// logarithm is negative, or δ alone exceeds the per-model level).
func RanksMaxEpsilon(k, n int, delta, confidence float64) float64 {
	level := (1-confidence)/float64(k) - delta
	if !(level > 0) {
		return math.Inf(-1)
	}
	if e := math.Log(float64(n+1) * level); e >= 0 {
		return e
	}
	return math.Inf(-1)
}
