package safeaudit

import (
	"context"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/internal/audittest"
)

// Every negative control FAILs its subject's own audit, with the check that should catch
// it among the FAILing ones, while the honest subject, on the same seed and trials, does
// not FAIL those checks. The published-model check is deterministic (rounding only: the
// honest subject never FAILs it); the release checks are statistical at 0.95: their five
// noise tests share 0.05 (Bonferroni), and their intervals' false FAIL needs a divergence
// near the claim, far above the honest one here, so the honest subject FAILs them with
// probability at most about 0.05 — with these fixed seeds it does not.
func TestControlsCaught(t *testing.T) {
	s := instance(t)
	// the attacks are left out: no control is meant for them, and their power simulation
	// would take most of the test's time
	opt := audit.CheckOptions{Seed: 2, MIASamples: 50, Attacks: audit.Attacks{}}
	const n = 12
	run := func(a audit.Audited) map[string]verdict.Finding {
		t.Helper()
		res, err := trials.Engine{}.Run(context.Background(), a.Subject, 2, n)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := a.Check(context.Background(), res)
		if err != nil {
			t.Fatal(err)
		}
		return audittest.ByCheck(fs)
	}
	honest := run(audit.Audited{Subject: s, Check: func(ctx context.Context, r []trials.TrialResult) ([]verdict.Finding, error) {
		return Check(ctx, s, r, opt)
	}})
	want := map[string][]string{
		"half-variance":  {"safe/release/renyi", "safe/release/exact-epsilon"},
		"update-skipped": {"safe/implementation/published"},
		"stale-horizon":  {"safe/implementation/published"},
	}
	ctls := Controls(s, opt)
	if len(ctls) != len(want) {
		t.Fatalf("%d controls; want %d", len(ctls), len(want))
	}
	names := map[string]bool{s.Name(): true}
	fps := map[string]bool{trials.Fingerprint(s): true}
	for _, c := range ctls {
		checks, ok := want[c.Name]
		if !ok {
			t.Errorf("unexpected control %q", c.Name)
			continue
		}
		sub := c.Audited.Subject
		if names[sub.Name()] || fps[trials.Fingerprint(sub)] {
			t.Errorf("%s: name %q or fingerprint shared with another subject: checkpoints would mix", c.Name, sub.Name())
		}
		names[sub.Name()], fps[trials.Fingerprint(sub)] = true, true
		fs := run(c.Audited)
		var all []verdict.Finding
		for _, f := range fs {
			all = append(all, f)
		}
		if v := verdict.Decide(sub.Claim(), all); v != verdict.Fail {
			t.Errorf("%s: verdict %s; want FAIL", c.Name, v)
		}
		for _, name := range checks {
			f, ok := fs[name]
			if !ok || f.Verdict != verdict.Fail {
				t.Errorf("%s: %s %v (%s); want FAIL", c.Name, name, f.Verdict, f.Detail)
			}
			t.Logf("%s: %s measured %.3g, bound %.3g", c.Name, name, f.Measured, f.Bound)
			if h := honest[name]; h.Verdict == verdict.Fail {
				t.Errorf("honest subject: %s FAILs (%s)", name, h.Detail)
			}
		}
	}
	if f := honest["safe/implementation/published"]; f.Verdict != verdict.Pass {
		t.Errorf("honest subject: published model %v: %g (%s)", f.Verdict, f.Measured, f.Detail)
	} else {
		t.Logf("honest published-model gap %.3g (relative to γ)", f.Measured)
	}
}
