package hf_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/unlearnaudit/unlearnaudit/reference/hf"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/mat"
)

// HF on a small softmax problem: learn, compute the statistics, delete two records, and
// compare the unlearned model with the paper's retraining without them: a second-order
// error, 2 % of the change at η·M ≈ 0.1.
func Example() {
	r := rand.New(rand.NewPCG(1, 2))
	data, p, k := exampleData(r)
	m := multiclass.Softmax{K: k, P: p, Lambda: 0.1}
	ctx := context.Background()
	tr, _ := hf.Learn(ctx, hf.Config{Model: m, Epochs: 3, BatchSize: 8, Eta: 0.02, Decay: 0.99}, data, make([]float64, m.Dim()), r)
	stats, _ := tr.Statistics(ctx, data, nil, hf.PaperOrder)
	u := hf.NewUnlearner(tr, stats)
	if err := u.Delete(5, 17); err != nil {
		fmt.Println(err)
		return
	}
	retrained, _ := tr.Retrain(ctx, data, []int{5, 17}, hf.PaperRule, nil)
	dist := func(a, b []float64) float64 {
		s := 0.0
		for i := range a {
			s += (a[i] - b[i]) * (a[i] - b[i])
		}
		return math.Sqrt(s)
	}
	fmt.Printf("deleting moves the model by %.4f\n", dist(retrained, tr.Final))
	fmt.Printf("HF is %.1e from the retrained model\n", dist(retrained, u.Model()))
	fmt.Println(u.Delete(5))
	// Output:
	// deleting moves the model by 0.0254
	// HF is 5.5e-04 from the retrained model
	// hf delete: row 5: record already deleted
}

// Guo et al.'s certified removal on the same kind of problem: train on the loss plus a
// random linear term bᵀw, remove two records by one Newton step, and read what the
// request cost the certificate — a bound on the gradient residual, charged against the
// budget σε/c. The true residual, which the mechanism never releases, is below it.
func ExampleGuo() {
	r := rand.New(rand.NewPCG(1, 2))
	data, p, k := exampleData(r)
	ctx := context.Background()
	g, err := hf.NewGuo(ctx, hf.GuoConfig{Model: multiclass.Softmax{K: k, P: p, Lambda: 0.1}, Sigma: 10, Epsilon: 1, Delta: 1e-4}, data, r)
	if err != nil {
		fmt.Println(err)
		return
	}
	rem, err := g.Delete(ctx, 5, 17)
	if err != nil {
		fmt.Println(err)
		return
	}
	residual, _ := g.Residual()
	fmt.Printf("budget %.4f, spent %.4f (retrained: %v)\n", g.Budget(), rem.Spent, rem.Retrained)
	fmt.Printf("true residual below the bound: %v\n", residual <= rem.Spent)
	fmt.Printf("certified ε so far: %.3f\n", g.Epsilon())
	// Output:
	// budget 2.2803, spent 1.5132 (retrained: false)
	// true residual below the bound: true
	// certified ε so far: 0.664
}

// exampleData is 60 rows of 3 features in 3 classes whose means differ along the
// features.
func exampleData(r *rand.Rand) (data *multiclass.Data, p, k int) {
	n := 60
	p, k = 3, 3
	x := mat.NewDense(n, p, nil)
	y := make([]int, n)
	for i := range n {
		y[i] = i % k
		for j := range p {
			x.Set(i, j, r.NormFloat64()+float64(y[i]*j)/2)
		}
	}
	data, _ = multiclass.NewData(x, y, k)
	return data, p, k
}
