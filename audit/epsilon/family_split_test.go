package epsilon

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"
)

// The family game's confidence split (Family): the statistic and its rule are chosen on the
// selection halves, each rate there bounded at SelectionLevel(min of the halves)/2 whatever
// the game's confidence; the one held-out evaluation keeps the whole 1 − confidence, split
// evenly between its two rates (one-sided Clopper–Pearson upper bounds on the FPR and the
// FNR, each at (1 − confidence)/2), however many statistics the family holds — no
// Bonferroni over the statistics, which the held-out half never chose among.

// unequalFamily is k statistics of nu positives and nr negatives, unit Gaussians, the
// positives of statistic shifted (if in range) moved by mu.
func unequalFamily(r *rand.Rand, k, nu, nr, shifted int, mu float64) []Statistic {
	stats := make([]Statistic, k)
	for j := range stats {
		s := Statistic{Name: "null", Pos: make([]float64, nu), Neg: make([]float64, nr)}
		for i := range s.Pos {
			s.Pos[i] = r.NormFloat64()
			if j == shifted {
				s.Pos[i] += mu
			}
		}
		for i := range s.Neg {
			s.Neg[i] = r.NormFloat64()
		}
		stats[j] = s
	}
	return stats
}

// Property: every level in the family game is the stated split. The bound is exactly the
// held-out counts' Kairouz–Oh–Viswanath ε with each rate's Clopper–Pearson upper bound at
// (1 − confidence)/2 (recomputed here from CPUpper, 1e-12), on the chosen statistic's
// second halves (their sizes nu − nu/2 and nr − nr/2); each statistic's selection score is
// its best rule's bound on the first halves with each rate at SelectionLevel(min)/2; the
// chosen statistic is the first with the largest score. Families of 1, 3 and 7 statistics,
// sides 40/40, 40/400 and 64/32, confidences 0.8, 0.95 and 0.99, one statistic shifted by
// 1.5 (so that bounds are positive and the levels matter). Planted bugs caught: a
// Bonferroni over the family ((1 − confidence)/k held out: ε ≥ 0.64 for 0.96 at k = 3,
// 40/40, 80 %), the held-out rates at 1 − confidence each, not halved (0.86 for 0.48 at
// k = 1), the selection scored at the game's confidence instead of SelectionLevel (1.26
// for 0.62 at 80 %), and the bound evaluated on the selection halves.
func TestFamilyConfidenceSplit(t *testing.T) {
	const delta = 1e-3
	cases := 0
	for _, k := range []int{1, 3, 7} {
		for _, sides := range [][2]int{{40, 40}, {40, 400}, {64, 32}} {
			for _, conf := range []float64{0.8, 0.95, 0.99} {
				nu, nr := sides[0], sides[1]
				stats := unequalFamily(rand.New(rand.NewPCG(uint64(k*1000+nu), uint64(nr))), k, nu, nr, k/2, 1.5)
				res, err := Game{Delta: delta, Confidence: conf, Strategy: threshold.Split}.Family(stats)
				if err != nil {
					t.Fatal(err)
				}
				np, nn := nu/2, nr/2
				as := SelectionLevel(min(np, nn))
				best, bestV := 0, math.Inf(-1)
				for i, s := range stats {
					_, v := bestRule(s.Pos[:np], s.Neg[:nn], func(c Counts) float64 {
						return epsFromRates(CPUpper(c.FP, c.Neg, as/2), CPUpper(c.Pos-c.TP, c.Pos, as/2), delta)
					})
					if math.Abs(res.Selection[i]-v) > 1e-12 {
						t.Errorf("k = %d, %d/%d, confidence %v: statistic %d's selection score %v; want %v (each rate at SelectionLevel(%d)/2 = %v)",
							k, nu, nr, conf, i, res.Selection[i], v, min(np, nn), as/2)
					}
					if v > bestV {
						best, bestV = i, v
					}
				}
				if res.Chosen != best {
					t.Errorf("k = %d, %d/%d, confidence %v: chose statistic %d; the first best selection score is %d's", k, nu, nr, conf, res.Chosen, best)
				}
				s := stats[res.Chosen]
				c := res.Rule.Count(s.Pos[np:], s.Neg[nn:])
				if c != res.Counts || c.Pos != nu-np || c.Neg != nr-nn {
					t.Errorf("k = %d, %d/%d: counts %+v; want the rule's on the held-out halves, %+v", k, nu, nr, res.Counts, c)
				}
				a := 1 - conf
				want := epsFromRates(CPUpper(c.FP, c.Neg, a/2), CPUpper(c.Pos-c.TP, c.Pos, a/2), delta)
				if math.Abs(res.Epsilon-want) > 1e-12 {
					t.Errorf("k = %d, %d/%d, confidence %v: ε ≥ %v; want %v, each held-out rate at (1 − confidence)/2 = %v", k, nu, nr, conf, res.Epsilon, want, a/2)
				}
				if want > 0 {
					cases++
				}
			}
		}
	}
	if cases < 20 {
		t.Fatalf("only %d of 27 cases have a positive bound: the levels are barely tested", cases)
	}
}

// Property: the family-wise false-FAIL rate under the null is at most 1 − confidence: on
// families of 7 statistics whose two laws are the same, the bound exceeds 0 (every claim
// ε ≥ 0 FAILed) in at most 1 − confidence of the games, at 80 % and 95 % confidence, with
// equal sides (40/40) and unequal ones (40/400). 400 seeded games each; the count is held
// below the binomial limit at 1 − confidence whose tail is 1e-4, so the test's
// false-failure probability is below 4e-4. (TestFamilyKeepsConfidence checks 20
// statistics, equal sides, at 95 %.) The game is conservative: 0 to 5 of 400 null games
// show ε > 0 here, so this guards validity against gross errors, and
// TestFamilyConfidenceSplit pins each level. Planted bug caught: the bound evaluated on the
// selection halves (the winner's curse: 53 and 152 of 400 at 95 %, limit 38).
func TestFamilyFalseFailRateUnderTheNull(t *testing.T) {
	const k, delta = 7, 0.01
	games := 400
	if testing.Short() {
		games = 150
	}
	for _, conf := range []float64{0.8, 0.95} {
		limit := binomialLimit(games, 1-conf, 1e-4)
		for _, sides := range [][2]int{{40, 40}, {40, 400}} {
			fails := 0
			for seed := range games {
				stats := unequalFamily(rand.New(rand.NewPCG(uint64(seed), 13)), k, sides[0], sides[1], -1, 0)
				res, err := Game{Delta: delta, Confidence: conf, Strategy: threshold.Split}.Family(stats)
				if err != nil {
					t.Fatal(err)
				}
				if res.Epsilon > 0 {
					fails++
				}
			}
			t.Logf("confidence %v, %d/%d: %d of %d null games show ε > 0 (limit %d)", conf, sides[0], sides[1], fails, games, limit)
			if fails > limit {
				t.Errorf("confidence %v, %d/%d: %d of %d null family games show ε > 0; at most %d", conf, sides[0], sides[1], fails, games, limit)
			}
		}
	}
}
