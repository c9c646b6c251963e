package oluaudit

import (
	"context"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/internal/audittest"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// demo builds OLU's demo subjects on 300 synthetic records in 5 dimensions with the
// demo's three deletions. The distinguishing game's power simulation costs half a minute;
// the demo's own test in cmd/audit runs it, so these run the membership attack only.
func demo(t *testing.T) []audit.Audited {
	t.Helper()
	ds, err := reference.SyntheticClassification(300, 5, 4)
	if err != nil {
		t.Fatal(err)
	}
	setup, err := audit.NewDemoSetup(ds, audit.DemoConfig{Lambda: 0.05, Epsilon: 1, Delta: 1e-6, Seed: 4, Attacks: audit.Attacks{audit.MembershipAttack}})
	if err != nil {
		t.Fatal(err)
	}
	m := Method{}
	out, err := m.Demo(context.Background(), setup, []string{Passive, Active}, audit.DefaultArgs(m.DemoParams()))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func run(t *testing.T, a audit.Audited, n int) map[string]verdict.Finding {
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

// Both algorithms pass every check their claim requires — σ recomputed, the accountant,
// the shift against what the noise is sized for, the implementation, the release — on the
// demo's stream. The release checks are statistical at 0.95 (false-failure probability
// at most 0.05 each, with fixed seeds).
func TestDemoSubjectsPass(t *testing.T) {
	for _, a := range demo(t) {
		fs := run(t, a, 60)
		for _, name := range []string{"olu/certificate/sigma", "olu/certificate/accountant", "olu/certificate/shift",
			"olu/implementation/no-requests", "olu/implementation/noise", "olu/release/renyi", "olu/release/exact-epsilon"} {
			f, ok := fs[name]
			if !ok {
				t.Fatalf("%s: no finding %s among %d", a.Subject.Name(), name, len(fs))
			}
			if f.Verdict != verdict.Pass {
				t.Errorf("%s: %s", a.Subject.Name(), f)
			}
		}
	}
}

// The negative controls fail: the paper's γ (passive) and a tenth of the noise (both) are
// caught by the subject's own checks, deterministically (σ recomputed) and by the release.
func TestDemoControlsFail(t *testing.T) {
	for _, a := range demo(t) {
		if len(a.Controls) == 0 {
			t.Fatalf("%s has no controls", a.Subject.Name())
		}
		for _, c := range a.Controls {
			fs := run(t, c.Audited, 60)
			if v := verdict.Decide(c.Audited.Subject.Claim(), flat(fs)); v != verdict.Fail {
				t.Errorf("control %s of %s: %s; want FAIL", c.Name, a.Subject.Name(), v)
			}
		}
	}
}

func flat(m map[string]verdict.Finding) []verdict.Finding {
	var out []verdict.Finding
	for _, f := range m {
		out = append(out, f)
	}
	return out
}
