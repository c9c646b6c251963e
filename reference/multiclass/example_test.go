package multiclass_test

import (
	"context"
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/mat"
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

// The exact minimiser of a softmax model's summed loss plus a linear term, found by
// truncated Newton steps on Hessian–vector products: a handful of steps to a mean
// gradient of 1e-10. The data are symmetric, so the biases stay at zero; the linear term
// on the first class's weight pulls it down.
func ExampleMinimize() {
	x := mat.NewDense(4, 1, []float64{-2, -1, 1, 2})
	data, _ := multiclass.NewData(x, []int{0, 0, 1, 1}, 2)
	m := multiclass.Softmax{K: 2, P: 1, Lambda: 0.1}
	o, _ := multiclass.NewObjective(m, data, nil, []float64{0.5, 0, 0, 0})
	res, err := multiclass.Minimize(context.Background(), o, nil, multiclass.MinimizeOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("W = %.4f, |b| < 1e-12: %v\n", res.W[:2], math.Abs(res.W[2])+math.Abs(res.W[3]) < 1e-12)
	fmt.Printf("‖∇F‖ ≤ 4e-10: %v\n", res.Residual <= 4e-10)
	// Output:
	// W = [-1.7887 0.5387], |b| < 1e-12: true
	// ‖∇F‖ ≤ 4e-10: true
}
