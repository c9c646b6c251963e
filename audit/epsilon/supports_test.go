package epsilon

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference/dp"
)

// RankPower is the rank test's power against the Gaussian pair μ apart. At μ = 0 it is
// (m + 1)/(n + 1) within 1e-5 (the quadrature is 1.2e-6 off), the chance that at most m of n exchangeable references lie
// below the model (1/65 at n = 64: the test's size, at most t); at μ = 1.5 and 3 it agrees
// with 20 000 simulated tests played by Ranks within 4.5 binomial standard errors
// (false-failure probability below 1e-4 each; the quadrature's error is far smaller);
// below RanksNeeded it is 0. RankSmallestMu is where it crosses 0.8. Planted bugs caught:
// the order statistic one too far (the (m + 2)-th: 2/65 at μ = 0), and k models sharing
// their references taken as independent tests (1 − (1 − one model's power)^k: 0.836 where
// 2 models among 200 fail 0.812 of simulated tests).
func TestRankPower(t *testing.T) {
	const eps, delta, conf = 1, 1e-3, 0.95
	if p := RankPower(1, 64, 0, eps, delta, conf); math.Abs(p-1.0/65) > 1e-5 {
		t.Errorf("μ = 0, 64 references: power %v; want 1/65", p)
	}
	if p := RankPower(1, 54, 10, eps, delta, conf); p != 0 {
		t.Errorf("54 references (below RanksNeeded 55): power %v; want 0", p)
	}
	r := rand.New(rand.NewPCG(7, 7))
	for _, c := range []struct {
		k, n int
		mu   float64
	}{{1, 64, 1.5}, {1, 64, 3}, {2, 200, 3}} {
		const draws = 20000
		hits := 0
		refs, models := make([]float64, c.n), make([]float64, c.k)
		for range draws {
			for i := range refs {
				refs[i] = r.NormFloat64()
			}
			for i := range models {
				models[i] = r.NormFloat64() - c.mu
			}
			rt, err := Ranks(models, refs, eps, delta, conf, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rt.Violated {
				hits++
			}
		}
		got, want := float64(hits)/draws, RankPower(c.k, c.n, c.mu, eps, delta, conf)
		if se := math.Sqrt(want * (1 - want) / draws); math.Abs(got-want) > 4.5*se {
			t.Errorf("k = %d, n = %d, μ = %g: simulated %.4f, RankPower %.4f (4.5σ = %.4f)", c.k, c.n, c.mu, got, want, 4.5*se)
		}
	}
	mu := RankSmallestMu(1, 64, eps, delta, conf, 0.8)
	if RankPower(1, 64, mu, eps, delta, conf) < 0.8 || RankPower(1, 64, mu*0.999, eps, delta, conf) >= 0.8 {
		t.Errorf("RankSmallestMu %v is not where the power crosses 0.8", mu)
	}
	if mu := RankSmallestMu(1, 20, eps, delta, conf, 0.8); !math.IsInf(mu, 1) {
		t.Errorf("20 references: RankSmallestMu %v; want +Inf (no model can show a violation)", mu)
	}
}

// GDPMu inverts the Gaussian pair's exact ε at δ; 0 and +Inf at the ends.
func TestGDPMu(t *testing.T) {
	for _, e := range []float64{0.1, 1, 3.5} {
		mu := GDPMu(e, 1e-5)
		if got := dp.GaussianExactEpsilon(mu, 1e-5); math.Abs(got-e) > 1e-9*e {
			t.Errorf("GDPMu(%v): μ %v has ε %v", e, mu, got)
		}
	}
	if GDPMu(0, 1e-5) != 0 || !math.IsInf(GDPMu(math.Inf(1), 1e-5), 1) {
		t.Error("GDPMu's ends: want 0 at ε = 0 and +Inf at ε = +Inf")
	}
}
