package ensemble

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/unlearnaudit/unlearnaudit/reference"
)

// BenchmarkTrialEpoch times one trial-epoch of full-batch logistic gradients at the SGLU
// paper's MNIST scale (11 264 × 784, 70.6 MB of float64 features): one model alone
// (reference.Objective.Gradient), two models on two goroutines, and k = 8, 32, 128 models
// in lockstep, in float64 and float32. Each reports ns a trial-epoch and its ratios,
// measured in the same run, to the time to stream the float64 data once (x-stream) and to
// the FLOP limit, 4·n·d flops a trial-epoch at this core's measured FMA peak (x-peak; 1 is
// the ceiling; float32's peak is twice float64's, twice the lanes a register). Where the
// CPU has AVX-512, k = 32 also runs without its kernels (-avx2): what AVX2 alone gives.
func BenchmarkTrialEpoch(b *testing.B) {
	const n, d = 11264, 784
	ds, err := reference.SyntheticClassification(n, d, 1)
	if err != nil {
		b.Fatal(err)
	}
	ds = ds.NormalizeRows()
	X := ds.Features().RawMatrix().Data
	y := ds.Labels()
	stream := StreamSeconds(X, 20)
	peak := PeakFLOPS(200 * time.Millisecond)
	limit := 4 * n * d / peak // seconds a trial-epoch at the FLOP peak
	b.Logf("stream once: %.3g ms (%.1f GB/s); FMA peak %.1f GFLOP/s (assembly %v): FLOP limit %.3g ms a trial-epoch",
		1e3*stream, float64(8*len(X))/stream/1e9, peak/1e9, HasAsm, 1e3*limit)
	// report states a trial-epoch's time against the stream floor and the FLOP limit of
	// its precision (float32's is half float64's)
	reportAt := func(b *testing.B, trials int, limit float64) {
		per := b.Elapsed().Seconds() / float64(b.N) / float64(trials)
		b.ReportMetric(per*1e9, "ns/trial-epoch")
		b.ReportMetric(per/stream, "x-stream")
		b.ReportMetric(per/limit, "x-peak")
		b.ReportMetric(0, "ns/op")
	}
	report := func(b *testing.B, trials int) { reportAt(b, trials, limit) }
	loss := reference.Logistic{Lambda: 1e-6 * n}
	b.Run("single", func(b *testing.B) {
		obj := loss.Objective(ds)
		obj.SetStreaming(reference.StreamsFromMemory(n, d))
		theta, g := make([]float64, d), make([]float64, d)
		for b.Loop() {
			obj.Gradient(g, theta)
		}
		report(b, 1)
	})
	b.Run("two-workers", func(b *testing.B) {
		objs := [2]*reference.Objective{loss.Objective(ds), loss.Objective(ds)}
		for b.Loop() {
			var wg sync.WaitGroup
			for _, o := range objs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					o.SetStreaming(reference.StreamsFromMemory(n, d))
					theta, g := make([]float64, d), make([]float64, d)
					o.Gradient(g, theta)
				}()
			}
			wg.Wait()
		}
		report(b, 2)
	})
	for _, k := range []int{8, 32, 128} {
		b.Run(fmt.Sprintf("lockstep-k=%d", k), func(b *testing.B) {
			Theta, G := make([]float64, d*k), make([]float64, d*k)
			for i := range Theta {
				Theta[i] = 1e-3 * float64(i%7)
			}
			b.ReportAllocs()
			for b.Loop() {
				LogisticGradient(G, X, y, Theta, n, d, k, loss.Lambda)
			}
			report(b, k)
		})
	}
	// without the AVX-512 kernels, where the CPU has them: what a CPU with AVX2 alone gets
	if HasAsm && HasAVX512 {
		X32, y32 := to32(X), to32(y)
		for _, f32 := range []bool{false, true} {
			name, lim := "lockstep-k=32-avx2", limit
			if f32 {
				name, lim = "lockstep32-k=32-avx2", limit/2
			}
			b.Run(name, func(b *testing.B) {
				const k = 32
				HasAVX512 = false
				defer func() { HasAVX512 = true }()
				Theta, G := make([]float64, d*k), make([]float64, d*k)
				Theta32, G32 := make([]float32, d*k), make([]float32, d*k)
				b.ReportAllocs()
				for b.Loop() {
					if f32 {
						LogisticGradient32(G32, X32, y32, Theta32, n, d, k, float32(loss.Lambda))
					} else {
						LogisticGradient(G, X, y, Theta, n, d, k, loss.Lambda)
					}
				}
				reportAt(b, k, lim)
			})
		}
	}
	// the SGLU paper's mini-batches: an epoch of b = 128 steps (gradients only)
	b.Run("lockstep-b=128-k=32", func(b *testing.B) {
		const k, batch = 32, 128
		Theta, G := make([]float64, d*k), make([]float64, d*k)
		b.ReportAllocs()
		for b.Loop() {
			for lo := 0; lo+batch <= n; lo += batch {
				LogisticGradient(G, X[lo*d:(lo+batch)*d], y[lo:lo+batch], Theta, batch, d, k, loss.Lambda)
			}
		}
		report(b, k)
	})
	X32, y32 := to32(X), to32(y)
	for _, k := range []int{8, 32, 128} {
		b.Run(fmt.Sprintf("lockstep32-k=%d", k), func(b *testing.B) {
			Theta, G := make([]float32, d*k), make([]float32, d*k)
			for i := range Theta {
				Theta[i] = 1e-3 * float32(i%7)
			}
			b.ReportAllocs()
			for b.Loop() {
				LogisticGradient32(G, X32, y32, Theta, n, d, k, float32(loss.Lambda))
			}
			reportAt(b, k, limit/2)
		})
	}
}

// BenchmarkMiniBatch times an epoch of the SGLU paper's mini-batch gradients (11 264 × 784,
// batches of b contiguous rows in order, the gradients alone) at b = 32, 128, 512 and
// k = 8, 32, 128, float64 and float32: ns a trial-epoch and × the FLOP limit of its
// precision (4·n·d flops at this core's FMA peak, float32's half float64's), the per-call
// work (λΘ, the edges, the derivatives) included.
func BenchmarkMiniBatch(b *testing.B) {
	const n, d = 11264, 784
	ds, err := reference.SyntheticClassification(n, d, 1)
	if err != nil {
		b.Fatal(err)
	}
	ds = ds.NormalizeRows()
	X, y := ds.Features().RawMatrix().Data, ds.Labels()
	X32, y32 := to32(X), to32(y)
	var peak float64
	for range 5 {
		peak = max(peak, PeakFLOPS(40*time.Millisecond))
	}
	limit := 4 * n * d / peak
	const lambda = 1e-6 * n
	for _, f32 := range []bool{false, true} {
		for _, batch := range []int{32, 128, 512} {
			for _, k := range []int{8, 32, 128} {
				prec, lim := "float64", limit
				if f32 {
					prec, lim = "float32", limit/2
				}
				b.Run(fmt.Sprintf("%s/b=%d/k=%d", prec, batch, k), func(b *testing.B) {
					Theta, G := make([]float64, d*k), make([]float64, d*k)
					Theta32, G32 := make([]float32, d*k), make([]float32, d*k)
					for i := range Theta {
						Theta[i] = 1e-3 * float64(i%7)
						Theta32[i] = float32(Theta[i])
					}
					b.ReportAllocs()
					for b.Loop() {
						for lo := 0; lo+batch <= n; lo += batch {
							if f32 {
								LogisticGradient32(G32, X32[lo*d:(lo+batch)*d], y32[lo:lo+batch], Theta32, batch, d, k, lambda)
							} else {
								LogisticGradient(G, X[lo*d:(lo+batch)*d], y[lo:lo+batch], Theta, batch, d, k, lambda)
							}
						}
					}
					per := b.Elapsed().Seconds() / float64(b.N) / float64(k)
					b.ReportMetric(per*1e9, "ns/trial-epoch")
					b.ReportMetric(per/lim, "x-peak")
					b.ReportMetric(0, "ns/op")
				})
			}
		}
	}
}

// BenchmarkNoisyStep times one SGLU ensemble update (NoisyStep, NoisyStep32) at d = 784
// and k = 32 and 128, on the assembly and the Go path: ns a run's update (d elements).
func BenchmarkNoisyStep(b *testing.B) {
	const d = 784
	for _, k := range []int{32, 128} {
		c := newStepCase(d, k, 1, 0)
		for i := range c.theta { // iterates and noise at the engine's scale: no overflow
			c.theta[i], c.z[i], c.g[i] = 1e-3*float64(i%11), float32(i%7-3), 1e-3*float64(i%5)
			c.g32[i] = float32(c.g[i])
		}
		theta32 := make([]float32, d*k)
		onEachPath(func(asm bool) {
			path := "go"
			if asm {
				path = "asm"
			}
			b.Run(fmt.Sprintf("%s-k=%d", path, k), func(b *testing.B) {
				for b.Loop() {
					clear(c.norm2)
					NoisyStep(c.theta, c.z, 1e-2, c.g, c.norm2, d, k, 0.5)
				}
				b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(k), "ns/run")
			})
			b.Run(fmt.Sprintf("%s-32-k=%d", path, k), func(b *testing.B) {
				for b.Loop() {
					clear(c.norm2)
					NoisyStep32(c.theta, theta32, c.z, 1e-2, c.g32, c.norm2, d, k, 0.5)
				}
				b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(k), "ns/run")
			})
		})
	}
}
