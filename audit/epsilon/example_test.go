package epsilon_test

import (
	"fmt"

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
	g := epsilon.Game{Delta: 1e-5, Strategy: epsilon.Bonferroni}
	res, _ := g.LowerBound(unlearned, retrained)
	fmt.Printf("ε ≥ %.3f at 95%% confidence (rule: score ≥ %.2f)\n", res.Epsilon, res.Rule.Threshold)
	// perfect separation: the bound is the resolution of 50 trials, no more
	fmt.Printf("resolution of 50 trials: %.3f\n", epsilon.MaxCertifiable(50, 1e-5, 0.95, epsilon.Bonferroni))
	// Output:
	// ε ≥ 1.710 at 95% confidence (rule: score ≥ 2.00)
	// resolution of 50 trials: 1.710
}

func ExampleMaxCertifiable() {
	for _, n := range []int{100, 1000, 10000} {
		fmt.Printf("N = %5d: ε up to %.2f can be shown violated\n", n, epsilon.MaxCertifiable(n, 1e-5, 0.95, epsilon.Split))
	}
	// Output:
	// N =   100: ε up to 2.57 can be shown violated
	// N =  1000: ε up to 4.91 can be shown violated
	// N = 10000: ε up to 7.21 can be shown violated
}
