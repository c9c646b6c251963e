package retrain_test

import (
	"math"
	"path/filepath"
	"time"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/retrain"
)

// The oracle on MNIST-sized logistic regression: interior (λ > 0) and on the sphere without
// regularisation, where the classes separate and only the ball gives a minimiser.
func BenchmarkMinimize(b *testing.B) {
	ds, err := reference.SyntheticClassification(2000, 200, 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		loss   reference.Logistic
		radius float64
	}{{"interior-lambda0.05", reference.Logistic{Lambda: 0.05}, 100}, {"sphere-lambda0", reference.Logistic{}, 10}} {
		b.Run(c.name, func(b *testing.B) {
			obj := c.loss.Objective(ds)
			var steps, hvs int
			for b.Loop() {
				res, err := retrain.Minimize(obj, c.radius, retrain.Options{})
				if err != nil {
					b.Fatal(err)
				}
				steps, hvs = res.NewtonSteps, res.HessVecs
			}
			b.ReportMetric(float64(steps), "newton-steps")
			b.ReportMetric(float64(hvs), "hess-vecs")
		})
	}
}

// The ERM benchmark of the README (bench/erm.sh runs it beside liblinear): exact L2-logistic
// regression on Fashion-MNIST 7 vs 9 (12,000 × 784, rows of norm 1) at λ = 1e-6·n, the
// SGLU experiments' problem, to ‖∇f‖ ≤ 1e-10 from θ = 0. pass-ms is the time of one
// gradient (one pass over X) in the same run, the floor the solver's time is a multiple of.
func BenchmarkFashionMNISTERM(b *testing.B) {
	ds, _, err := reference.LoadIDXClasses(filepath.Join(testenv.FashionMNIST(b), "train-images-idx3-ubyte.gz"), 7, 9, reference.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	loss := reference.Logistic{Lambda: 1e-6 * float64(ds.Len())}
	obj := loss.Objective(ds)
	g := make([]float64, ds.Dim())
	theta := make([]float64, ds.Dim())
	const passes = 20
	start := time.Now()
	for range passes {
		obj.Gradient(g, theta)
	}
	pass := time.Since(start) / passes
	var res retrain.Result
	for b.Loop() {
		if res, err = retrain.Minimize(obj, math.Inf(1), retrain.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	obj.Gradient(g, res.Theta)
	b.ReportMetric(reference.Norm(g)/1e-10, "grad/1e-10")
	b.ReportMetric(float64(res.NewtonSteps), "newton-steps")
	b.ReportMetric(float64(res.HessVecs), "hess-vecs")
	b.ReportMetric(float64(pass.Microseconds())/1000, "pass-ms")
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(pass), "passes")
}
