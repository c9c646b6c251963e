package hfaudit

import (
	"context"
	"math/rand/v2"
	"strings"
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

// instance is three-class softmax regression on 120 records, 3 of them deleted.
func instance(t *testing.T, reading Reading) *Subject {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 4))
	n, p, k := 120, 4, 3
	x := mat.NewDense(n, p, nil)
	y := make([]int, n)
	ids := make([]int64, n)
	for i := range n {
		ids[i], y[i] = int64(100+i), r.IntN(k)
		for j := range p {
			x.Set(i, j, 0.5*r.NormFloat64()+0.3*float64(y[i]))
		}
	}
	data, err := multiclass.NewData(x, y, k)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), Setup{Model: multiclass.Softmax{K: k, P: p, Lambda: 0.05}, Config: hf.Config{Epochs: 3, BatchSize: 8, Eta: 0.2, Decay: 0.995},
		Data: data, IDs: ids, Removals: []int64{105, 150, 199}, Epsilon: 1, Delta: 1e-2, Reading: reading})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func checked(t *testing.T, s *Subject, n int) map[string]verdict.Finding {
	t.Helper()
	res, err := trials.Engine{}.Run(context.Background(), s, 2, n)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Check(context.Background(), s, res, audit.CheckOptions{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	return audittest.ByCheck(fs)
}

// The reference passes every required check under both readings, and the report carries
// HF's certificate, its measured error against the bound and the game side by side. The
// release checks are statistical at confidence 0.95 (false-failure probability ≤ 0.05 each;
// this seeded run is one fixed draw).
func TestReferencePasses(t *testing.T) {
	for _, reading := range []Reading{PaperBound, CodeReading} {
		s := instance(t, reading)
		fs := checked(t, s, 40)
		for _, name := range []string{"hf/certificate/sigma", "hf/implementation/error", "hf/implementation/relative-error", "hf/implementation/gradient-bound", "hf/implementation/drift",
			"hf/implementation/contraction", "hf/implementation/additivity", "hf/release/renyi", "hf/release/exact-epsilon", "hf/empirical/epsilon-lower-bound", "hf/empirical/membership"} {
			if _, ok := fs[name]; !ok {
				t.Fatalf("%s: no finding %s", s.Name(), name)
			}
		}
		var all []verdict.Finding
		for _, f := range fs {
			all = append(all, f)
		}
		if v := verdict.Decide(s.Claim(), all); v != verdict.Pass {
			t.Errorf("%s: verdict %s", s.Name(), v)
			for _, f := range all {
				t.Log(f, f.Detail)
			}
		}
		e := fs["hf/implementation/error"]
		if !(e.Measured > 0 && e.Measured < e.Bound) || !strings.Contains(e.Detail, "times the measured error") {
			t.Errorf("%s: error finding %v (%s)", s.Name(), e, e.Detail)
		}
		// the per-request trace follows all three deletions and ends at the bound σ is sized for
		if len(e.Traces) != 1 || len(e.Traces[0].Requests) != 3 || e.Traces[0].Bound[2] != s.bound || !(e.Traces[0].Values[0] > 0) {
			t.Errorf("%s: error traces %+v; want requests 1–3 ending at Δ̂ = %v", s.Name(), e.Traces, s.bound)
		}
	}
}

// A certificate whose Δ̂ is smaller than HF's real error is caught: the noise sized for a
// tenth of the measured error fails the implementation check and the release checks. A
// gradient bound below the gradients met is caught too.
func TestWrongCertificatesCaught(t *testing.T) {
	s := instance(t, PaperBound)
	fs := checked(t, s, 12)
	measured := fs["hf/implementation/error"].Measured
	s.bound = measured / 10
	var err error
	if s.sigma, err = dp.AnalyticGaussianSigma(s.bound, s.setup.Epsilon, s.setup.Delta); err != nil {
		t.Fatal(err)
	}
	s.fp += "|small bound"
	fs = checked(t, s, 12)
	for _, name := range []string{"hf/implementation/error", "hf/release/exact-epsilon"} {
		if fs[name].Verdict != verdict.Fail {
			t.Errorf("Δ̂ = a tenth of the error: %s is %v", name, fs[name].Verdict)
		}
	}
	s = instance(t, PaperBound)
	s.g = 0.01
	if f := checked(t, s, 8)["hf/implementation/gradient-bound"]; f.Verdict != verdict.Fail {
		t.Errorf("G = 0.01: gradient-bound check %v", f.Verdict)
	}
	// a certificate that declares a larger λ than the loss's claims a contraction
	// 1 − η_tλ the batch Hessians do not give: softmax's Hessian has curvature exactly λ
	// along a shift of every class alike, and Lanczos finds it
	s = instance(t, PaperBound)
	s.setup.Model.Lambda *= 1.5
	if f := checked(t, s, 8)["hf/implementation/contraction"]; f.Verdict != verdict.Fail {
		t.Errorf("λ declared 1.5 times the loss's: contraction check %v (%s)", f.Verdict, f.Detail)
	}
}

// Bad setups name what is wrong: an unknown record, λ = 0 (no a priori gradient bound),
// clipping.
func TestSetupRefusals(t *testing.T) {
	s := instance(t, PaperBound)
	for _, c := range []struct {
		change func(*Setup)
		want   string
	}{
		{func(st *Setup) { st.Removals = []int64{7} }, "record 7 is not in the data"},
		{func(st *Setup) { st.Model.Lambda = 0 }, "needs λ > 0"},
		{func(st *Setup) { st.Config.Clip = 1 }, "clip"},
		{func(st *Setup) { st.IDs = st.IDs[1:] }, "119 record IDs for 120 rows"},
	} {
		st := s.setup
		c.change(&st)
		if _, err := New(context.Background(), st); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want %q, got %v", c.want, err)
		}
	}
}

// The configuration fingerprint covers the data, not only their size: trials kept for one
// dataset must not resume on another.
func TestFingerprintCoversTheData(t *testing.T) {
	a := instance(t, PaperBound)
	b, err := New(context.Background(), a.setup)
	if err != nil {
		t.Fatal(err)
	}
	if a.Fingerprint() != b.Fingerprint() {
		t.Fatal("the same setup gave two fingerprints")
	}
	st := a.setup
	x := mat.DenseCopyOf(st.Data.X)
	x.Set(7, 2, x.At(7, 2)+1e-9)
	if st.Data, err = multiclass.NewData(x, st.Data.Y, 3); err != nil {
		t.Fatal(err)
	}
	c, err := New(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if c.Fingerprint() == a.Fingerprint() {
		t.Error("a changed feature kept the fingerprint")
	}
}
