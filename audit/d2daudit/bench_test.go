package d2daudit_test

import (
	"context"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"

	"github.com/unlearnaudit/unlearnaudit/audit/d2daudit"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
)

// BenchmarkTrial is one D2D audit trial — learn, serve five requests, publish, and retrain
// from scratch, publish — on the demo's synthetic data (1000 × 20) and on MNIST-sized data
// (2000 × 784). Outside Perfect mode the subject descends once, on the first trial, and
// every trial after it only publishes (Subject.Unlearned): run it for a second or more so
// the once-only descent does not count.
func BenchmarkTrial(b *testing.B) {
	for _, c := range []struct {
		name string
		n, d int
	}{{"1000x20", 1000, 20}, {"2000x784", 2000, 784}} {
		ds, err := reference.SyntheticClassification(c.n, c.d, 1)
		if err != nil {
			b.Fatal(err)
		}
		loss := reference.Logistic{Lambda: 0.05}
		ups := []reference.Update{reference.DeleteID(0), reference.AddRecord(reference.Record{ID: -1, X: ds.Row(5), Y: 1}),
			reference.DeleteID(9), reference.DeleteID(-1), reference.DeleteID(11)}
		for _, mode := range []d2d.Mode{d2d.SecretState, d2d.Perfect} {
			p := d2d.Params{Constants: loss.Constants(ds, 10), Radius: 10, Budget: 10, Epsilon: 1, Delta: 1e-6, Dim: c.d}
			if mode == d2d.Perfect {
				p.Budget = max(p.Budget, p.PerfectMinBudget())
			}
			s, err := d2daudit.New(context.Background(), d2daudit.Setup{Mode: mode, Loss: loss, Data: ds, Updates: ups, Params: p})
			if err != nil {
				b.Fatal(err)
			}
			b.Run(c.name+"/"+mode.String(), func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if _, err := trials.RunTrial(context.Background(), s, 1, i); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}
