package mia_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

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
	pos, neg := benchScores(64000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := mia.Evaluate(pos, neg, 200, 0.95, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFitSVC is SAFE's membership attack at this toolkit's size: an RBF SVC on 1 000
// sorted ten-class softmax vectors (500 members, 500 non-members), kernel matrix included;
// "kernel-ms" is the time to fill the n² kernel once, measured in the same run.
func BenchmarkFitSVC(b *testing.B) {
	const n, dim = 1000, 10
	r := reference.Stream(1, 0, "bench")
	x := make([][]float64, n)
	pos := make([]bool, n)
	for i := range x {
		x[i] = make([]float64, dim)
		pos[i] = i%2 == 0
		s := 0.0
		for j := range dim {
			x[i][j] = math.Exp(r.NormFloat64() + 0.3*float64(j)*boolF(pos[i]))
			s += x[i][j]
		}
		for j := range dim {
			x[i][j] /= s
		}
		slices.Sort(x[i])
	}
	start := time.Now()
	sink := 0.0
	for i := range n {
		for j := range n {
			d := 0.0
			for k := range dim {
				e := x[i][k] - x[j][k]
				d += e * e
			}
			sink += math.Exp(-d)
		}
	}
	kernel := time.Since(start)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := mia.FitSVC(context.Background(), x, pos, mia.SVCOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(kernel.Microseconds())/1000+0*sink, "kernel-ms")
}

func boolF(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// BenchmarkEvaluateAUC is the membership check's bootstrap of one record at 100 000 trials
// and at 651 823 (the decisive SGLU spec's count at δ = 10⁻⁶, where the counts outgrow L2).
func BenchmarkEvaluateAUC(b *testing.B) {
	for _, n := range []int{100_000, 651_823} {
		b.Run(fmt.Sprintf("trials=%d", n), func(b *testing.B) {
			pos, neg := benchScores(n)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := mia.EvaluateAUC(pos, neg, 200, 0.95, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchScores are n member scores N(0.3, 1) and n non-member scores N(0, 1).
func benchScores(n int) (pos, neg []float64) {
	r := reference.Stream(1, 0, "bench")
	pos, neg = make([]float64, n), make([]float64, n)
	for i := range pos {
		pos[i] = 0.3 + r.NormFloat64()
		neg[i] = r.NormFloat64()
	}
	return pos, neg
}
