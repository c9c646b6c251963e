package onerun

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
)

// planStream is the second PCG word of every plan: "canaries" in ASCII, so that a plan's
// stream differs from any other stream drawn from the same recorded seed.
const planStream = 0x63616e6172696573

// DrawPlan draws the inclusion plan of m canaries from seed: plan[i] reports whether
// canary i is trained on, each independently with probability ½, as the one-run audit
// requires (Steinke, Nasr and Jagielski, NeurIPS 2023, arXiv 2305.08846;
// jax_privacy leaves the draw to its caller). The draw is math/rand/v2's PCG seeded with
// (seed, "canaries"), one 64-bit output per canary, whose top bit decides: the same seed
// always gives the same plan, on every platform and Go version that keeps PCG's
// definition, and DrawPlan(seed, m) is a prefix of DrawPlan(seed, m+k). Record the seed
// before training. m ≤ 0 gives an empty plan.
func DrawPlan(seed uint64, m int) []bool {
	if m <= 0 {
		return []bool{}
	}
	r := rand.New(rand.NewPCG(seed, planStream))
	plan := make([]bool, m)
	for i := range plan {
		plan[i] = r.Uint64()>>63 == 1
	}
	return plan
}

// SplitScores separates the canaries' scores by the plan: in holds the scores of the
// canaries the plan included, out the others, each in canary order, ready for
// NewAuditor or Audit. The plan and the scores must have the same length, and no score
// may be NaN.
func SplitScores(plan []bool, scores []float64) (in, out []float64, err error) {
	if len(plan) != len(scores) {
		return nil, nil, fmt.Errorf("splitting canary scores: %d plan entries for %d scores", len(plan), len(scores))
	}
	for i, s := range scores {
		if math.IsNaN(s) {
			return nil, nil, fmt.Errorf("splitting canary scores: canary %d scores NaN", i)
		}
		if plan[i] {
			in = append(in, s)
		} else {
			out = append(out, s)
		}
	}
	return in, out, nil
}

// UnlearningTarget is the one-run pair against which an (ε, δ)-unlearning claim is
// tested. If the published model after unlearning is (ε, δ)-indistinguishable, both
// ways, from retraining on what is left, for every deletion set of the size used, then
// two canary plans differing in one canary give outcomes (2ε, (1 + e^ε)·δ)-close, by the
// triangle inequality through the retrained law. A one-run ε lower bound (Epsilon,
// Auditor.EpsilonOneRun, computed at the returned δ) above the returned ε refutes the
// claim. The one-run bound itself is that of Steinke, Nasr and Jagielski (NeurIPS 2023,
// arXiv 2305.08846); jax_privacy has no counterpart.
func UnlearningTarget(eps, delta float64) (epsOneRun, deltaOneRun float64) {
	return 2 * eps, (1 + fexp.Exp(eps)) * delta
}
