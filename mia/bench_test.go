package mia_test

import (
	"testing"

	"github.com/unlearnaudit/unlearnaudit/mia"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkLiRAScoring is the size: 64 shadow models × 2 000 examples, with
// MNIST-sized features (784): scoring every model on every example (one matrix product),
// fitting the per-example Gaussians, and the membership statistic of one target model.
// Scoring and the statistic allocate nothing per model or example.
func BenchmarkLiRAScoring(b *testing.B) {
	const m, n, d = 64, 2000, 784
	ds, _ := reference.SyntheticClassification(n, d, 1)
	loss := reference.Logistic{Lambda: 0.01}
	r := reference.Stream(1, 0, "bench")
	models := mat.NewDense(m, d, nil)
	reference.FillNormal(models.RawMatrix().Data, 0.1, r)
	in := make([][]bool, m)
	for i := range in {
		in[i] = make([]bool, n)
		for k := range n {
			in[i][k] = (i+k)%2 == 0
		}
	}
	scores := mat.NewDense(m, n, nil)
	b.Run("Scores", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			mia.Scores(scores, mia.Confidence, loss, models, ds)
		}
	})
	b.Run("Fit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := mia.FitLiRA(scores, in, mia.LiRAOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	l, _ := mia.FitLiRA(scores, in, mia.LiRAOptions{})
	stat := make([]float64, n)
	target := scores.RawRowView(0)
	b.Run("Statistic", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			l.Statistic(stat, target)
		}
	})
}

func BenchmarkEvaluate(b *testing.B) {
	r := reference.Stream(1, 0, "bench")
	pos, neg := make([]float64, 64000), make([]float64, 64000)
	for i := range pos {
		pos[i] = 0.3 + r.NormFloat64()
		neg[i] = r.NormFloat64()
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := mia.Evaluate(pos, neg, 200, 0.95, 1); err != nil {
			b.Fatal(err)
		}
	}
}
