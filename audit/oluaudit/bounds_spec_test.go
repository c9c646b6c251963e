package oluaudit

import (
	"math"
	"testing"
)

// Theorem 4's functions (spec olu §3, Theorem 4), recomputed by hand at p(t) = t
// (p[t−1] = t), requests u = (2, 3) served at τ = (4, 5), β = 3, D = 2, L = 1, d = 2,
// k = 2, ε = 0.5, F* = 9:
//
//   - G3 = √(β Σ_i p(τ_i)/p(u_i)²) = √(3·(4/4 + 5/9)) = √(14/3);
//   - the explicit proof form (Eq. 36) 9D²β/4 + 3D√F* + (3dk²L²D²/(4ε))·G3 at G3 = 1.5 is
//     27 + 18 + 48·1.5 = 117;
//   - the [DERIVED] form a + E[B] + 2√(a(F* + E[B])) with a = 9D²β/2 = 54 and, at ω = 1.5,
//     E[B] = (dωL²D/(4(ω − 1)ε))·Σ_i i^ω√p(τ_i)/p(u_i) = 6·(√4/2 + 2^{1.5}·√5/3).
func TestTheorem4SpecVectors(t *testing.T) {
	p := []float64{1, 2, 3, 4, 5}
	tau, u := []int{4, 5}, []int{2, 3}
	rel := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("%s = %.15g; want %.15g", name, got, want)
		}
	}
	rel("G3", G3(3, p, tau, u), math.Sqrt(14.0/3))
	rel("Thm4Explicit", Thm4Explicit(2, 3, 1, 2, 2, 0.5, 9, 1.5), 117)
	eb := 6 * (1 + math.Pow(2, 1.5)*math.Sqrt(5)/3)
	rel("Thm4Derived", Thm4Derived(2, 3, 1, 2, 0.5, 1.5, 9, p, tau, u), 54+eb+2*math.Sqrt(54*(9+eb)))
}
