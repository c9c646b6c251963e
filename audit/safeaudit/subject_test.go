package safeaudit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/internal/audittest"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"github.com/unlearnaudit/unlearnaudit/reference/safe"
	"gonum.org/v1/gonum/mat"
)

// instance is SAFE on three-class softmax regression over 240 training records and 120
// test records, four rounds of 10 deletions.
func instance(t *testing.T) *Subject {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 6))
	build := func(n int) *multiclass.Data {
		x := mat.NewDense(n, 4, nil)
		y := make([]int, n)
		for i := range n {
			y[i] = r.IntN(3)
			for j := range 4 {
				x.Set(i, j, r.NormFloat64()+0.8*float64((y[i]+j)%3))
			}
		}
		d, err := multiclass.NewData(x, y, 3)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	train, test := build(240), build(120)
	ids := make([]int64, train.Len())
	for i := range ids {
		ids[i] = int64(1000 + i)
	}
	stream, err := safe.RandomStream(train.Len(), 4, 10, rand.New(rand.NewPCG(7, 8)))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), Setup{Model: multiclass.Softmax{K: 3, P: 4, Lambda: 0.05}, Train: train, Test: test, IDs: ids,
		Stream: stream, Config: safe.Config{Lambda: 100, K: 2.5, Proj: 3}, Epsilon: 1, Delta: 1e-5, Seed: 3})
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
	fs, err := Check(context.Background(), s, res, audit.CheckOptions{Seed: 2, MIASamples: 50})
	if err != nil {
		t.Fatal(err)
	}
	return audittest.ByCheck(fs)
}

// The reference passes every required check — the certificate, the sensitivity it
// charges against the shift met, the recursion and the step every round, the release — and
// the report carries the streaming finding with its four per-round traces. The release
// checks are statistical at 0.95 (false-failure probability ≤ 0.05 each).
func TestReferencePasses(t *testing.T) {
	s := instance(t)
	fs := checked(t, s, 40)
	var all []verdict.Finding
	for _, name := range []string{"safe/certificate/sigma", "safe/certificate/sensitivity", "safe/implementation/recursion", "safe/implementation/step",
		"safe/release/renyi", "safe/release/exact-epsilon", "safe/empirical/epsilon-lower-bound", "safe/empirical/membership", "safe/stream/svc-attack"} {
		f, ok := fs[name]
		if !ok {
			t.Fatalf("no finding %s", name)
		}
		all = append(all, f)
	}
	if v := verdict.Decide(s.Claim(), all); v != verdict.Pass {
		for _, f := range all {
			t.Log(f, f.Detail)
		}
		t.Fatalf("verdict %s", v)
	}
	st := fs["safe/stream/svc-attack"]
	if len(st.Traces) != 4 || len(st.Traces[0].Requests) != 4 || !strings.Contains(st.Detail, "80 %") {
		t.Errorf("stream finding: %d traces, detail %q", len(st.Traces), st.Detail)
	}
	if sens := fs["safe/certificate/sensitivity"]; len(sens.Traces) != 1 || !(sens.Measured > 0) {
		t.Errorf("sensitivity finding %+v", sens)
	}
	// the release check holds D_2 against the claim's curve α·ρ at α = 2, with ρ Theorem
	// 2(iii)'s ε²/(4 ln(1.25/δ)) (see TestClaimRhoIsTheorem2s): 2/(4 ln 125 000)
	close(t, "the Rényi finding's bound α·ρ", fs["safe/release/renyi"].Bound, 2*0.021301851552944288, 1e-12)
}

// The claim's Rényi curve is Theorem 2(iii)'s Gaussian mechanism (spec safe §2.1 step 7,
// §3.6): noise N(0, σ²I) at L2 sensitivity W has D_α ≤ α·W²/(2σ²), so ρ = W²/(2σ²), and
// at the theorem's σ = W·√(2 ln(1.25/δ))/ε that is ε²/(4 ln(1.25/δ)) whatever W is. Spec
// vectors, by Python's math: ε = 1, δ = 1e-5 gives 1/(4 ln 125 000) =
// 0.021301851552944288; ε = 0.5, δ = 1e-6 gives 0.0044519937248608645. The claim's own
// derivation (W, σ) must give the same ρ. A ρ doubled (or halved) anywhere is off by a
// factor 2, far outside the rounding allowed (1e-12 relative).
func TestClaimRhoIsTheorem2s(t *testing.T) {
	s := instance(t)
	other := s.setup
	other.Epsilon, other.Delta = 0.5, 1e-6
	s2, err := New(context.Background(), other)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s    *Subject
		want float64
	}{{s, 0.021301851552944288}, {s2, 0.0044519937248608645}} {
		claim := c.s.Claim()
		close(t, fmt.Sprintf("ρ at ε = %g, δ = %g", claim.Epsilon, claim.Delta), claim.Rho, c.want, 1e-12)
		step := map[string]float64{}
		for _, d := range claim.Derivation {
			step[d.Quantity] = d.Value
		}
		W, sigma := step["W"], step["σ"]
		if !(W > 0 && sigma > 0) {
			t.Fatalf("the claim's derivation has W = %v, σ = %v", W, sigma)
		}
		close(t, "ρ against W²/(2σ²) of the claim's derivation", claim.Rho, W*W/(2*sigma*sigma), 1e-12)
	}
}

// Wrong certificates are caught: a σ ten times too small makes the release's exact ε
// exceed the claim; a W smaller than the shift met fails the sensitivity check.
func TestWrongCertificatesCaught(t *testing.T) {
	s := instance(t)
	s.sigma /= 100
	s.fp += "|small σ"
	if f := checked(t, s, 12)["safe/release/exact-epsilon"]; f.Verdict != verdict.Fail {
		t.Errorf("σ/100: exact-epsilon %v (%s)", f.Verdict, f.Detail)
	}
	s = instance(t)
	s.bound = 1e-3
	if f := checked(t, s, 8)["safe/certificate/sensitivity"]; f.Verdict != verdict.Fail || !(f.Measured > f.Bound) {
		t.Errorf("W = 1e-3: sensitivity %v (%s)", f.Verdict, f.Detail)
	}
}

// Bad setups are refused: no request, record IDs that do not pair with the rows.
func TestSetupRefusals(t *testing.T) {
	s := instance(t)
	st := s.setup
	st.Stream = nil
	if _, err := New(context.Background(), st); err == nil {
		t.Error("no requests accepted")
	}
	st = s.setup
	st.IDs = st.IDs[1:]
	if _, err := New(context.Background(), st); err == nil || !strings.Contains(err.Error(), "IDs") {
		t.Errorf("short IDs: %v", err)
	}
}
