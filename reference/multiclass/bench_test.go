package multiclass

import (
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas/blas64"
)

// The softmax Hessian–vector product on 12,000 × 784 (an MNIST-sized block, K = 10)
// against the floor measured in the same run: the time to stream the features once
// (summing them). The fused pass reads each row once and does 6·p·K flops on it (logits,
// their derivative along v, the outer product back), so at K = 10 it is compute-bound on
// one core: about ten streams, against hundreds for a row-at-a-time product that reread W
// from memory; the metric "streams" is that ratio, and nothing may be allocated.
func BenchmarkSoftmaxHVP(b *testing.B) {
	const n, p, k = 12000, 784, 10
	r := rand.New(rand.NewPCG(1, 2))
	x := blas64.General{Rows: n, Cols: p, Stride: p, Data: make([]float64, n*p)}
	for i := range x.Data {
		x.Data[i] = r.Float64()
	}
	s := Softmax{K: k, P: p, Lambda: 0.5}
	w, v, dst := make([]float64, s.Dim()), make([]float64, s.Dim()), make([]float64, s.Dim())
	for i := range w {
		w[i], v[i] = 0.01*r.NormFloat64(), r.NormFloat64()
	}
	batch := s.NewBatch(n)
	stream := func() time.Duration { // best of five: the floor
		best := time.Duration(1 << 62)
		for range 5 {
			start, sum := time.Now(), 0.0
			for _, f := range x.Data {
				sum += f
			}
			if sum < 0 {
				b.Fatal("negative sum of uniforms")
			}
			best = min(best, time.Since(start))
		}
		return best
	}
	floor := stream()
	b.ReportAllocs()
	b.SetBytes(int64(n * p * 8))
	for b.Loop() {
		batch.HVP(dst, w, x, v)
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(floor), "streams")
}
