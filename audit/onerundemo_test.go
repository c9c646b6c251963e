package audit_test

import (
	"context"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/onerun"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// oneRunBase is a demo setup on which a linear model can remember canaries one by one:
// 1,000 features for 1,000 records, so that up to a few hundred canaries have nearly
// orthogonal directions (on the demo's 20 features the canaries trained on blur into one
// another and D2D's controls are not refuted up to m = 256).
func oneRunBase(t *testing.T, d int) audit.DemoSetup {
	t.Helper()
	ds, err := reference.SyntheticClassification(1000, d, 1)
	if err != nil {
		t.Fatal(err)
	}
	base, err := audit.NewDemoSetup(ds, audit.DemoConfig{Lambda: 0.05, Epsilon: 1, Delta: 1e-6, Seed: 1, Confidence: 0.95, PowerAgainst: 2})
	if err != nil {
		t.Fatal(err)
	}
	return base
}

// D2D's no-unlearning control (the model learned on 𝒟₀ and the included canaries,
// published with the certified noise) is refuted by one training run at m ≤ 128, and
// the honest variant is not refuted at that m nor at any m of the ladder. The one-run
// bound holds at 95 % confidence, so an honest subject is refuted with probability at
// most 5 % per audit; the seed is fixed, so the test is deterministic (it was not chosen
// to pass: seed 1 is the demo's default).
func TestOneRunDemoRefutesNoUnlearning(t *testing.T) {
	if testing.Short() {
		t.Skip("one-run demo on 1,000 features: a few seconds")
	}
	base := oneRunBase(t, 1000)
	m, ok := audit.MethodNamed("d2d")
	if !ok {
		t.Fatal("d2d not registered")
	}
	args := audit.DefaultArgs(m.DemoParams())
	args.Set("iterations", "100")
	res, err := audit.OneRunDemo(context.Background(), m, base, []string{"strongly-convex"}, args, audit.OneRunConfig{Ladder: []int{32, 64, 128}})
	if err != nil {
		t.Fatal(err)
	}
	var honest, ctl *audit.OneRunResult
	for i, r := range res {
		switch r.Control {
		case "":
			honest = &res[i]
		case "no-unlearning":
			ctl = &res[i]
		}
		t.Logf("%s %s: refuted at %d, bounds %.3g, 2ε = %.3g", r.Subject, r.Control, r.RefutedAt, r.Bounds, r.Finding.Bound)
	}
	if honest == nil || ctl == nil {
		t.Fatalf("results %+v: want the honest subject and its no-unlearning control", res)
	}
	if ctl.RefutedAt == 0 || ctl.Finding.Verdict != audit.Fail || !(ctl.Finding.Measured > ctl.Finding.Bound) {
		t.Errorf("no-unlearning: not refuted up to m = %d (bounds %v, 2ε = %g)", ctl.Largest, ctl.Bounds, ctl.Finding.Bound)
	}
	if honest.RefutedAt != 0 {
		t.Errorf("honest strongly-convex refuted at m = %d (bounds %v)", honest.RefutedAt, honest.Bounds)
	}
	if honest.Largest != 128 || len(honest.Bounds) != 3 {
		t.Errorf("honest subject run at %d of the ladder up to m = %d; want every m", len(honest.Bounds), honest.Largest)
	}
	if !honest.Claim.Requires(audit.Empirical) || honest.Finding.Check != "d2d/empirical/one-run" {
		t.Errorf("claim requires %v, check %q", honest.Claim.Required, honest.Finding.Check)
	}
}

// The canaries are a prefix family (OneRunCanaries(m) begins OneRunCanaries(m+k)), at
// 𝒟₀'s largest row norm, with fresh IDs; the setup deletes exactly the included ones.
func TestOneRunSetup(t *testing.T) {
	base := oneRunBase(t, 20)
	c8, err := audit.OneRunCanaries(base.Data, base.Lambda, base.Radius, 3, 8)
	if err != nil {
		t.Fatal(err)
	}
	c4, _ := audit.OneRunCanaries(base.Data, base.Lambda, base.Radius, 3, 4)
	for i := range c4 {
		if c4[i].ID != c8[i].ID || c4[i].X[0] != c8[i].X[0] || c4[i].Y != c8[i].Y {
			t.Fatalf("canary %d differs between m = 4 and m = 8", i)
		}
		if base.Data.Has(c4[i].ID) {
			t.Fatalf("canary %d reuses ID %d", i, c4[i].ID)
		}
	}
	plan := []bool{true, false, true, true, false, false, true, false}
	s, err := audit.OneRunSetup(base, c8, plan)
	if err != nil {
		t.Fatal(err)
	}
	if s.Data.Len() != base.Data.Len()+4 || s.All.Len() != base.Data.Len()+8 || len(s.Deletions) != 4 || len(s.Updates) != 4 {
		t.Fatalf("setup: %d data, %d all, %d deletions", s.Data.Len(), s.All.Len(), len(s.Deletions))
	}
	if s.Deletions[1] != c8[2].ID {
		t.Errorf("second deletion %d; want canary 2's ID %d", s.Deletions[1], c8[2].ID)
	}
	margins, err := audit.CanaryMargins(make([]float64, 20), c8)
	if err != nil || len(margins) != 8 || margins[0] != 0 {
		t.Errorf("margins under 0: %v, %v", margins, err)
	}
	if _, err := audit.CanaryMargins(make([]float64, 7), c8); err == nil {
		t.Error("a model of 7 coordinates on 20 features scored")
	}
}

// OLU's paper-gamma control (noise sized by a contraction the steps do not achieve, so
// the included canaries outlive their deletion) is refuted by one run at m ≤ 64; the
// honest passive variant is not (the same 5 % bound and fixed seed as above).
func TestOneRunDemoRefutesOLUPaperGamma(t *testing.T) {
	if testing.Short() {
		t.Skip("one-run demo on 1,000 features: a few seconds")
	}
	base := oneRunBase(t, 1000)
	m, ok := audit.MethodNamed("olu")
	if !ok {
		t.Fatal("olu not registered")
	}
	res, err := audit.OneRunDemo(context.Background(), m, base, []string{"passive"}, audit.DefaultArgs(m.DemoParams()), audit.OneRunConfig{Ladder: []int{32, 64}})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range res {
		t.Logf("%s %s: refuted at %d, bounds %.3g", r.Subject, r.Control, r.RefutedAt, r.Bounds)
		switch r.Control {
		case "":
			if r.RefutedAt != 0 {
				t.Errorf("honest %s refuted at m = %d (bounds %v)", r.Subject, r.RefutedAt, r.Bounds)
			}
		case "paper-gamma":
			found = true
			if r.RefutedAt == 0 {
				t.Errorf("paper-gamma not refuted up to m = %d (bounds %v)", r.Largest, r.Bounds)
			}
		}
	}
	if !found {
		t.Error("no paper-gamma control")
	}
}

// A one-run finding states the most its run could show (every included canary guessed):
// perfectly separated canary scores refute ε = 1 at δ = 1e-6 with 1,000 canaries, and at
// δ = 1e-3 no outcome of the run could (δ' = (1 + e)·1e-3 makes the p-value's δ term
// dominate), which the finding says instead of leaving the user to guess.
func TestOneRunFindingResolution(t *testing.T) {
	plan := onerun.DrawPlan(3, 1000)
	member := make([]float64, len(plan))
	for i, in := range plan {
		if in {
			member[i] = 1 + float64(i)/1e4
		}
	}
	f, err := audit.OneRunFinding("x", plan, member, 1, 1e-6, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if f.Verdict != audit.Fail || !strings.Contains(f.Detail, "at best") {
		t.Errorf("δ = 1e-6: %s, %s", f.Verdict, f.Detail)
	}
	f, err = audit.OneRunFinding("x", plan, member, 1, 1e-3, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("δ = 1e-3: %s ε ≥ %.3g: %s", f.Verdict, f.Measured, f.Detail)
	if f.Verdict != audit.Inconclusive || !strings.Contains(f.Detail, "no outcome of this run could refute the claim") {
		t.Errorf("δ = 1e-3: %s, %s", f.Verdict, f.Detail)
	}
}
