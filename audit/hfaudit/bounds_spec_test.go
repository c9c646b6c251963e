package hfaudit

import (
	"math"
	"testing"
)

// GDDistanceBound is spec hf §3.7 (Lemma 10 as its proof ends, the FLAG's 2L/λ, not the
// statement's 2M/λ): ρ^T·2L/λ, recomputed by hand — 0.5³·2·1/0.1 = 2.5, and at ρ = 0.9,
// T = 10, L = 3, λ = 0.5: 0.9¹⁰·12.
func TestGDDistanceBoundSpecVector(t *testing.T) {
	for _, c := range []struct {
		rho       float64
		T         int
		L, lambda float64
		want      float64
	}{{0.5, 3, 1, 0.1, 2.5}, {0.9, 10, 3, 0.5, math.Pow(0.9, 10) * 12}, {0.7, 0, 1, 1, 2}} {
		if got := GDDistanceBound(c.rho, c.T, c.L, c.lambda); math.Abs(got-c.want) > 1e-12*c.want {
			t.Errorf("GDDistanceBound(%v, %d, %v, %v) = %v; want %v", c.rho, c.T, c.L, c.lambda, got, c.want)
		}
	}
}
