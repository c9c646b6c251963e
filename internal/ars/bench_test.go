package ars

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// copyNsPerValue is the memory-bandwidth floor, measured in the same run: ns a value to
// copy n float64 values (the bytes a fill writes, read once and written once), the best
// of 5 rounds of 20 ms each.
func copyNsPerValue(n int) float64 {
	src, dst := make([]float64, n), make([]float64, n)
	best := math.Inf(1)
	for range 5 {
		start, reps := time.Now(), 0
		for time.Since(start) < 20*time.Millisecond {
			for range 64 {
				copy(dst, src)
			}
			reps += 64
		}
		best = min(best, float64(time.Since(start).Nanoseconds())/float64(reps*n))
	}
	return best
}

// BenchmarkFill is FillScaledWide's cost a normal (ns/normal; the engine's call) and its
// multiple of the cost of copying the same bytes (×copy), for one engine-sized stream
// (784 normals, a model's noise at a step) and a long one (2¹⁶, beyond L1), on each route
// this CPU has (route=avx512/vaes, …, go/go: the widest is what a fill runs). cpu-ns/normal is
// the same cost in the thread's CPU time (Linux), which a machine shared with other work
// inflates less than the wall time. (Its Fill32 cases were removed with Fill32.)
func BenchmarkFill(b *testing.B) {
	for _, r := range routes() {
		for _, n := range []int{784, 1 << 16} {
			b.Run(fmt.Sprintf("route=%s/wide/n=%d", r, n), func(b *testing.B) {
				defer lockThread()()
				floor := copyNsPerValue(n)
				d64 := make([]float64, n)
				trial := uint64(0)
				oldP, oldA := path, arsPath
				path, arsPath = r.path, r.ars
				defer func() { path, arsPath = oldP, oldA }()
				cpu0, cpuOK := threadCPU()
				b.ResetTimer()
				for b.Loop() {
					FillScaledWide(d64, 0.01, 1, trial, 0)
					trial++
				}
				cpu1, _ := threadCPU()
				ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N*n)
				b.ReportMetric(ns, "ns/normal")
				b.ReportMetric(ns/floor, "×copy")
				if cpuOK {
					b.ReportMetric(float64(cpu1-cpu0)/float64(b.N*n), "cpu-ns/normal")
				}
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// BenchmarkWords is the words kernel alone, on each words path: ns a word (a normal's
// share) for 384 groups (3 072 blocks, 48 KiB, within L2), so that BenchmarkFill's cost
// splits into ARS and the transform.
func BenchmarkWords(b *testing.B) {
	for _, a := range arsPaths() {
		b.Run("ars="+arsNames[a], func(b *testing.B) {
			defer lockThread()()
			old := arsPath
			arsPath = a
			defer func() { arsPath = old }()
			const groups = 384
			w := make([]uint32, groups*groupValues)
			rk := roundKeys(1, 2, 3)
			cpu0, cpuOK := threadCPU()
			for b.Loop() {
				streamWords(w, groups, 0, &rk)
			}
			cpu1, _ := threadCPU()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(w)), "ns/word")
			if cpuOK {
				b.ReportMetric(float64(cpu1-cpu0)/float64(b.N*len(w)), "cpu-ns/word")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkEpochNoise is the Langevin noise of one trial-epoch of the SGLU engine at
// b = 128 (88 steps of d = 784 normals, each scaled by the step's σ·√(2η): FillScaledWide,
// the engine's call), in ms an epoch (ms/epoch, and cpu-ms/epoch in the thread's CPU
// time), on each route: the goal is noise at most a tenth of the epoch's
// training.
func BenchmarkEpochNoise(b *testing.B) {
	const steps, d = 88, 784
	for _, r := range routes() {
		b.Run(fmt.Sprintf("route=%s/wide", r), func(b *testing.B) {
			defer lockThread()()
			oldP, oldA := path, arsPath
			path, arsPath = r.path, r.ars
			defer func() { path, arsPath = oldP, oldA }()
			d64 := make([]float64, d)
			trial := uint64(0)
			cpu0, cpuOK := threadCPU()
			for b.Loop() {
				for s := range uint32(steps) {
					FillScaledWide(d64, 0.01, 1, trial, s)
				}
				trial++
			}
			cpu1, _ := threadCPU()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/epoch")
			if cpuOK {
				b.ReportMetric(float64(cpu1-cpu0)/float64(b.N)/1e6, "cpu-ms/epoch")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkRows is an ensemble step's noise at the SGLU engine's shape, k = 32 runs of
// d = 784 normals (FillWideRows32, the engine's call), in ns a normal (and cpu-ns/normal
// in the thread's CPU time), on each route.
func BenchmarkRows(b *testing.B) {
	const k, d = 32, 784
	for _, r := range routes() {
		b.Run(fmt.Sprintf("route=%s/k=%d/d=%d", r, k, d), func(b *testing.B) {
			defer lockThread()()
			oldP, oldA := path, arsPath
			path, arsPath = r.path, r.ars
			defer func() { path, arsPath = oldP, oldA }()
			seeds := make([]uint64, k)
			for t := range seeds {
				seeds[t] = uint64(t) + 1
			}
			dst := make([]float32, k*d)
			step := uint32(0)
			cpu0, cpuOK := threadCPU()
			for b.Loop() {
				FillWideRows32(dst, d, seeds, 0, step)
				step++
			}
			cpu1, _ := threadCPU()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*k*d), "ns/normal")
			if cpuOK {
				b.ReportMetric(float64(cpu1-cpu0)/float64(b.N*k*d), "cpu-ns/normal")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}
