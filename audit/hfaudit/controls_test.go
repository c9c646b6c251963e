package hfaudit

import (
	"context"
	"slices"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/internal/audittest"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// demo builds HF's demo subjects as "audit demo" does at its defaults (1000 synthetic
// records in 20 dimensions, λ = 0.05, ε = 1, δ = 1e-6, seed 1, three deletions), without
// the empirical attacks: none of the controls is caught by them, and their power
// simulation is what makes the demo slow.
func demo(t *testing.T) []audit.Audited {
	t.Helper()
	ds, err := reference.SyntheticClassification(1000, 20, 1)
	if err != nil {
		t.Fatal(err)
	}
	setup, err := audit.NewDemoSetup(ds, audit.DemoConfig{Lambda: 0.05, Epsilon: 1, Delta: 1e-6, Seed: 1, Confidence: 0.95, PowerAgainst: 2, Attacks: audit.Attacks{}})
	if err != nil {
		t.Fatal(err)
	}
	m := Method{}
	out, err := m.Demo(context.Background(), setup, []string{"hf", "hf-code"}, audit.DefaultArgs(m.DemoParams()))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// run audits a with the demo's seed (the checks replay the first trial from it).
func run(t *testing.T, a audit.Audited, n int) []verdict.Finding {
	t.Helper()
	res, err := trials.Engine{}.Run(context.Background(), a.Subject, 1, n)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := a.Check(context.Background(), res)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// Every negative control of both readings is FAILed by the subject's own checks at 30
// trials, and by the checks expected to catch it: the release checks' noise tests catch
// the noise of half the variance and the noise sized for one deletion (about σ/2.7 under
// the code's reading, σ/3 under Theorem 4's); the relative error catches the skipped Stage III,
// which the error and release checks cannot (the learned model's drift from the retrain is
// below Δ̂ under both readings, so the release is within the certificate). The honest
// subjects PASS those same checks. The release checks are statistical at confidence 0.95:
// a false FAIL of an honest subject has probability at most 0.05 per subject (the noise
// tests and the divergence share that budget), here one fixed draw; the relative error is
// deterministic.
func TestControlsAreCaught(t *testing.T) {
	const trials = 30
	want := map[string][]string{
		"half-noise":        {"hf/release/renyi", "hf/release/exact-epsilon"},
		"stale-m":           {"hf/release/renyi", "hf/release/exact-epsilon"},
		"deletions-ignored": {"hf/implementation/relative-error"},
	}
	for _, a := range demo(t) {
		honest := audittest.ByCheck(run(t, a, trials))
		for _, checks := range want {
			for _, c := range checks {
				if f, ok := honest[c]; !ok || f.Verdict != verdict.Pass {
					t.Errorf("%s (honest): %s is %v (%s)", a.Subject.Name(), c, f.Verdict, f.Detail)
				}
			}
		}
		if len(a.Controls) != len(want) {
			t.Fatalf("%s: %d controls; want %d", a.Subject.Name(), len(a.Controls), len(want))
		}
		for _, c := range a.Controls {
			fs := run(t, c.Audited, trials)
			if v := verdict.Decide(c.Audited.Subject.Claim(), fs); v != verdict.Fail {
				t.Errorf("%s: verdict %s; want FAIL", c.Audited.Subject.Name(), v)
			}
			byCheck := audittest.ByCheck(fs)
			for _, name := range want[c.Name] {
				if f := byCheck[name]; f.Verdict != verdict.Fail {
					t.Errorf("%s: %s is %v; want FAIL (%s)", c.Audited.Subject.Name(), name, f.Verdict, f.Detail)
				}
			}
			if c.Name == "deletions-ignored" { // why the relative error is needed
				for _, name := range []string{"hf/implementation/error", "hf/release/exact-epsilon"} {
					if f := byCheck[name]; f.Verdict == verdict.Fail {
						t.Errorf("%s: %s FAILs (%s); the control's doc says it cannot", c.Audited.Subject.Name(), name, f.Detail)
					}
				}
			}
		}
	}
}

// A control's trials are kept apart from the subject's and from every other control's:
// each has its own name, fingerprint and checkpoint file.
func TestControlsKeptApart(t *testing.T) {
	a := demo(t)[0]
	paths := []string{trials.CheckpointPath("", a.Subject, 1)}
	fps := []string{trials.Fingerprint(a.Subject)}
	for _, c := range a.Controls {
		if want := a.Subject.Name() + "~" + c.Name; c.Audited.Subject.Name() != want {
			t.Errorf("control named %q; want %q", c.Audited.Subject.Name(), want)
		}
		p, fp := trials.CheckpointPath("", c.Audited.Subject, 1), trials.Fingerprint(c.Audited.Subject)
		if slices.Contains(paths, p) || slices.Contains(fps, fp) {
			t.Errorf("%s shares a checkpoint %s or fingerprint", c.Name, p)
		}
		paths, fps = append(paths, p), append(fps, fp)
		if c.Audited.Subject.(trials.Fingerprinter).Fingerprint() == a.Subject.(trials.Fingerprinter).Fingerprint() {
			t.Errorf("%s: the subject's own fingerprint", c.Name)
		}
	}
}
