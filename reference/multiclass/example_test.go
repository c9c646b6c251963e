package multiclass_test

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
)

// A softmax model's gradient and Hessian–vector product on one example: with all weights
// zero the three classes are equally likely, so the gradient moves the label's class up
// and the others down, and the Hessian acts on a direction through the probabilities'
// covariance.
func ExampleSoftmax() {
	m := multiclass.Softmax{K: 3, P: 2, Lambda: 0.1}
	w := make([]float64, m.Dim()) // W (3 × 2) row by row, then b (3)
	x := []float64{1, 2}
	g := make([]float64, m.Dim())
	m.Gradient(g, w, x, 0)
	fmt.Printf("loss %.4f\n", m.Loss(w, x, 0))
	fmt.Printf("∇_W %.3f\n∇_b %.3f\n", g[:6], g[6:])
	v := []float64{1, 0, 0, 0, 0, 0, 0, 0, 0} // move W₁₁ only
	hv := make([]float64, m.Dim())
	m.HVP(hv, w, x, 0, v)
	fmt.Printf("Hv  %.3f\n", hv)
	// Output:
	// loss 1.0986
	// ∇_W [-0.667 -1.333 0.333 0.667 0.333 0.667]
	// ∇_b [-0.667 0.333 0.333]
	// Hv  [0.322 0.444 -0.111 -0.222 -0.111 -0.222 0.222 -0.111 -0.111]
}
