package retrain_test

import (
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
			var steps int
			for b.Loop() {
				res, err := retrain.Minimize(obj, c.radius, retrain.Options{})
				if err != nil {
					b.Fatal(err)
				}
				steps = res.NewtonSteps
			}
			b.ReportMetric(float64(steps), "newton-steps")
		})
	}
}
