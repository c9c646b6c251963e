package retrain_test

import (
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/retrain"
)

func ExampleMinimize() {
	ds, _ := reference.SyntheticClassification(500, 10, 1)
	obj := reference.Logistic{Lambda: 0.01}.Objective(ds)
	free, _ := retrain.Minimize(obj, math.Inf(1), retrain.Options{})
	ball, _ := retrain.Minimize(obj, 1, retrain.Options{})
	fmt.Printf("unconstrained ‖θ*‖ = %.3f; on the unit ball ‖θ*‖ = %.3f (on the sphere: %v, residual < 1e-10: %v)\n",
		reference.Norm(free.Theta), reference.Norm(ball.Theta), ball.OnBoundary, ball.Residual < 1e-10)
	// Output: unconstrained ‖θ*‖ = 3.731; on the unit ball ‖θ*‖ = 1.000 (on the sphere: true, residual < 1e-10: true)
}
