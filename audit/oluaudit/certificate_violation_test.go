package oluaudit

import (
	"context"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/internal/audittest"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/olu"
)

// A planted violation for every certificate finding OLU's audits emit (issue 28, item 4).
// Elsewhere: the contraction audit's paper/gamma and paper/exact FAIL on the erratum-1
// cases and PASS at the constant step in TestContractionAudit; Theorem 5's stated bound
// FAILs on the spec's B5 instance in TestReproduceRegretQuick; regretFinding's FAIL,
// PASS and INCONCLUSIVE in TestRegretFindingPower.

// certificates checks a subject on a few trials without the attacks, which the
// certificate findings do not read.
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

// olu/certificate/{sigma, accountant, shift} on the demo's subjects. Honest, all three
// PASS. Planted:
//
//   - a passive deployment that sizes its noise with the paper's constant γ (erratum 1):
//     the σ_i recomputed with the valid contraction exceed the σ_i used (sigma FAILs), and
//     the accountant's Σ a²/(2σ²) at the valid shifts exceeds ρ (accountant FAILs);
//   - a deployment declaring a thousandth of the costs' Lipschitz constant: its σ_i are
//     what the declaration asks (sigma PASSes — the recomputation trusts the declared L),
//     but the coupled runs' shift exceeds the shift the noise is sized for (shift FAILs).
func TestSubjectCertificateViolations(t *testing.T) {
	for _, a := range demo(t) {
		s := a.Subject.(*Subject)
		name := s.Name()
		for check, f := range certificates(t, s) {
			if strings.HasPrefix(check, "olu/certificate/") && f.Verdict != verdict.Pass {
				t.Errorf("%s honest: %v (%s)", name, f, f.Detail)
			}
		}
		plant := func(change func(*Setup)) map[string]verdict.Finding {
			t.Helper()
			st := s.setup
			change(&st)
			m, err := New(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			return certificates(t, m)
		}
		if st := s.setup; st.Variant == Passive {
			fs := plant(func(st *Setup) { st.Config.Contraction = olu.PaperGamma })
			for _, check := range []string{"olu/certificate/sigma", "olu/certificate/accountant"} {
				if f := fs[check]; f.Verdict != verdict.Fail {
					t.Errorf("%s with the paper's γ: %v (%s); want FAIL", name, f, f.Detail)
				}
			}
		}
		fs := plant(func(st *Setup) { st.Config.Lipschitz /= 1000 })
		if f := fs["olu/certificate/shift"]; f.Verdict != verdict.Fail {
			t.Errorf("%s with L/1000: %v (%s); want FAIL", name, f, f.Detail)
		}
	}
}

// olu-contraction/<case>/corrected/{gamma, exact}: the valid contraction Γ(u, τ) is only as
// good as the declared curvature bounds. The spec's 1-D instance has curvature exactly 1;
// declared μ = 1 it PASSes both checks; declared μ = 2, Γ charges max(|1 − 2η_s|,
// |1 − 3η_s|) per step where the costs contract by 1 − η_s, so the measured contraction
// exceeds Γ (gamma FAILs) and the σ_i sized by it are too small (exact FAILs).
func TestContractionCorrectedViolation(t *testing.T) {
	cases, err := ContractionCases(nil, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	c := cases[0]
	if c.Name != "spec-1d" {
		t.Fatalf("first case %s; want spec-1d", c.Name)
	}
	verdicts := func(c ContractionCase) map[string]verdict.Verdict {
		t.Helper()
		res, err := ContractionAudit(context.Background(), c, 50, 1)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]verdict.Verdict{}
		for _, f := range res.Findings() {
			out[strings.TrimPrefix(f.Check, "olu-contraction/"+c.Name+"/")] = f.Verdict
		}
		return out
	}
	honest := verdicts(c)
	c.Config.Mu = 2
	planted := verdicts(c)
	for _, check := range []string{"corrected/gamma", "corrected/exact"} {
		if honest[check] != verdict.Pass || planted[check] != verdict.Fail {
			t.Errorf("%s: %s declared μ = 1, %s declared μ = 2; want PASS then FAIL", check, honest[check], planted[check])
		}
	}
}

// olu-regret/theorem-5-instance/judged/{paper-method, tight}: the spec's B5 instance's mean
// regret (≈ 5.8e5) is within both judged bounds at the true constants (3.4e6 and 1.2e6),
// and above each evaluated at one wrong declaration: the paper's-method bound at L = 2.5
// (an eighth of the costs' Lipschitz constant, 4.2e5), the tight bound at D = 10 (half
// the domain's diameter; its D²/(2η) term dominates, 3.0e5). The bounds increase in L and
// D; the regret does not depend on the declarations.
func TestTheorem5InstanceViolation(t *testing.T) {
	in, err := RunTheorem5Instance(context.Background(), 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	const D, L, kappa, T, k, d, eps, omega = 20.0, 20.0, 1.0, 10000, 1, 1, 4e-4, 1.2
	verdicts := func(in *Theorem5Instance) map[string]verdict.Verdict {
		out := map[string]verdict.Verdict{}
		for _, f := range in.Findings() {
			out[strings.TrimPrefix(f.Check, "olu-regret/theorem-5-instance/")] = f.Verdict
		}
		return out
	}
	honest := verdicts(in)
	low := *in
	low.Method = Thm5BoundPaperMethod(L/8, D, kappa, T, k, d, eps, omega)
	low.Tight = ConstStepRegretTight(D/2, L, in.Eta, T, k, d, eps, omega)
	planted := verdicts(&low)
	for _, check := range []string{"judged/paper-method", "judged/tight"} {
		if honest[check] != verdict.Pass || planted[check] != verdict.Fail {
			t.Errorf("%s: %s at the true constants, %s at a wrong one; want PASS then FAIL", check, honest[check], planted[check])
		}
	}
	if honest["paper/stated"] != verdict.Fail {
		t.Errorf("Theorem 5 as stated: %s; want FAIL on its counterexample", honest["paper/stated"])
	}
}

// olu-regret/T=<T>/k=<k>/judged/{thm2-corrected, thm3-derived, thm5-method}: at a small
// point every learner's mean regret is within its judged bound (PASS); evaluated at a
// declared Lipschitz constant and diameter a hundredth of the true ones (RegretAt's L from
// the loss on the ball holding every minimiser, D that ball's diameter), each bound falls
// below the regret measured (FAIL). Every judged bound grows in L and D.
func TestRegretBoundsViolation(t *testing.T) {
	ds, err := reference.SyntheticClassification(100, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	const lambda, T, k, eps, omega = 0.05, 300, 1, 1.0, 1.2
	p, err := RegretAt(context.Background(), RegretSetup{Data: ds, Lambda: lambda, T: T, K: k, Seeds: 8, Epsilon: eps, Omega: omega, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	judged := func(p *RegretPoint) map[string]verdict.Verdict {
		out := map[string]verdict.Verdict{}
		for _, f := range p.BoundFindings() {
			if key, ok := strings.CutPrefix(f.Check, "olu-regret/T=300/k=1/judged/"); ok {
				out[key] = f.Verdict
			}
		}
		return out
	}
	// RegretAt's constants, then a hundredth of them
	radius := ds.MaxRowNorm() / lambda
	L := reference.Logistic{Lambda: lambda}.Constants(ds, radius).Lipschitz / 100
	D, d := 2*radius/100, ds.Dim()
	var us, taus []int
	for _, q := range p.Sched {
		us, taus = append(us, q.U), append(taus, q.Tau)
	}
	low := *p
	low.Bounds = nil
	for _, b := range p.Bounds {
		switch b.Key {
		case "thm2-corrected":
			b.Value = Thm2BoundCorrected(L, lambda, T, k, d, eps, omega, taus)
		case "thm3-derived":
			b.Value = Thm3BoundDerived(D, L, lambda, T, k, d, eps, omega, taus, us)
		case "thm5-method":
			b.Value = Thm5BoundPaperMethod(L, D, lambda, T, k, d, eps, omega)
		}
		low.Bounds = append(low.Bounds, b)
	}
	honest, planted := judged(p), judged(&low)
	if len(honest) != 3 {
		t.Fatalf("judged bounds %v; want 3", honest)
	}
	for key, v := range honest {
		if v != verdict.Pass || planted[key] != verdict.Fail {
			t.Errorf("%s: %s at the true L and D, %s at L/100 and D/100; want PASS then FAIL", key, v, planted[key])
		}
	}
}
