package sglu_test

import (
	"context"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/sglu"
	"gonum.org/v1/gonum/floats"
)

// BenchmarkEpoch is one epoch of PNSGD at the paper's MNIST scale: n = 11,264 rows,
// d = 784, b = 128 (88 steps) and full batch. The data are 11,264 × 784 × 8 B = 70.6 MB,
// read from memory once per epoch; the bytes/op metric is that traffic. "read-floor"
// streams the same 70.6 MB once (a dot product of the matrix with itself): the memory
// bandwidth cost an epoch cannot go below, measured in the same run.
func BenchmarkEpoch(b *testing.B) {
	b.Run("read-floor", func(b *testing.B) {
		ds, err := reference.SyntheticClassification(11264, 784, 1)
		if err != nil {
			b.Fatal(err)
		}
		raw := ds.Features().RawMatrix().Data
		b.SetBytes(int64(8 * len(raw)))
		var s float64
		for b.Loop() {
			s += floats.Dot(raw, raw)
		}
		_ = s
	})
	for _, batch := range []int{128, 11264} {
		b.Run(map[int]string{128: "b=128", 11264: "full"}[batch], func(b *testing.B) {
			const n, d = 11264, 784
			ds, err := reference.SyntheticClassification(n, d, 1)
			if err != nil {
				b.Fatal(err)
			}
			ds = ds.NormalizeRows()
			loss := reference.Logistic{Lambda: 1e-6 * n}
			L := 0.25 + loss.Lambda
			p := sglu.Params{Problem: sglu.Problem{Smoothness: L, Lipschitz: 1, StrongConvexity: loss.Lambda, StepSize: 1 / L, N: n, Batch: batch, Radius: 100},
				Sigma: 0.03, Epochs: 0, Init: sglu.ZeroInit}
			r := reference.Stream(1, 0, "bench")
			m, err := sglu.LearnOrdered(context.Background(), p, loss, ds, r)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(n * d * 8)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := m.Epochs(context.Background(), 1, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
