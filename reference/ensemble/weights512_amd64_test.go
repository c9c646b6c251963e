//go:build amd64

package ensemble

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference/internal/logit"
)

// (amd64 alone: elsewhere weights512 never returns, and the test never runs.)

// pass512's derivatives are logisticWeights's bits, in float64 (eight lanes, logit.Derivs's
// bits, the scalar code's) and in float32 (sixteen lanes, and AVX2's eight: logisticDeriv32's
// bits, one value at a time in Go), for the
// AVX-512 blocks' widths (and 24 and 48, which take every group of the float32 kernel:
// two vectors, one, a half) and row counts, at margins of every kind: ±0 (σ's two branches
// meet), small, near the edge of the kernel's range (±708, math.Exp's normal path, in
// float64; ±87, where exp32 stays normal, in float32) and beyond it, ±Inf or NaN, where
// the kernel must say so (the block then goes back to Go). Planted, each seen to fail:
// the float32 kernel's Horner steps in another order; its r without the ln2Lo term; its
// 87 check dropped (the lanes beyond: subnormal or 0 in Go, not in the kernel).
func TestWeights512MatchLogisticWeights(t *testing.T) {
	if !HasAsm || !HasAVX512 || !logit.HasAsm {
		t.Skip("no AVX-512 (or math.Exp off its FMA path) here: the kernel never runs")
	}
	r := rand.New(rand.NewPCG(8, 9))
	kinds := []float64{0, math.Copysign(0, -1), 1e-300, -3.5, 707.9, -707.9, 708.5, -709, math.NaN(), 40}
	kinds32 := []float64{0, math.Copysign(0, -1), 1e-40, -3.5, 86.99, -86.99, 87, -87, 87.01, -87.5, 100, -104.5, 200, math.Inf(1), math.Inf(-1), math.NaN(), 40}
	const inv = 1.0 / 96
	var lw logisticScratch
	for _, w := range []int{8, 16, 24, 32, 48} {
		for _, rb := range []int{1, 4, 8, 12} {
			for trial := range 40 {
				y := make([]float64, rb)
				for i := range y {
					y[i] = float64(1 - 2*r.IntN(2))
				}
				// z draws margins, some of the kinds; half the trials keep to the normal
				// path (|z| ≤ edge, not NaN)
				draw := func(kinds []float64, edge float64) (z []float64, special bool) {
					z = make([]float64, rb*w)
					for i := range z {
						z[i] = 4 * r.NormFloat64()
						if r.IntN(8) == 0 {
							z[i] = kinds[r.IntN(len(kinds))]
							if trial%2 == 0 && (math.IsNaN(z[i]) || math.Abs(z[i]) > edge) {
								z[i] = 0.5
							}
						}
						special = special || math.IsNaN(z[i]) || math.Abs(z[i]) > edge
					}
					return z, special
				}
				if w <= 32 && w != 24 {
					z, special := draw(kinds, 708)
					want, got := make([]float64, rb*w), make([]float64, rb*w)
					logisticWeights(want, z, y, w, inv, &lw)
					if ok := weights512(&got[0], &z[0], &y[0], rb, w, inv); ok == special {
						t.Fatalf("float64, w = %d, rows %d: the kernel says normal path %v, the margins %v", w, rb, ok, !special)
					}
					for i := range want {
						if !special && math.Float64bits(got[i]) != math.Float64bits(want[i]) {
							t.Fatalf("float64, w = %d, rows %d, lane %d (z = %v, y = %v): kernel %v, logisticWeights %v", w, rb, i, z[i], y[i/w], got[i], want[i])
						}
					}
				}
				z, special := draw(kinds32, 87)
				z32, y32 := to32(z), to32(y)
				want := make([]float32, rb*w)
				for i := range want {
					want[i] = float32(inv) * logisticDeriv32(z32[i], y32[i/w])
				}
				for _, k := range []struct {
					name string
					f    func(wz, z, y *float32, rb, w int, inv float32) bool
				}{{"AVX-512", weights512[float32]}, {"AVX2", weightsAVX2[float32]}} {
					got := make([]float32, rb*w)
					if ok := k.f(&got[0], &z32[0], &y32[0], rb, w, float32(inv)); ok == special {
						t.Fatalf("float32 %s, w = %d, rows %d: the kernel says normal path %v, the margins %v", k.name, w, rb, ok, !special)
					}
					for i := range want {
						if !special && math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("float32 %s, w = %d, rows %d, lane %d (z = %v, y = %v): kernel %v, logisticDeriv32 %v", k.name, w, rb, i, z32[i], y32[i/w], got[i], want[i])
						}
					}
				}
				{ // logisticWeights too, whichever way it takes
					got := make([]float32, rb*w)
					logisticWeights(got, z32, y32, w, float32(inv), &lw)
					for i := range want {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("float32 logisticWeights, w = %d, rows %d, lane %d: %v, logisticDeriv32 %v", w, rb, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}
