package checks_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/audit/verify"
	"gonum.org/v1/gonum/mat"
)

// Property: a rank finding of k = 2..7 unlearned models applies the Bonferroni threshold
// over its k models, t_k = ((1 − confidence)/k − δ)/e^ε (epsilon.RankTest), everywhere it
// states or uses one: RankCheck's Bound and verdict, verify's rank route on k models'
// scores, PlanRanks' Threshold and RetrainsNeeded (what `audit plan --models` prints), and
// the retrains the recipe route asks for (RankRetrains: twice ⌈1/t_k⌉ − 1). Two-sided: a
// model below every retrain, beside k − 1 above them all, FAILs with N = ⌈1/t_k⌉ − 1
// retrains and is INCONCLUSIVE with N − 1, so the threshold applied lies in [1/(N + 1), 1/N).
// Planted bugs caught: the threshold of one model for k (epsilon's rankThreshold with k
// dropped: 2 models FAIL among 112 retrains, where t_2 = 0.024/e needs 113, and the recipe
// asks for 110), and PlanRanks' own copy of the formula with k dropped (its threshold is
// t_1 = 0.049/e for every k).
func TestRankFindingThresholdOverKModels(t *testing.T) {
	ctx := context.Background()
	const eps, delta, conf = 1, 1e-3, 0.95
	for k := 2; k <= 7; k++ {
		want := ((1-conf)/float64(k) - delta) * math.Exp(-eps)
		need := int(math.Ceil(1/want)) - 1
		rp, err := checks.PlanRanks(ctx, k, need, eps, delta, conf, 2)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(rp.Threshold-want) > 1e-14*want || rp.RetrainsNeeded != need {
			t.Errorf("k = %d: PlanRanks threshold %v, %d retrains needed; want t_k = %v and %d", k, rp.Threshold, rp.RetrainsNeeded, want, need)
		}
		s := &spec.Spec{Epsilon: eps, Delta: delta, Confidence: conf, PowerAgainst: 2, Seed: 1, Claimed: true}
		if got := verify.RankRetrains(s, k, 1); got != 2*need {
			t.Errorf("k = %d: the recipe asks for %d retrains; want 2 × %d", k, got, need)
		}
		for _, n := range []int{need - 1, need} {
			models, refs := make([]float64, k), make([]float64, n)
			models[0] = 0.01
			for i := 1; i < k; i++ {
				models[i] = 1e3
			}
			for i := range refs {
				refs[i] = 0.3 + float64(i)/1e4
			}
			wantVerdict := verdict.Inconclusive
			if n == need {
				wantVerdict = verdict.Fail
			}
			f, err := checks.RankCheck{Check: "rank", Epsilon: eps, Delta: delta, Confidence: conf, PowerAgainst: 2}.Play(ctx, "mean loss", models, refs)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(f.Bound-want) > 1e-14*want || f.Verdict != wantVerdict || f.Trials != k {
				t.Errorf("k = %d among %d retrains: bound %v, %s, %d trials; want t_k = %v, %s, %d", k, n, f.Bound, f.Verdict, f.Trials, want, wantVerdict, k)
			}
			if words := fmt.Sprintf("/%d − ", k); !strings.Contains(f.Detail, words) {
				t.Errorf("k = %d: the detail does not state the division by k (%q): %s", k, words, f.Detail)
			}
			// verify's rank route: k models' per-record losses, one row a model
			u, r := mat.NewDense(k, 3, nil), mat.NewDense(n, 3, nil)
			for i := range k {
				for j := range 3 {
					u.Set(i, j, models[i])
				}
			}
			for i := range n {
				for j := range 3 {
					r.Set(i, j, refs[i])
				}
			}
			_, fs, err := verify.VerifyScores(ctx, u, r, s)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(fs[0].Bound-want) > 1e-14*want || fs[0].Verdict != wantVerdict {
				t.Errorf("verify, k = %d among %d retrains: %s with threshold %v; want %s at t_k = %v", k, n, fs[0].Verdict, fs[0].Bound, wantVerdict, want)
			}
		}
	}
}
