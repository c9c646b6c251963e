package onerun_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/unlearnaudit/unlearnaudit/audit/onerun"
)

// An unlearner that forgets nothing, audited in one run: 1000 canaries, half of them
// trained on by the plan, and the unlearned model still scores the included canaries one
// standard deviation higher. The claim of (0.5, 1e-6)-unlearning is tested against the
// one-run pair (1, (1 + e^0.5)·1e-6).
func ExampleAudit() {
	const seed, m = 2024, 1000
	plan := onerun.DrawPlan(seed, m)

	noise := rand.New(rand.NewPCG(seed, 1)) // stands in for training and scoring
	scores := make([]float64, m)
	for i, included := range plan {
		scores[i] = noise.NormFloat64()
		if included {
			scores[i] += 1
		}
	}

	in, out, err := onerun.SplitScores(plan, scores)
	if err != nil {
		panic(err)
	}
	eps, delta := onerun.UnlearningTarget(0.5, 1e-6)
	report, err := onerun.Audit(in, out, 0.05, delta)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d included, %d excluded, %d Pareto thresholds\n", len(in), len(out), report.ParetoThresholds)
	fmt.Printf("one-run ε ≥ %.2f, f-DP one-run ε ≥ %.2f at 95%% confidence\n", report.EpsilonOneRun, report.EpsilonOneRunFDP)
	fmt.Printf("AUROC %.3f\n", report.AUROC)
	fmt.Println("claim refuted:", report.EpsilonOneRun > eps)
	// Output:
	// 514 included, 486 excluded, 24 Pareto thresholds
	// one-run ε ≥ 1.40, f-DP one-run ε ≥ 1.95 at 95% confidence
	// AUROC 0.769
	// claim refuted: true
}

// What one run can show: at the one-run target of a (1, 1e-6) unlearning claim, a
// Gaussian leak of up to GaussianMu standard deviations per canary is within the claim
// for every canary, and a typical run of m canaries refutes the claim only from
// TypicalRefutingMu; BinormalMu reads a run's μ from its scores.
func ExampleTypicalRefutingMu() {
	eps, delta := onerun.UnlearningTarget(1, 1e-6)
	allowed, _ := onerun.GaussianMu(eps, delta)
	fmt.Printf("allowed per canary: μ ≤ %.3f\n", allowed)
	for _, m := range []int{64, 128, 256} {
		needed, _ := onerun.TypicalRefutingMu(m, 0.05, eps, delta)
		fmt.Printf("m = %d: refuted from μ ≈ %.2f\n", m, needed)
	}
	mu, _ := onerun.BinormalMu([]float64{2.1, 0.4, 1.7, 3.0}, []float64{0.2, -0.5, 1.1, 0.3})
	fmt.Printf("a run's μ: %.2f\n", mu)
	// Output:
	// allowed per canary: μ ≤ 0.477
	// m = 64: refuted from μ ≈ +Inf
	// m = 128: refuted from μ ≈ 2.79
	// m = 256: refuted from μ ≈ 2.28
	// a run's μ: 2.17
}
