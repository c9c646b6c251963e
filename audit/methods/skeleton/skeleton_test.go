package skeleton_test

import (
	"context"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	_ "github.com/unlearnaudit/unlearnaudit/audit/methods/skeleton" // registers "skeleton", as a new method's import would
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// The skeleton joins through the registry alone, as docs/adding-a-method.md promises: once
// imported it is found by name and by variant, its demo parameter carries its prefix, and
// its demo, run through the library (no line of cmd/), audits a subject whose honest run
// PASSes every finding its claim requires, while its weak-noise control FAILs the release
// checks. (Planted bugs seen caught: the subject publishing with σ/10 itself fails the
// PASS; the control publishing the right noise is not caught.)
func TestSkeletonJoinsThroughTheRegistry(t *testing.T) {
	m, ok := audit.MethodNamed("skeleton")
	if !ok {
		t.Fatal("skeleton is not registered")
	}
	if d, ok := audit.MethodOfVariant("skeleton-mean"); !ok || d.Name() != "skeleton" {
		t.Fatalf("variant skeleton-mean belongs to %v", d)
	}
	ds, err := reference.SyntheticClassification(120, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	setup, err := audit.NewDemoSetup(ds, audit.DemoConfig{Lambda: 0.05, Epsilon: 1, Delta: 1e-5, Seed: 2, Confidence: 0.95, PowerAgainst: 2, Attacks: audit.Attacks{}})
	if err != nil {
		t.Fatal(err)
	}
	args := audit.DefaultArgs(audit.DemoParamsOf(m))
	got, err := audit.RunDemo(context.Background(), m, setup, []string{"skeleton-mean"}, args)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0].Controls) != 1 {
		t.Fatalf("%d subjects; want one, with one control", len(got))
	}
	run := func(a audit.Audited) []verdict.Finding {
		t.Helper()
		res, err := trials.Engine{}.Run(context.Background(), a.Subject, 2, 40)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := a.Check(context.Background(), res)
		if err != nil {
			t.Fatal(err)
		}
		return fs
	}
	honest := run(got[0])
	if len(honest) < 3 {
		t.Fatalf("%d findings; want the certificate and the release's", len(honest))
	}
	for _, f := range honest {
		if f.Verdict == verdict.Fail {
			t.Errorf("honest skeleton: %s FAILs: %s", f.Check, f.Detail)
		}
	}
	caught := false
	for _, f := range run(got[0].Controls[0].Audited) {
		caught = caught || f.Verdict == verdict.Fail && strings.HasPrefix(f.Check, "skeleton/release")
	}
	if !caught {
		t.Error("the weak-noise control FAILs no release check")
	}
	// a bad setting is refused by its flag's name, even when no variant is wanted
	args.Set("skeleton-noise-scale", "x")
	if _, err := audit.RunDemo(context.Background(), m, setup, nil, args); err == nil || !strings.Contains(err.Error(), "--skeleton-noise-scale") {
		t.Errorf("a bad setting: %v; want it named", err)
	}
}

// Settings read from Args built from other Params are refused by name, never read as "".
func TestReadSettingsRefusesAnUndeclaredName(t *testing.T) {
	var n int
	var s string
	ss := []audit.Setting{audit.IntSetting(&n, audit.Param{Name: "x-n", Default: "3"}), audit.StringSetting(&s, audit.Param{Name: "x-s", Default: "a"})}
	if err := audit.ReadSettings(audit.DefaultArgs(audit.SettingParams(ss)), ss); err != nil || n != 3 || s != "a" {
		t.Errorf("ReadSettings = %v, %d, %q", err, n, s)
	}
	err := audit.ReadSettings(audit.DefaultArgs(audit.SettingParams(ss[:1])), ss)
	if err == nil || !strings.Contains(err.Error(), `setting "x-s"`) {
		t.Errorf("an undeclared setting: %v; want it named", err)
	}
}
