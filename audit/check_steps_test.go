package audit_test

import (
	"context"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/internal/steps"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// Every demo subject's Check counts its checks for a progress bar: it reports 0 of them
// first, then one more after each, and ends with all of them done — so the total it
// announces is the number it runs, whichever attacks are asked for.
func TestChecksReportTheirCount(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every demo subject's trials and checks")
	}
	ds, err := reference.SyntheticClassification(120, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, attacks := range []audit.Attacks{nil, {audit.MembershipAttack}} {
		setup, err := audit.NewDemoSetup(ds, audit.DemoConfig{Lambda: 0.05, Epsilon: 1, Delta: 1e-6, Seed: 1, Confidence: 0.95, PowerAgainst: 2, Attacks: attacks})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range audit.Methods() {
			var variants []string
			for _, v := range audit.DemoVariantsOf(m) {
				variants = append(variants, v.Name)
			}
			subjects, err := audit.RunDemo(context.Background(), m, setup, variants, audit.DefaultArgs(audit.DemoParamsOf(m)))
			if err != nil {
				t.Fatalf("%s: %v", m.Name(), err)
			}
			for _, a := range subjects {
				results, err := trials.Engine{}.Run(context.Background(), a.Subject, 1, checks.MinEmpiricalTrials)
				if err != nil {
					t.Fatalf("%s: %v", a.Subject.Name(), err)
				}
				var got [][2]int
				ctx := steps.With(context.Background(), func(stage string, done, total int) {
					if stage != "" {
						t.Errorf("%s: a report of stage %q; want the checks' count alone", a.Subject.Name(), stage)
					}
					got = append(got, [2]int{done, total})
				})
				if _, err := a.Check(ctx, results); err != nil {
					t.Fatalf("%s: %v", a.Subject.Name(), err)
				}
				if len(got) < 2 {
					t.Errorf("%s with attacks %v: reports %v; want a count", a.Subject.Name(), attacks, got)
					continue
				}
				total := got[0][1]
				for i, r := range got {
					if r != [2]int{i, total} {
						t.Errorf("%s with attacks %v: reports %v; want 0..%d of %d", a.Subject.Name(), attacks, got, total, total)
						break
					}
				}
				if len(got) != total+1 {
					t.Errorf("%s with attacks %v: %d reports of %d checks; want each counted", a.Subject.Name(), attacks, len(got), total)
				}
			}
		}
	}
}
