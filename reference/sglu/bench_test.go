package sglu_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/unlearnaudit/unlearnaudit/internal/ars"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/ensemble"
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

// BenchmarkFullEpoch times whole SGLU trial-epochs — gradients, noise, step and
// projection — at the paper's MNIST scale (11 264 × 784, rows of norm 1, L2-logistic,
// η = 1/L, σ = 0.03, R = 100): one Model alone, and Ensembles (LearnOrderedEnsemble, and
// LearnOrderedEnsemble32 for float32 gradients) of k = 8, 32, 128 runs in lockstep, at full
// batch and at b = 512, 128 and 32 (the paper's Fig. 3d); "2workers" runs two ensembles of
// 32 on two goroutines (two cores), at full batch and b = 128.
// Each reports ns a trial-epoch and its ratios, measured in the same run, to one streaming
// read of the float64 data (x-stream) and to the FLOP limit, 4·n·d flops a trial-epoch
// at this core's FMA peak (x-peak; float32's limit is half float64's; two workers have two
// cores). "noise-k=32" draws exactly the noise the k = 32 ensemble draws in an epoch
// (ars.FillWideRows32 of the runs' keys at each step, into the ensemble's k × d
// buffer) and reports its share of that epoch's time, measured just before; "grad-k=32" and
// "grad32-k=32" are the epoch's gradients alone (ensemble.LogisticGradient,
// LogisticGradient32); "update-k=32" and "update32-k=32" the epoch's updates alone
// (ensemble.NoisyStep, NoisyStep32, on buffers of the k = 32 ensemble's shape), with
// "share" as the noise's.
func BenchmarkFullEpoch(b *testing.B) {
	const n, d = 11264, 784
	ds, err := reference.SyntheticClassification(n, d, 1)
	if err != nil {
		b.Fatal(err)
	}
	ds = ds.NormalizeRows()
	X := ds.Features().RawMatrix().Data
	X32 := make([]float32, len(X))
	for i, v := range X {
		X32[i] = float32(v)
	}
	stream := ensemble.StreamSeconds(X, 20)
	var peak float64 // the best of ten: on a loaded machine one measurement can fall far short
	for range 10 {
		peak = max(peak, ensemble.PeakFLOPS(40*time.Millisecond))
	}
	limit := 4 * n * d / peak // seconds a trial-epoch at the FLOP peak, float64, one core
	b.Logf("stream once: %.3g ms (%.1f GB/s); FMA peak %.1f GFLOP/s (assembly %v): FLOP limit %.3g ms a trial-epoch",
		1e3*stream, float64(8*len(X))/stream/1e9, peak/1e9, ensemble.HasAsm, 1e3*limit)
	loss := reference.Logistic{Lambda: 1e-6 * n}
	L := 0.25 + loss.Lambda
	params := func(batch int) sglu.Params {
		return sglu.Params{Problem: sglu.Problem{Smoothness: L, Lipschitz: 1, StrongConvexity: loss.Lambda, StepSize: 1 / L, N: n, Batch: batch, Radius: 100},
			Sigma: 0.03, Epochs: 0, Init: sglu.ZeroInit}
	}
	streams := func(k int) []*rand.Rand {
		rs := make([]*rand.Rand, k)
		for t := range rs {
			rs[t] = reference.Stream(1, t, "bench")
		}
		return rs
	}
	perTrial := func(b *testing.B, trials int) float64 {
		return b.Elapsed().Seconds() / float64(b.N) / float64(trials)
	}
	report := func(b *testing.B, per, limit float64) {
		b.ReportMetric(per*1e9, "ns/trial-epoch")
		b.ReportMetric(per/stream, "x-stream")
		b.ReportMetric(per/limit, "x-peak")
		b.ReportMetric(0, "ns/op")
	}
	ctx := context.Background()
	for _, batch := range []int{n, 512, 128, 32} {
		name := "full"
		if batch < n {
			name = fmt.Sprintf("b=%d", batch)
		}
		p := params(batch)
		b.Run(name+"/single", func(b *testing.B) {
			m, err := sglu.LearnOrdered(ctx, p, loss, ds, reference.Stream(1, 0, "bench"))
			if err != nil {
				b.Fatal(err)
			}
			r := reference.Stream(1, 0, "bench")
			b.ReportAllocs()
			for b.Loop() {
				if err := m.Epochs(ctx, 1, r); err != nil {
					b.Fatal(err)
				}
			}
			report(b, perTrial(b, 1), limit)
		})
		var epoch32 float64 // the float64 k = 32 epoch's time a trial, for the noise's share
		for _, f32 := range []bool{false, true} {
			learn, prec, lim := sglu.LearnOrderedEnsemble, "", limit
			if f32 {
				learn, prec, lim = sglu.LearnOrderedEnsemble32, "32", limit/2
			}
			for _, k := range []int{8, 32, 128} {
				b.Run(fmt.Sprintf("%s/lockstep%s-k=%d", name, prec, k), func(b *testing.B) {
					e, err := learn(ctx, p, loss, ds, streams(k))
					if err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					for b.Loop() {
						if err := e.Epochs(ctx, 1); err != nil {
							b.Fatal(err)
						}
					}
					per := perTrial(b, k)
					if !f32 && k == 32 {
						epoch32 = per
					}
					report(b, per, lim)
				})
			}
			if batch != n && batch != 128 {
				continue // two workers at full batch and b = 128 only: the two-core table's
			}
			b.Run(fmt.Sprintf("%s/lockstep%s-k=32-2workers", name, prec), func(b *testing.B) {
				var es [2]*sglu.Ensemble
				for w := range es {
					if es[w], err = learn(ctx, p, loss, ds, streams(32)); err != nil {
						b.Fatal(err)
					}
				}
				for b.Loop() {
					var wg sync.WaitGroup
					for _, e := range es {
						wg.Go(func() {
							if err := e.Epochs(ctx, 1); err != nil {
								panic(err)
							}
						})
					}
					wg.Wait()
				}
				report(b, perTrial(b, 64), lim/2)
			})
		}
		for _, f32 := range []bool{false, true} {
			prec, lim := "", limit
			if f32 {
				prec, lim = "32", limit/2
			}
			b.Run(name+"/grad"+prec+"-k=32", func(b *testing.B) {
				const k = 32
				Theta, G := make([]float64, d*k), make([]float64, d*k)
				Theta32, G32 := make([]float32, d*k), make([]float32, d*k)
				y := ds.Labels()
				y32 := make([]float32, n)
				for i, v := range y {
					y32[i] = float32(v)
				}
				for b.Loop() {
					for lo := 0; lo+batch <= n; lo += batch {
						if f32 {
							ensemble.LogisticGradient32(G32, X32[lo*d:(lo+batch)*d], y32[lo:lo+batch], Theta32, batch, d, k, float32(loss.Lambda))
						} else {
							ensemble.LogisticGradient(G, X[lo*d:(lo+batch)*d], y[lo:lo+batch], Theta, batch, d, k, loss.Lambda)
						}
					}
				}
				report(b, perTrial(b, k), lim)
			})
		}
		for _, f32 := range []bool{false, true} {
			prec := ""
			if f32 {
				prec = "32"
			}
			b.Run(name+"/update"+prec+"-k=32", func(b *testing.B) {
				const k = 32
				theta, g, norm2 := make([]float64, d*k), make([]float64, d*k), make([]float64, k)
				z, theta32, g32 := make([]float32, k*d), make([]float32, d*k), make([]float32, d*k)
				sd := math.Sqrt(2*p.StepSize) * p.Sigma
				for i := range theta {
					theta[i], z[i], g[i] = 1e-3*float64(i%11), float32(i%7-3), 1e-3*float64(i%5)
					g32[i] = float32(g[i])
				}
				b.ReportAllocs()
				for b.Loop() {
					for range n / batch {
						clear(norm2)
						if f32 {
							ensemble.NoisyStep32(theta, theta32, z, sd, g32, norm2, d, k, p.StepSize)
						} else {
							ensemble.NoisyStep(theta, z, sd, g, norm2, d, k, p.StepSize)
						}
					}
				}
				per := perTrial(b, k)
				report(b, per, limit)
				if epoch32 > 0 {
					b.ReportMetric(per/epoch32, "share")
				}
			})
		}
		b.Run(name+"/noise-k=32", func(b *testing.B) {
			const k = 32
			keys, z := make([]uint64, k), make([]float32, k*d)
			for t, r := range streams(k) {
				keys[t] = r.Uint64()
			}
			b.ReportAllocs()
			for b.Loop() {
				for s := range uint32(n / batch) {
					ars.FillWideRows32(z, d, keys, 0, s)
				}
			}
			per := perTrial(b, k)
			report(b, per, limit)
			if epoch32 > 0 {
				b.ReportMetric(per/epoch32, "share")
			}
		})
	}
}
