package d2d_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"github.com/unlearnaudit/unlearnaudit/retrain"
)

// benchData is 12,000 × 784 synthetic classification data: MNIST-sized rows, six times
// as many as the 3-vs-8 pair.
func benchData(b *testing.B) (*reference.Dataset, reference.Logistic, float64) {
	b.Helper()
	ds, err := reference.SyntheticClassification(12000, 784, 1)
	if err != nil {
		b.Fatal(err)
	}
	loss := reference.Logistic{Lambda: 0.05}
	return ds, loss, ds.MaxRowNorm() / (2 * loss.Lambda)
}

// request i of a stream that keeps n fixed: delete a record, then add it back.
func request(ds *reference.Dataset, i int) reference.Update {
	row := (i / 2) % ds.Len()
	if i%2 == 0 {
		return reference.DeleteID(ds.ID(row))
	}
	return reference.AddRecord(ds.Record(row))
}

// BenchmarkUpdate is the cost of one unlearning request for every variant on 12,000 × 784
// data, in time and in per-example gradient evaluations (grads/op), beside the two ways
// of retraining from scratch: the learner's own recipe (Algorithm 1 on the new data) and
// the exact minimiser (Newton). Distributed descent reports how many of its K partitions
// an update touched. The weak variant's update i costs i^{2ξ}·I iterations; its first
// update is timed.
func BenchmarkUpdate(b *testing.B) {
	ds, loss, radius := benchData(b)
	ctx := context.Background()
	n, d := ds.Dims()
	for _, mode := range []d2d.Mode{d2d.SecretState, d2d.Perfect, d2d.ConvexStrong, d2d.ConvexWeak} {
		f := reference.Loss(loss)
		if mode.Convex() {
			f = reference.Logistic{}
		}
		p := d2d.Params{Constants: f.Constants(ds, radius), Radius: radius, N: n, Dim: d, Budget: 10, Epsilon: 1, Delta: 1e-6}
		if mode == d2d.Perfect {
			p.Budget = max(p.Budget, p.PerfectMinBudget())
		}
		plan, err := d2d.NewPlan(mode, p)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(mode.String(), func(b *testing.B) {
			r := reference.Stream(1, 0, "bench")
			m, err := d2d.Learn(ctx, plan, f, ds, r)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			if mode == d2d.ConvexWeak { // cost grows with i: time update 1 of a fresh model
				var grads int64
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					m, _ = d2d.Learn(ctx, plan, f, ds, r)
					start := m.GradientEvaluations()
					runtime.GC() // the discarded model's copy of the data is not this update's cost
					b.StartTimer()
					if err := m.Update(ctx, request(ds, 0), r); err != nil {
						b.Fatal(err)
					}
					grads += m.GradientEvaluations() - start
				}
				b.ReportMetric(float64(grads)/float64(b.N), "grads/op")
				return
			}
			start, i := m.GradientEvaluations(), 0
			for b.Loop() {
				if err := m.Update(ctx, request(ds, i), r); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(m.GradientEvaluations()-start)/float64(i), "grads/op")
		})
		if mode == d2d.SecretState {
			b.Run("retrain-recipe/"+mode.String(), func(b *testing.B) {
				r := reference.Stream(1, 0, "bench")
				b.ReportAllocs()
				var grads int64
				for b.Loop() {
					m, err := d2d.Learn(ctx, plan, f, ds, r)
					if err != nil {
						b.Fatal(err)
					}
					grads = m.GradientEvaluations()
				}
				b.ReportMetric(float64(grads), "grads/op")
			})
		}
	}
	b.Run("retrain-exact-erm", func(b *testing.B) {
		obj := loss.Objective(ds)
		b.ReportAllocs()
		var steps int
		for b.Loop() {
			res, err := retrain.Minimize(obj, radius, retrain.Options{})
			if err != nil {
				b.Fatal(err)
			}
			steps = res.NewtonSteps
		}
		b.ReportMetric(float64(steps), "newton-steps")
	})
	b.Run("distributed", func(b *testing.B) {
		plan, err := d2d.NewDistPlan(d2d.DistParams{Constants: loss.Constants(ds, radius), Radius: radius, N: n, Dim: d, Xi: 1.2, Budget: 1,
			Epsilon: 1, Delta: 1e-6, Schedule: d2d.FixedSchedule})
		if err != nil {
			b.Fatal(err)
		}
		r := reference.Stream(1, 0, "bench")
		m, err := d2d.LearnDistributed(ctx, plan, loss, ds, r)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		start, i, touched := m.GradientEvaluations(), 0, 0
		for b.Loop() {
			if err := m.Update(ctx, request(ds, i), r); err != nil {
				b.Fatal(err)
			}
			touched += len(m.Touched(0))
			i++
		}
		b.ReportMetric(float64(m.GradientEvaluations()-start)/float64(i), "grads/op")
		b.ReportMetric(float64(touched)/float64(i), "partitions/op")
		b.ReportMetric(float64(plan.K), "K")
	})
}
