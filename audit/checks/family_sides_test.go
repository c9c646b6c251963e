package checks_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

// nullFamily is k statistics of nu unlearned and nr retrained models, every value a unit
// Gaussian: the two sides' laws are the same.
func nullFamily(r *rand.Rand, k, nu, nr int) []epsilon.Statistic {
	stats := make([]epsilon.Statistic, k)
	for j := range stats {
		s := epsilon.Statistic{Name: "null", Pos: make([]float64, nu), Neg: make([]float64, nr)}
		for i := range s.Pos {
			s.Pos[i] = r.NormFloat64()
		}
		for i := range s.Neg {
			s.Neg[i] = r.NormFloat64()
		}
		stats[j] = s
	}
	return stats
}

// Property: a family game whose sides differ in size states the power, trials and
// resolution of its smaller side — what the planner returns for min(nu, nr) models a side —
// never the larger's, which would overstate what it can catch: 40 unlearned models against
// 400 retrained (and 400 against 40) state 40 trials, epsilon.SplitGamePower(40),
// SmallestDetectableFactor(40) and MaxCertifiable(40), while the held-out counts are the
// sides' own halves (20 and 200) and the resolution printed beside them is those halves'
// (LowerBound with no error on 20 and 200). Deterministic: fixed seeds, the planner's
// memoised simulations. Planted bugs caught: the larger side's count (max(nu, nr)) in
// FamilyGame.Play states 400 trials and power 0.0043 against 2× at ε = 1, δ = 1e-3, where 40
// a side have 1.9e-5 (resolution 3.98 for 1.60); the power alone taken at the larger side
// (PowerOf at max(nu, nr), the trials left at 40) fails too.
func TestFamilyGameUnequalSidesStatesTheSmallerSide(t *testing.T) {
	ctx := context.Background()
	const eps, delta, conf, against = 1, 1e-3, 0.95, 2
	spec := epsilon.PowerSpec{Claim: eps, Factor: against, Power: verdict.PowerTarget, Delta: delta, Conf: conf}
	at := func(n int) (power, factor, most float64) {
		p, err := epsilon.SplitGamePower(ctx, n, spec)
		if err != nil {
			t.Fatal(err)
		}
		f, err := epsilon.SmallestDetectableFactor(ctx, n, spec)
		if err != nil {
			t.Fatal(err)
		}
		return p.Power, f, epsilon.MaxCertifiable(n, delta, conf, threshold.Split)
	}
	power, factor, most := at(40)
	bigPower, _, bigMost := at(400)
	t.Logf("40 a side: power %.3g, smallest factor %.4g, resolution %.4g; 400 a side: power %.3g, resolution %.4g", power, factor, most, bigPower, bigMost)
	if !(bigPower > 2*power) || !(bigMost > most) {
		t.Fatalf("the planner's figures at 40 and 400 a side do not differ (power %v and %v, resolution %v and %v): the case cannot tell the sides apart", power, bigPower, most, bigMost)
	}
	for _, c := range []struct{ nu, nr int }{{40, 400}, {400, 40}} {
		stats := nullFamily(rand.New(rand.NewPCG(uint64(c.nu), 3)), 3, c.nu, c.nr)
		f, err := checks.FamilyGame{Check: "family", Epsilon: eps, Delta: delta, Confidence: conf, PowerAgainst: against}.Play(ctx, stats)
		if err != nil {
			t.Fatal(err)
		}
		p := f.Power
		if f.Trials != 40 || p == nil || p.Question == nil || p.Question.Trials != 40 {
			t.Fatalf("%d against %d: %d trials stated (power %+v); want 40, the smaller side", c.nu, c.nr, f.Trials, p)
		}
		if p.Power != power || p.SmallestFactor != factor || p.MaxEpsilon != most {
			t.Errorf("%d against %d: power %v, smallest factor %v, resolution %v; want the planner's at 40 a side: %v, %v, %v",
				c.nu, c.nr, p.Power, p.SmallestFactor, p.MaxEpsilon, power, factor, most)
		}
		h := f.HeldOut
		res := epsilon.LowerBound(epsilon.Counts{TP: c.nu - c.nu/2, Pos: c.nu - c.nu/2, Neg: c.nr - c.nr/2}, delta, 1-conf)
		if h == nil || h.Unlearned != c.nu/2 || h.Retrained != c.nr/2 || math.Abs(h.Resolution-res) > 1e-12 {
			t.Errorf("%d against %d: held-out %+v; want %d and %d models, resolution %v", c.nu, c.nr, h, c.nu/2, c.nr/2, res)
		}
		if f.Verdict == verdict.Pass {
			t.Errorf("%d against %d: PASS with power %v at 40 a side", c.nu, c.nr, p.Power)
		}
	}
}

// Property: the family game's finding keeps the whole confidence for its one held-out
// evaluation, whatever the family's size: its Confidence is the spec's, and its Measured
// bound is the held-out counts' ε with each rate's Clopper–Pearson upper bound at
// (1 − confidence)/2 (recomputed here from epsilon.CPUpper, 1e-12), for families of 1, 3
// and 7 statistics, one shifted by 1.5, 40/40 and 40/400 models, at 95 % (the claim and
// confidence of TestFamilyGameUnequalSidesStatesTheSmallerSide, whose planner figures are
// memoised: another claim costs a minute of simulation). Planted bug caught:
// FamilyGame.Play dividing 1 − confidence among the statistics (ε ≥ 0.53 for 0.87 at 3
// statistics, 40/400).
func TestFamilyGameKeepsTheWholeConfidence(t *testing.T) {
	ctx := context.Background()
	const eps, delta, conf = 1, 1e-3, 0.95
	for _, k := range []int{1, 3, 7} {
		for _, nr := range []int{40, 400} {
			stats := nullFamily(rand.New(rand.NewPCG(uint64(k), uint64(nr))), k, 40, nr)
			for i := range stats[k/2].Pos {
				stats[k/2].Pos[i] += 1.5
			}
			f, err := checks.FamilyGame{Check: "family", Epsilon: eps, Delta: delta, Confidence: conf, PowerAgainst: 2}.Play(ctx, stats)
			if err != nil {
				t.Fatal(err)
			}
			c := f.HeldOut.Counts()
			a := 1 - conf
			fpr, fnr := epsilon.CPUpper(c.FP, c.Neg, a/2), epsilon.CPUpper(c.Pos-c.TP, c.Pos, a/2)
			want := 0.0
			if num := 1 - delta - fnr; num > 0 {
				want = math.Max(want, math.Log(num/fpr))
			}
			if num := 1 - delta - fpr; num > 0 {
				want = math.Max(want, math.Log(num/fnr))
			}
			if f.Confidence != conf || math.Abs(f.Measured-want) > 1e-12 {
				t.Errorf("%d statistics, 40/%d: stated at %v, ε ≥ %v; want %v at %v, each held-out rate at %v", k, nr, f.Confidence, f.Measured, want, conf, a/2)
			}
		}
	}
}
