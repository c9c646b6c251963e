package sglu_test

import (
	"context"
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/sglu"
)

// Learn on 256 records with mini-batches of 32, then serve one removal with the epochs
// the accountant says meet (1, 1/n)-unlearning.
func Example() {
	ctx := context.Background()
	ds, _ := reference.SyntheticClassification(256, 5, 1)
	ds = ds.NormalizeRows()
	const lambda = 0.05
	p := sglu.Params{Problem: sglu.Problem{Smoothness: 0.25 + lambda, Lipschitz: 1, StrongConvexity: lambda,
		StepSize: 1 / (0.25 + lambda), N: 256, Batch: 32, Radius: math.Inf(1)}, Sigma: 0.05, Epochs: 20}
	r := reference.Stream(1, 0, "example")
	m, err := sglu.Learn(ctx, p, reference.Logistic{Lambda: lambda, Clip: 1}, ds, r)
	if err != nil {
		fmt.Println(err)
		return
	}
	acct := sglu.Accountant{Problem: p.Problem, Target: 1, Delta: 1.0 / 256, Sigma: p.Sigma, Alphas: sglu.DefaultAlphas}
	K, eps, err := acct.Next()
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := m.Unlearn(ctx, ds.ID(0), K, r); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("K = %d epochs certify ϵ = %.3f; the model has run %d epochs\n", K, eps, m.EpochsRun())
	// Output: K = 2 epochs certify ϵ = 0.549; the model has run 22 epochs
}
