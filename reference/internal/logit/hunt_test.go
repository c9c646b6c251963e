package logit

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// Derivs gives Deriv's bits for labels other than ±1 (package reference allows any finite
// label), clip levels of every kind (0, subnormal, negative, NaN, ±Inf) and any inv,
// including NaN payloads and signed zeros, on slices of any length.
func TestDerivsMatchDerivAnyInputs(t *testing.T) {
	special := []float64{0, math.Copysign(0, -1), 1, -1, 2, -2, 0.5, 3.7, 1e300, -1e-300, 5e-324,
		math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0x7ff8000000000123), math.Float64frombits(0xfff0000000000001),
		708, -708, 354, 709, 2.2250738585072014e-308}
	val := func(name string) *rapid.Generator[float64] {
		return rapid.OneOf(rapid.SampledFrom(special), rapid.Float64(), rapid.Float64Range(-800, 800),
			rapid.Custom(func(t *rapid.T) float64 { return math.Float64frombits(rapid.Uint64().Draw(t, name+"bits")) }))
	}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 41).Draw(t, "n")
		u, y, c, w := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range n {
			u[i], y[i], c[i] = val("u").Draw(t, "u"), val("y").Draw(t, "y"), val("c").Draw(t, "c")
		}
		inv := val("inv").Filter(func(v float64) bool { return !math.IsNaN(v) }).Draw(t, "inv") // a NaN inv: see Derivs
		Derivs(w, u, y, c, inv)
		for i := range w {
			if want := inv * Deriv(u[i], y[i], c[i]); !sameBits(w[i], want) {
				t.Fatalf("u = %v, y = %v, c = %v, inv = %v: Derivs %x, Deriv %x", u[i], y[i], c[i], inv, math.Float64bits(w[i]), math.Float64bits(want))
			}
		}
	})
}

// The same on the assembly's own path: every margin −y·u within ±708, so no block is
// handed back to Go, labels any value in [−1, 1] (0, −0, subnormal, halves), clip levels
// and inv of every kind but a NaN inv.
func TestDerivsMatchDerivOnTheAsmPath(t *testing.T) {
	clips := []float64{0, math.Copysign(0, -1), 5e-324, 1e-310, -1, 0.25, 0.5, 1, math.Inf(1), math.Inf(-1), math.NaN(),
		math.Float64frombits(0x7ff8000000000123), math.Float64frombits(0xfff0000000000001)}
	var asmBlocks int
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(4, 41).Draw(t, "n")
		u, y, c, w := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range n {
			u[i] = rapid.OneOf(rapid.Float64Range(-708, 708), rapid.Float64Range(-1e-5, 1e-5), rapid.SampledFrom([]float64{0, math.Copysign(0, -1), 708, -708, 5e-324, -5e-324})).Draw(t, "u")
			y[i] = rapid.OneOf(rapid.Float64Range(-1, 1), rapid.SampledFrom([]float64{1, -1, 0, math.Copysign(0, -1), 0.5, 5e-324, -5e-324})).Draw(t, "y")
			c[i] = rapid.OneOf(rapid.SampledFrom(clips), rapid.Float64Range(-2, 2), rapid.Float64()).Draw(t, "c")
		}
		inv := rapid.OneOf(rapid.SampledFrom([]float64{1, 0, math.Copysign(0, -1), 5e-324, 1e300, math.Inf(1), math.Inf(-1), -1, 1.0 / 3}),
			rapid.Float64()).Filter(func(v float64) bool { return !math.IsNaN(v) }).Draw(t, "inv")
		Derivs(w, u, y, c, inv)
		for i := range w {
			if want := inv * Deriv(u[i], y[i], c[i]); !sameBits(w[i], want) {
				t.Fatalf("u = %v, y = %v, c = %v, inv = %v: Derivs %x, Deriv %x", u[i], y[i], c[i], inv, math.Float64bits(w[i]), math.Float64bits(want))
			}
		}
		if HasAsm && derivsAVX2(&w[0], &u[0], &y[0], &c[0], n&^3, inv) == 0 {
			asmBlocks++
		}
	})
	if HasAsm && asmBlocks == 0 {
		t.Fatal("no case ran on the assembly")
	}
	t.Logf("%d cases on the assembly", asmBlocks)
}
