package hfaudit

import (
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"github.com/unlearnaudit/unlearnaudit/reference/hf"
)

// Guo et al.'s Theorem 3 at its budget: a gradient residual of the whole budget σε/c,
// c = √(2 ln(1.5/δ)), shifts the released minimiser by a Gaussian pair at μ = ε/c, whatever
// σ and whatever the data, so the exact δ at ε (Balle–Wang) depends on ε and δ alone and
// must not exceed the stated δ. hf-online used to judge this per run (hf-online/guo-delta),
// where it could not fail; it is checked here once, at the run's ε = 1, δ = 1e-3 and around.
func TestGuoBudgetExactDelta(t *testing.T) {
	for _, eps := range []float64{0.1, 0.5, 1} {
		for _, delta := range []float64{1e-2, 1e-3, 1e-5, 1e-8} {
			for _, sigma := range []float64{0.1, 10, 1e4} {
				budget, err := hf.GuoBudget(sigma, eps, delta)
				if err != nil {
					t.Fatal(err)
				}
				mu := budget / sigma
				if want := eps / hf.GuoConstant(delta); mu < want*(1-1e-12) || mu > want*(1+1e-12) {
					t.Errorf("ε = %v, δ = %v, σ = %v: μ = %v, want ε/c = %v whatever σ", eps, delta, sigma, mu, want)
				}
				if got := dp.GaussianExactDelta(eps, mu); !(got <= delta) {
					t.Errorf("ε = %v, δ = %v, σ = %v: exact δ %v at the budget exceeds the stated δ", eps, delta, sigma, got)
				}
			}
		}
	}
	// the run's setting: μ = 1/3.8244530032647286 (c by Python's math module)
	if got := dp.GaussianExactDelta(1, 1/3.8244530032647286); !(got > 0 && got <= 1e-3) {
		t.Errorf("ε = 1, δ = 1e-3: exact δ %v", got)
	}
}
