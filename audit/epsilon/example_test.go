package epsilon_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"

	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
)

func ExampleGame_LowerBound() {
	// the forgotten example's score under 50 unlearned and 50 retrained models: the
	// unlearned models still score it higher, every one of them
	unlearned, retrained := make([]float64, 50), make([]float64, 50)
	for i := range 50 {
		unlearned[i] = 2 + float64(i)/50
		retrained[i] = -1 + float64(i)/50
	}
	g := epsilon.Game{Delta: 1e-5, Strategy: threshold.Bonferroni}
	res, _ := g.LowerBound(unlearned, retrained)
	fmt.Printf("ε ≥ %.3f at 95%% confidence (rule: score ≥ %.2f)\n", res.Epsilon, res.Rule.Threshold)
	// perfect separation: the bound is the resolution of 50 trials, no more
	fmt.Printf("resolution of 50 trials: %.3f\n", epsilon.MaxCertifiable(50, 1e-5, 0.95, threshold.Bonferroni))
	// Output:
	// ε ≥ 1.710 at 95% confidence (rule: score ≥ 0.99)
	// resolution of 50 trials: 1.710
}

func ExampleMaxCertifiable() {
	for _, n := range []int{100, 1000, 10000} {
		fmt.Printf("N = %5d: ε up to %.2f can be shown violated\n", n, epsilon.MaxCertifiable(n, 1e-5, 0.95, threshold.Split))
	}
	// Output:
	// N =   100: ε up to 2.57 can be shown violated
	// N =  1000: ε up to 4.91 can be shown violated
	// N = 10000: ε up to 7.21 can be shown violated
}

func ExampleCompetition() {
	// one forget example, scored by 6 unlearned and 6 retrained models
	unlearned := [][]float64{{2.0}, {2.4}, {1.1}, {2.9}, {1.7}, {2.2}}
	retrained := [][]float64{{0.3}, {1.2}, {-0.4}, {0.9}, {0.1}, {1.5}}
	res, _ := epsilon.Competition(unlearned, retrained)
	fmt.Printf("ε = %.3f, forgetting score %.3f (E_max %.0f)\n", res.Epsilons[0], res.Score, res.EMax)
	// Output: ε = 1.609, forgetting score 0.125 (E_max 2)
}

func ExampleTrialsToDetect() {
	n, mu, _ := epsilon.TrialsToDetect(context.Background(), epsilon.PowerSpec{Claim: 1, Factor: 2, Power: 0.8, Delta: 0.01, Conf: 0.95})
	fmt.Printf("catching ε = 2 against a claimed 1 at δ = 0.01 takes %d trials per side (Gaussian leak, μ = %.3f)\n", n, mu)
	// Output: catching ε = 2 against a claimed 1 at δ = 0.01 takes 2449 trials per side (Gaussian leak, μ = 0.896)
}

func ExampleGame_Family() {
	// one number per model from 32 unlearned and 32 retrained models: the mean loss over
	// the deleted records carries the signal, a second statistic does not
	meanLossU, meanLossR := make([]float64, 32), make([]float64, 32)
	otherU, otherR := make([]float64, 32), make([]float64, 32)
	for i := range 32 {
		meanLossU[i] = 0.10 + float64(i%8)/1000 // the deleted records are still fitted
		meanLossR[i] = 0.30 + float64(i%8)/1000
		otherU[i], otherR[i] = float64(i%5), float64(i%7)
	}
	res, _ := epsilon.Game{Delta: 1e-3}.Family([]epsilon.Statistic{
		{Name: "other", Pos: otherU, Neg: otherR},
		{Name: "mean loss", Pos: meanLossU, Neg: meanLossR},
	})
	fmt.Printf("decided by statistic %d: ε ≥ %.2f (unlearned if ≤ %.3f)\n", res.Chosen, res.Epsilon, res.Rule.Threshold)
	// Output: decided by statistic 1: ε ≥ 1.35 (unlearned if ≤ 0.204)
}

func ExampleRanks() {
	// one production model's mean loss on the deleted records against 64 retrains
	retrains := make([]float64, 64)
	for i := range retrains {
		retrains[i] = 0.30 + float64(i)/1000
	}
	rt, _ := epsilon.Ranks([]float64{0.12}, retrains, 1, 1e-3, 0.95, rand.New(rand.NewPCG(1, 2)))
	fmt.Printf("p = %.4f ≤ t = %.4f: violated %v\n", rt.Min, rt.Threshold, rt.Violated)
	// Output: p = 0.0104 ≤ t = 0.0180: violated true
}
