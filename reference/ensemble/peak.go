package ensemble

import (
	"math"
	"time"

	"gonum.org/v1/gonum/floats"
)

// PeakFLOPS measures this core's float64 peak: independent FMAs on registers (assembly
// where the CPU has AVX2 and FMA, 4-wide, and also 8-wide where it has AVX-512, the faster
// of the two; else independent math.FMA chains in Go, the pure-Go kernel's own ceiling)
// for about the given time each. It is the FLOP ceiling the benchmarks state their ratios
// to.
func PeakFLOPS(over time.Duration) float64 {
	best := peakOf(over, false)
	if HasAsm && HasAVX512 {
		best = max(best, peakOf(over, true))
	}
	return best
}

// peakOf times the 4-wide peak loop (or, with zmm, the 8-wide one) for about over.
func peakOf(over time.Duration, zmm bool) float64 {
	n := 1 << 16
	for {
		start := time.Now()
		flops := fmaRounds(n, zmm)
		took := time.Since(start)
		if took >= over || int64(n) >= 1<<40 {
			return flops / took.Seconds()
		}
		n = int(float64(n) * math.Max(2, 1.2*float64(over)/float64(max(took, time.Microsecond))))
	}
}

// fmaRounds runs n rounds of the peak loop and returns the flops done.
func fmaRounds(n int, zmm bool) float64 {
	if HasAsm && zmm {
		sink = fmaPeakAVX512(n)
		return 192 * float64(n)
	}
	if HasAsm {
		sink = fmaPeakAVX2(n)
		return 96 * float64(n)
	}
	var a [8]float64
	const x, y = 1.0, 0x1.fffffffffffffp-1
	for range n {
		for i := range a {
			a[i] = math.FMA(x, y, a[i])
		}
	}
	sink = a[0] + a[7]
	return 16 * float64(n)
}

// StreamSeconds measures one streaming read of the given floats (a dot product of the
// slice with itself, over the best of reps reads): the time any pass over the data takes
// at least, the other floor the benchmarks state their ratios to.
func StreamSeconds(data []float64, reps int) float64 {
	best := math.Inf(1)
	for range reps {
		start := time.Now()
		sink = floats.Dot(data, data)
		best = math.Min(best, time.Since(start).Seconds())
	}
	return best
}

// sink takes the timed loops' results: written, never read, on purpose. The writes keep
// the compiler from deleting the work being timed (without them Go 1.26 on arm64 drops
// StreamSeconds's whole floats.Dot loop, inlined, as dead code).
//
//lint:ignore U1000 a false positive: a write-only sink, whose writes are its use (above).
var sink float64
