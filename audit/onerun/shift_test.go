package onerun

import (
	"math"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"
)

// GaussianMu inverts the Gaussian mechanism's δ(ε): at σ = 1/μ, δ(ε) is the δ asked for.
// At (2, (1 + e)·1e-6), the demo's one-run target, μ = 0.4766.
func TestGaussianMu(t *testing.T) {
	for _, c := range []struct{ eps, delta float64 }{{2, (1 + math.E) * 1e-6}, {1, 1e-5}, {0.5, 1e-3}, {8, 1e-9}} {
		mu, err := GaussianMu(c.eps, c.delta)
		if err != nil {
			t.Fatal(err)
		}
		if got := math.Exp(gaussianLogDelta(1/mu, c.eps)); math.Abs(got-c.delta) > 1e-9*c.delta {
			t.Errorf("(%g, %g): μ = %g gives δ = %g", c.eps, c.delta, mu, got)
		}
	}
	if mu, _ := GaussianMu(2, (1+math.E)*1e-6); math.Abs(mu-0.4766) > 1e-4 {
		t.Errorf("μ at the demo's target %.5g; want 0.4766", mu)
	}
	if _, err := GaussianMu(0, 1e-6); err == nil {
		t.Error("ε = 0 accepted")
	}
}

// TypicalRefutingMu is where a typical run starts to refute: at its μ the typical scores
// give a bound above ε, a little below it they do not; more canaries need less μ; and at
// m = 64, 2ε = 2, a typical plan (32 of 64 included) cannot refute at all, even perfectly
// separated (+Inf), while at m = 128 it needs μ ≈ 2.8.
func TestTypicalRefutingMu(t *testing.T) {
	const sig, eps = 0.05, 2.0
	delta := (1 + math.E) * 1e-6
	bound := func(m int, mu float64) float64 {
		a, err := NewAuditor(typicalScores(m-m/2, mu), typicalScores(m/2, 0))
		if err != nil {
			t.Fatal(err)
		}
		e, err := a.EpsilonOneRun(sig, delta, threshold.Bonferroni)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	if mu, err := TypicalRefutingMu(64, sig, eps, delta); err != nil || !math.IsInf(mu, 1) {
		t.Errorf("m = 64: %v, %v; want +Inf", mu, err)
	}
	prev := math.Inf(1)
	for _, m := range []int{128, 256, 512} {
		mu, err := TypicalRefutingMu(m, sig, eps, delta)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("m = %d: μ = %.4g", m, mu)
		if !(bound(m, mu) > eps) || !(bound(m, mu-0.01) <= eps) {
			t.Errorf("m = %d: bound %.4g at μ = %.4g, %.4g just below; want the crossing of %g", m, bound(m, mu), mu, bound(m, mu-0.01), eps)
		}
		if !(mu < prev) {
			t.Errorf("m = %d needs μ = %.4g, not less than %.4g at half the canaries", m, mu, prev)
		}
		prev = mu
	}
	if mu, _ := TypicalRefutingMu(128, sig, eps, delta); math.Abs(mu-2.79) > 0.01 {
		t.Errorf("m = 128: μ = %.4g; want 2.79", mu)
	}
	if _, err := TypicalRefutingMu(1, sig, eps, delta); err == nil {
		t.Error("m = 1 accepted")
	}
}

// BinormalMu is √2·Φ⁻¹(AUC), ties counted ½: separated scores are +Inf, equal ones 0,
// reversed ones negative, and a known AUC gives its μ.
func TestBinormalMu(t *testing.T) {
	cases := []struct {
		in, out []float64
		want    float64
	}{
		{[]float64{3, 4}, []float64{1, 2}, math.Inf(1)},
		{[]float64{1, 1}, []float64{1, 1}, 0},
		{[]float64{1, 2}, []float64{0, 3}, 0},                                 // AUC ½
		{[]float64{3, 1}, []float64{2, 0, 0, 0}, math.Sqrt2 * normPPF(7.0/8)}, // 7 of 8 pairs
		{[]float64{0}, []float64{1, 2}, math.Inf(-1)},
		{[]float64{2, 1}, []float64{2, 0}, math.Sqrt2 * normPPF(2.5/4)}, // 2 > 0, 1 > 0, 2 = 2 counts ½
	}
	for _, c := range cases {
		got, err := BinormalMu(c.in, c.out)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want && math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%v vs %v: μ = %v; want %v", c.in, c.out, got, c.want)
		}
	}
	if _, err := BinormalMu(nil, []float64{1}); err == nil {
		t.Error("no included canary accepted")
	}
}
