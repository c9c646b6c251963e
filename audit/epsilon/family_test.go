package epsilon

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"

	"gonum.org/v1/gonum/stat/distuv"
)

// A perfectly separable pair is failed: at 32 models a side (16 held out) the unlearned
// models' statistic lies in 565–588 and the retrained ones' at 20,786 and above. With the
// threshold on an observed selection score instead of between scores this could
// misclassify held-out points; with the midpoint every held-out point is on its side and
// the bound is the resolution of 16 held-out models a side.
func TestFamilySeparablePairFails(t *testing.T) {
	pos, neg := make([]float64, 32), make([]float64, 32)
	for i := range 32 {
		pos[i] = 565 + float64((i*7)%24)
		neg[i] = 20786 + float64((i*13)%32)*100
	}
	// the selection half's extremes are not the held-out half's
	pos[3], pos[20] = 565, 588
	neg[5], neg[17] = 20786, 30000
	noise := Statistic{Name: "noise", Pos: make([]float64, 32), Neg: make([]float64, 32)}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 32 {
		noise.Pos[i], noise.Neg[i] = r.NormFloat64(), r.NormFloat64()
	}
	g := Game{Delta: 1e-3, Confidence: 0.95, Strategy: threshold.Split}
	res, err := g.Family([]Statistic{noise, {Name: "mean loss", Pos: pos, Neg: neg}})
	if err != nil {
		t.Fatal(err)
	}
	want := MaxCertifiable(32, 1e-3, 0.95, threshold.Split)
	if res.Chosen != 1 || res.Counts.TP != 0 && res.Counts.TP != 16 || math.Abs(res.Epsilon-want) > 1e-12 || !(res.Epsilon > 1) {
		t.Fatalf("chose %d with %+v, ε ≥ %v; want the mean loss, perfectly separated, ε = resolution %v > 1", res.Chosen, res.Counts, res.Epsilon, want)
	}
}

// gaussianFamily draws k statistics of n unit Gaussians a side; statistic shifted (if in
// range) has its positives shifted by mu.
func gaussianFamily(r *rand.Rand, k, n, shifted int, mu float64) []Statistic {
	stats := make([]Statistic, k)
	for j := range stats {
		s := Statistic{Name: "null", Pos: make([]float64, n), Neg: make([]float64, n)}
		for i := range n {
			s.Pos[i], s.Neg[i] = r.NormFloat64(), r.NormFloat64()
			if j == shifted {
				s.Pos[i] += mu
			}
		}
		stats[j] = s
	}
	return stats
}

// Choosing among many statistics on the selection half keeps the game's confidence: on
// 20 statistics whose two laws are identical, the bound is positive in at
// most 5 % of games at 95 % confidence. Over 300 seeded games the count is held below the
// binomial tail at 0.05 of probability < 1e-4 (29 of 300). Planted bug caught: evaluating
// on the selection half (the family's best selection bound) exceeds it in most games.
func TestFamilyKeepsConfidence(t *testing.T) {
	const games, k, n = 300, 20, 40
	fails := 0
	for seed := range games {
		stats := gaussianFamily(rand.New(rand.NewPCG(uint64(seed), 7)), k, n, -1, 0)
		res, err := Game{Delta: 0.01, Confidence: 0.95, Strategy: threshold.Split}.Family(stats)
		if err != nil {
			t.Fatal(err)
		}
		if res.Epsilon > 0 {
			fails++
		}
	}
	limit := 0
	for b := (distuv.Binomial{N: games, P: 0.05}); 1-b.CDF(float64(limit)) >= 1e-4; limit++ {
	}
	t.Logf("%d of %d null games show ε > 0 (limit %d)", fails, games, limit)
	if fails > limit {
		t.Fatalf("%d of %d null family games show ε > 0; at 95 %% confidence at most %d", fails, games, limit)
	}
}

// The family finds the statistic that carries the signal: a mean shift of 3 on one of ten
// statistics is chosen and shown above a claim of 0.5 at 64 models a side in most games.
func TestFamilyFindsTheSignal(t *testing.T) {
	const games, n = 50, 64
	caught := 0
	for seed := range games {
		stats := gaussianFamily(rand.New(rand.NewPCG(uint64(seed), 9)), 10, n, 6, 3)
		res, _ := Game{Delta: 1e-3, Confidence: 0.95}.Family(stats)
		if res.Chosen == 6 && res.Epsilon > 0.5 {
			caught++
		}
	}
	if caught < games*9/10 {
		t.Fatalf("the shifted statistic was chosen and shown above 0.5 in %d of %d games", caught, games)
	}
}

func TestFamilyRefuses(t *testing.T) {
	g := Game{Delta: 1e-3}
	a := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	for _, stats := range [][]Statistic{nil, {{Name: "a", Pos: a, Neg: a}, {Name: "b", Pos: a[:6], Neg: a}}, {{Name: "nan", Pos: append([]float64{math.NaN()}, a...), Neg: a}}} {
		if _, err := g.Family(stats); err == nil {
			t.Errorf("family of %d statistics accepted", len(stats))
		}
	}
	if _, err := (Game{Delta: 1e-3, Strategy: threshold.Bonferroni}).Family([]Statistic{{Name: "a", Pos: a, Neg: a}}); err == nil {
		t.Error("a Bonferroni family accepted")
	}
}

// The rank p-value is exactly uniform under exchangeability, ties included: over 20,000
// seeded draws with n = 9 references on a lattice of 5 values (ties on most draws), the
// fraction with p ≤ x is x within 4.5 binomial standard errors at x = 0.05, 0.1, 0.5
// (false-failure probability below 1e-4 in all). Planted bug caught: ties counted as
// below (p = (below + ties + U)/(n+1)) is far from uniform here.
func TestRankPValueIsUniform(t *testing.T) {
	const draws, n = 20000, 9
	r := rand.New(rand.NewPCG(3, 4))
	ps := make([]float64, draws)
	refs := make([]float64, n)
	for i := range draws {
		for j := range refs {
			refs[j] = float64(r.IntN(5))
		}
		ps[i] = RankPValue(float64(r.IntN(5)), refs, r.Float64())
	}
	for _, x := range []float64{0.05, 0.1, 0.5} {
		k := 0
		for _, p := range ps {
			if p <= x {
				k++
			}
		}
		got, se := float64(k)/draws, math.Sqrt(x*(1-x)/draws)
		if math.Abs(got-x) > 4.5*se {
			t.Errorf("P(p ≤ %v) = %.4f; want %v ± %.4f", x, got, x, 4.5*se)
		}
	}
}

// One model whose statistic is below all 64 references reaches p ≤ 1/65 < (0.05 − δ)/e^ε
// at ε = 1, δ = 1e-3 and fails the claim; RanksNeeded says 55 references suffice and 54
// do not guarantee it; one model in the middle of the references never fails.
func TestRanks(t *testing.T) {
	refs := make([]float64, 64)
	for i := range refs {
		refs[i] = 10 + float64(i)
	}
	r := rand.New(rand.NewPCG(1, 1))
	rt, err := Ranks([]float64{3}, refs, 1, 1e-3, 0.95, r)
	if err != nil {
		t.Fatal(err)
	}
	if !rt.Violated || rt.Min > 1.0/65 || math.Abs(rt.Threshold-0.049/math.E) > 1e-15 {
		t.Fatalf("%+v; want a violation with p ≤ 1/65 and t = 0.049/e", rt)
	}
	if n := RanksNeeded(1, 1, 1e-3, 0.95); n != 55 || 1.0/float64(n+1) > rt.Threshold || 1.0/float64(n) <= rt.Threshold {
		t.Fatalf("RanksNeeded = %d", n)
	}
	rt, _ = Ranks([]float64{40}, refs, 1, 1e-3, 0.95, r)
	if rt.Violated {
		t.Fatalf("a model amid the references fails: %+v", rt)
	}
	// two references below the model: p ≥ 2/65 > t, whatever the tie-breaker (a threshold
	// taken 3× too large, e^ε dropped, would fail it)
	for seed := range uint64(50) {
		rt, _ = Ranks([]float64{11.5}, refs, 1, 1e-3, 0.95, rand.New(rand.NewPCG(seed, 1)))
		if rt.Violated || rt.Min < 2.0/65 {
			t.Fatalf("a model above two references: %+v", rt)
		}
	}
	if RanksNeeded(1, 1, 0.06, 0.95) != 0 {
		t.Fatal("δ above the level still asks for references")
	}
	for _, bad := range [][2][]float64{{nil, refs}, {{1}, nil}, {{math.NaN()}, refs}} {
		if _, err := Ranks(bad[0], bad[1], 1, 1e-3, 0.95, r); err == nil {
			t.Errorf("Ranks(%v, %d refs) accepted", bad[0], len(bad[1]))
		}
	}
}

// The default rank test decides on the conservative p-value (below + 1 + ties)/(N + 1),
// which no seed moves: a model below all 20 references has p = 1/21 > t = 0.049/e at ε = 1,
// δ = 1e-3 and never fails, below all 55 (RanksNeeded) it always does, and a model tied
// with two references of 64 has p = 3/65. RanksMaxEpsilon is the ε at which 1/(N + 1)
// meets t (within 1e-9 either side: the rounding of e^ε). Planted bugs caught: ties left out of the conservative p-value (p = 1/65 for
// the tie), RanksNeeded one short (54: p = 1/55 > t), and RanksMaxEpsilon off by the +1.
func TestRanksConservative(t *testing.T) {
	below := func(n int) []float64 {
		refs := make([]float64, n)
		for i := range refs {
			refs[i] = 10 + float64(i)
		}
		return refs
	}
	need := RanksNeeded(1, 1, 1e-3, 0.95)
	for _, c := range []struct {
		refs int
		fail bool
	}{{20, false}, {need - 1, false}, {need, true}, {64, true}} {
		rt, err := Ranks([]float64{3}, below(c.refs), 1, 1e-3, 0.95, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rt.Randomised || rt.Violated != c.fail || rt.Min != 1/float64(c.refs+1) {
			t.Errorf("below all %d references: %+v; want p = 1/%d and violated %t", c.refs, rt, c.refs+1, c.fail)
		}
	}
	tied := append(below(62), 3, 3)
	if p := ConservativeRankPValue(3, tied); p != 3.0/65 {
		t.Errorf("tied with 2 of 64: p = %v; want 3/65", p)
	}
	for _, n := range []int{need - 1, need, 64} {
		e := RanksMaxEpsilon(1, n, 1e-3, 0.95)
		rt, _ := Ranks([]float64{3}, below(n), e*(1-1e-9), 1e-3, 0.95, nil)
		over, _ := Ranks([]float64{3}, below(n), e*(1+1e-9), 1e-3, 0.95, nil)
		if !rt.Violated || over.Violated {
			t.Errorf("%d references: RanksMaxEpsilon %v shows (%t), just above it shows (%t); want the edge", n, e, rt.Violated, over.Violated)
		}
	}
	if e := RanksMaxEpsilon(1, 10, 1e-3, 0.95); !math.IsInf(e, -1) {
		t.Errorf("11 × 0.049 < 1: RanksMaxEpsilon = %v; want −Inf (no ε ≥ 0)", e)
	}
}

// The power a family game states is the split game's on the deciding statistic alone
// (SplitGamePower). Choosing among null statistics besides it costs little when it carries
// the violation: at the trials the planner asks for, a family of the Gaussian alternative
// and six null statistics still catches the violation at the promised 80 %, within 4
// standard errors (false-failure probability below 1e-4). Planted bug caught: a family
// that keeps its first statistic whatever the selection half shows catches almost none.
func TestFamilyKeepsThePlannersPower(t *testing.T) {
	spec := PowerSpec{Claim: 1, Factor: 2, Power: 0.8, Delta: 0.1, Conf: 0.95}
	n, mu, err := TrialsToDetect(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	promised, err := SplitGamePower(context.Background(), n, spec)
	if err != nil {
		t.Fatal(err)
	}
	games := 300
	if testing.Short() {
		games = 100
	}
	caught := 0
	for seed := range games {
		stats := gaussianFamily(rand.New(rand.NewPCG(uint64(seed), 11)), 7, n, 3, mu)
		res, err := Game{Delta: spec.Delta, Confidence: spec.Conf}.Family(stats)
		if err != nil {
			t.Fatal(err)
		}
		if res.Epsilon > spec.Claim {
			caught++
		}
	}
	rate := float64(caught) / float64(games)
	sigma := math.Sqrt(spec.Power*(1-spec.Power)/float64(games) + promised.StdErr*promised.StdErr)
	t.Logf("%d trials per side (μ = %.3f): the family caught %.3f of %d games; promised %.3f", n, mu, rate, games, promised.Power)
	if rate < spec.Power-4*sigma {
		t.Fatalf("the family of 7 caught %.3f of %d games at the planned %d trials; promised %.2f (4σ = %.3f)", rate, games, n, spec.Power, 4*sigma)
	}
}
