package ensemble

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Narrow and Widen give Go's conversions' bits, on the assembly and the Go path, at every
// length from 0 to 70 (whole blocks of 16 and tails): values that round up, down and to
// even in float32, beyond float32's range (to ±Inf), float32 subnormals, float64 values
// that underflow to zero, ±0, ±Inf and NaN.
func TestNarrowWidenAreGoConversions(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1 + 0x1p-24, 1 + 3*0x1p-24, 1 + 0x1p-23 + 0x1p-40,
		math.MaxFloat32 * 2, -math.MaxFloat32 * 1.5, 0x1p-140, -0x1p-149 * 3.5, 0x1p-200, math.SmallestNonzeroFloat64}
	for n := range 71 {
		src := make([]float64, n)
		for i := range src {
			if r.IntN(3) == 0 {
				src[i] = special[r.IntN(len(special))]
			} else {
				src[i] = r.NormFloat64() * math.Exp2(float64(r.IntN(80)-40))
			}
		}
		onEachPath(func(asm bool) {
			nar := make([]float32, n)
			Narrow(nar, src)
			wid := make([]float64, n)
			Widen(wid, nar)
			for i, v := range src {
				if want := float32(v); math.Float32bits(nar[i]) != math.Float32bits(want) {
					t.Fatalf("n = %d (assembly %v): Narrow's %d is %v (%#x), float32(%v) %v (%#x)", n, asm, i, nar[i], math.Float32bits(nar[i]), v, want, math.Float32bits(want))
				}
				if want := float64(nar[i]); math.Float64bits(wid[i]) != math.Float64bits(want) {
					t.Fatalf("n = %d (assembly %v): Widen's %d is %v, float64(%v) %v", n, asm, i, wid[i], nar[i], want)
				}
			}
		})
	}
}
