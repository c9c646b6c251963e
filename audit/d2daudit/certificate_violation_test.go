package d2daudit_test

import (
	"context"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/d2daudit"
	"github.com/unlearnaudit/unlearnaudit/internal/audittest"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
)

// distCertificates checks two trials without the attacks: the certificate findings read
// none of them.
func distCertificates(t *testing.T, s *d2daudit.DistSubject) map[string]verdict.Finding {
	t.Helper()
	res, err := trials.Engine{}.Run(context.Background(), s, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := d2daudit.CheckDist(context.Background(), s, res, audit.CheckOptions{Seed: 1, Attacks: audit.Attacks{}})
	if err != nil {
		t.Fatal(err)
	}
	return audittest.ByCheck(fs)
}

// A planted violation for every certificate finding D2D's audit emits (issue 28, item 4).
// The single-machine checks are planted elsewhere: d2d/certificate/sigma in
// TestCertificateCatchesBadDeclarations (σ/2) and TestWeakPrintedConstantFailsAboveXiTwo,
// the three constants both ways in TestDeclaredConstantsComparedTheRightWay, and
// d2d/certificate/corrected-accounting in TestDistributedAudit (the paper's schedule).
// Here the distributed audit's own wiring of σ and the constants: a deployment declaring
// half Theorem 4.5's σ, or half the data's Lipschitz constant, FAILs the matching check,
// and the honest deployment PASSes both.
func TestDistCertificateViolations(t *testing.T) {
	honest := distInstance(t, d2d.FixedSchedule, 2)
	fs := distCertificates(t, honest)
	for _, name := range []string{"d2d/certificate/sigma", "d2d/certificate/lipschitz", "d2d/certificate/smoothness", "d2d/certificate/strong-convexity"} {
		if f := fs[name]; f.Verdict != verdict.Pass {
			t.Errorf("honest: %s %v (%s)", name, f, f.Detail)
		}
	}
	for _, c := range []struct {
		name, check string
		plant       func(*d2daudit.DistSetup)
	}{
		{"σ/2", "d2d/certificate/sigma", func(st *d2daudit.DistSetup) { st.Sigma = honest.Plan().Sigma / 2 }},
		{"L/2", "d2d/certificate/lipschitz", func(st *d2daudit.DistSetup) { st.Params.Lipschitz /= 2 }},
		{"M/2", "d2d/certificate/smoothness", func(st *d2daudit.DistSetup) { st.Params.Smoothness /= 2 }},
		{"m×2", "d2d/certificate/strong-convexity", func(st *d2daudit.DistSetup) { st.Params.StrongConvexity *= 2 }},
	} {
		st := honest.Setup()
		c.plant(&st)
		s, err := d2daudit.NewDist(context.Background(), st)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if f := distCertificates(t, s)[c.check]; f.Verdict != verdict.Fail {
			t.Errorf("%s: %s %v (%s); want FAIL", c.name, c.check, f, f.Detail)
		}
	}
}
