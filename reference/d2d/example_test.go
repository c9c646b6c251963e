package d2d_test

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
)

// A plan turns a deployment's constants and its (ε, δ) into the noise and iterations of
// each mode: secret state keeps an exact state and publishes noisy copies of it; perfect
// mode keeps only what it publishes, so each update descends further, with less noise.
func ExampleNewPlan() {
	ds, err := reference.SyntheticClassification(500, 10, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	loss := reference.Logistic{Lambda: 0.05}
	p := d2d.Params{Constants: loss.Constants(ds, 10), Radius: 10, N: ds.Len(), Dim: ds.Dim(), Budget: 10, Epsilon: 1, Delta: 1e-6}
	for _, mode := range []d2d.Mode{d2d.SecretState, d2d.Perfect} {
		q := p
		if mode == d2d.Perfect {
			q.Budget = q.PerfectMinBudget()
		}
		plan, err := d2d.NewPlan(mode, q)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: σ = %.4g, %d learning iterations, %d per update\n", mode, plan.Sigma, plan.LearnIterations(ds.Len()), plan.UpdateIterations(1))
	}
	// Output:
	// strongly-convex: σ = 0.09196, 26 learning iterations, 10 per update
	// perfect: σ = 0.02486, 32 learning iterations, 25 per update
}
