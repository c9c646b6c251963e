package hfaudit

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/internal/audittest"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"github.com/unlearnaudit/unlearnaudit/reference/hf"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/mat"
)

// A planted violation for every certificate finding HF's audit emits (issue 28, item 4).

// certificates runs Check on a few trials without the attacks, which the certificate
// finding does not read.
func certificates(t *testing.T, s *Subject) map[string]verdict.Finding {
	t.Helper()
	res, err := trials.Engine{}.Run(context.Background(), s, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Check(context.Background(), s, res, audit.CheckOptions{Seed: 2, Attacks: audit.Attacks{}})
	if err != nil {
		t.Fatal(err)
	}
	return audittest.ByCheck(fs)
}

// hf/certificate/sigma: a deployment whose noise is half the analytic Gaussian
// mechanism's σ for its Δ̂ FAILs the recomputation; the σ New computes PASSes it.
func TestCertificateSigmaViolation(t *testing.T) {
	s := instance(t, PaperBound)
	if f := certificates(t, s)["hf/certificate/sigma"]; f.Verdict != verdict.Pass {
		t.Errorf("honest σ: %v (%s)", f, f.Detail)
	}
	s = instance(t, PaperBound)
	s.sigma /= 2
	s.fp += "|half σ"
	if f := certificates(t, s)["hf/certificate/sigma"]; f.Verdict != verdict.Fail || !(f.Measured > 1.99*f.Bound) {
		t.Errorf("σ/2: %v (%s); want FAIL with the recomputed σ twice the one used", f, f.Detail)
	}
}

// hf-online/guo-delta: the finding (built in runOnline) holds Online's GuoOnline.ExactDelta
// — the Gaussian mechanism's exact δ at ε = 1 for a shift of Guo's whole residual budget
// σε/c against σ — to the stated δ = 1e-3. runOnline fixes ε = 1 and δ = 1e-3, so its
// arguments cannot make the finding fail (the budget over σ does not depend on σ); the
// violation is planted one level down, in the mechanism Online runs: Guo's budget paid
// for δ = 0.1 (c = √(2 ln 15)) while the release states 1e-3 has exact δ ≈ 2.4e-3 > 1e-3;
// paid for the stated δ (c = √(2 ln 1500)) it is within 1e-3. The check's own comparison
// is the one verdict.Deterministic makes, measured ≤ bound.
func TestGuoDeltaViolation(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	build := func(n int) *multiclass.Data {
		x := mat.NewDense(n, 3, nil)
		y := make([]int, n)
		for i := range n {
			y[i] = r.IntN(3)
			for j := range 3 {
				x.Set(i, j, 0.5*r.NormFloat64()+0.3*float64(y[i]))
			}
		}
		d, err := multiclass.NewData(x, y, 3)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	train, test := build(60), build(30)
	exactDelta := func(paidFor float64) float64 {
		t.Helper()
		res, err := Online(context.Background(), OnlineConfig{Model: multiclass.Softmax{K: 3, P: 3, Lambda: 0.5},
			Learn: hf.Config{Epochs: 2, BatchSize: 8, Eta: 0.05, Decay: 0.995}, Train: train, Test: test, Fraction: 0.05, Seed: 1,
			Damping: 0.01, Epsilon: 1, Delta: paidFor, GuoSigma: 10})
		if err != nil {
			t.Fatal(err)
		}
		if res.Guo == nil {
			t.Fatal("no Guo accounting")
		}
		return res.Guo.ExactDelta
	}
	const stated = 1e-3 // runOnline's δ, the finding's bound
	check := func(measured float64) verdict.Finding {
		return verdict.Deterministic("hf-online/guo-delta", "Guo's Theorem 3 at its budget", verdict.Certificate, measured, stated, 1, "")
	}
	if f := check(exactDelta(stated)); f.Verdict != verdict.Pass {
		t.Errorf("budget paid for the stated δ: %v", f)
	}
	want := dp.GaussianExactDelta(1, 1/hf.GuoConstant(0.1))
	got := exactDelta(0.1)
	if f := check(got); f.Verdict != verdict.Fail || math.Abs(got-want) > 1e-12*want {
		t.Errorf("budget paid for δ = 0.1: exact δ %v (want %v), %v; want FAIL", got, want, f)
	}
}
