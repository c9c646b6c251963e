package estimate_test

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/estimate"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

func ExampleProjected() {
	// 400 published models of each kind in 50 dimensions, noise σ = 1, means 0.5 apart:
	// the true D₂ is 2·0.5²/2 = 0.25
	r := reference.Stream(1, 0, "example")
	unlearned, retrained := mat.NewDense(400, 50, nil), mat.NewDense(400, 50, nil)
	for i := range 400 {
		reference.FillNormal(unlearned.RawRowView(i), 1, r)
		reference.FillNormal(retrained.RawRowView(i), 1, r)
		unlearned.Set(i, 0, unlearned.At(i, 0)+0.5)
	}
	e, _ := estimate.Projected(unlearned, retrained, estimate.Options{Alpha: 2, Covariance: estimate.Pooled, Seed: 1})
	fmt.Printf("D₂ ≈ %.2f, 95%% interval [%.2f, %.2f]\n", e.Value, e.Interval.Lower, e.Interval.Upper)
	// Output: D₂ ≈ 0.21, 95% interval [0.08, 0.41]
}
