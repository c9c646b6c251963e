package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Models scikit-learn trained (testdata/verify/make_models.py): a correct unlearner's law
// against the retrained law cannot be shown to violate the claim, and 40 models a side
// lack the power to PASS it, so the verdict is INCONCLUSIVE with the trials that would
// decide (exit 3); an unlearner that ignored the deletion is caught (FAIL, exit 1). The
// fixture is one draw: a correct pair FAILs a game at confidence 0.95 with probability at
// most 0.05, and this draw does not.
func TestVerifySavedModels(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	// δ = 1e-3 keeps the power planning quick; the verdicts are those at the README's 1e-5
	os.WriteFile(spec, []byte(`{"method": {"name": "d2d"}, "claim": {"epsilon": 1, "delta": 1e-3}}`), 0o644)
	models := filepath.Join("testdata", "verify")
	for _, c := range []struct {
		unlearned string
		code      int
		want      []string
	}{
		{"good", exitInconclusive, []string{"INCONCLUSIVE verify/d2d", "trials per side needed"}},
		{"broken", exitFail, []string{"FAIL verify/d2d", "overall: FAIL"}},
	} {
		out := filepath.Join(dir, c.unlearned)
		stdout, stderr, code := runCLI(t, "verify", "--spec", spec, "--unlearned", filepath.Join(models, c.unlearned), "--retrained", filepath.Join(models, "retrained"), "--out", out)
		if code != c.code {
			t.Fatalf("%s: exit %d, want %d; %s %s", c.unlearned, code, c.code, stdout, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: output lacks %q:\n%s", c.unlearned, w, stdout)
			}
		}
		js, err := os.ReadFile(filepath.Join(out, "report.json"))
		if err != nil || !strings.Contains(string(js), `"role": "retrained model"`) || !strings.Contains(string(js), `"command": "verify"`) {
			t.Errorf("%s: report %v lacks the inputs' provenance", c.unlearned, err)
		}
	}
}

// What the models supplied cannot support is said, and nothing is written.
func TestVerifyRefusals(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	os.WriteFile(spec, []byte(`{"method": {"name": "d2d"}}`), 0o644)
	few := filepath.Join(dir, "few")
	os.MkdirAll(few, 0o755)
	for i := range 3 {
		b, _ := os.ReadFile(filepath.Join("testdata", "verify", "good", "model_0"+string(rune('0'+i))+".npy"))
		os.WriteFile(filepath.Join(few, "m"+string(rune('0'+i))+".npy"), b, 0o644)
	}
	retrained := filepath.Join("testdata", "verify", "retrained")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--unlearned", few, "--retrained", few}, "3 model(s) a side; the distributional game needs at least 8"},
		{[]string{"--unlearned", few, "--retrained", retrained}, "3 unlearned and 40 retrained models"},
		{[]string{"--unlearned", few}, "--retrained is required"},
		{[]string{"--unlearned", filepath.Join(dir, "none"), "--retrained", retrained}, "--unlearned"},
	} {
		out := filepath.Join(dir, "out")
		_, stderr, code := runCLI(t, append([]string{"verify", "--spec", spec, "--out", out}, c.args...)...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: %s was written", c.args, out)
		}
	}
}

// The per-example route (--scores): each model's loss on the 50 deleted records, as NumPy
// saved them. Against a claim of ε = 0.5 the correct unlearner's scores show nothing
// (INCONCLUSIVE: 40 models lack the power) and the one that ignored the deletion is caught
// (FAIL on one example). At ε = 1 the same scores cannot show it — the route is
// weaker than the parameters', which the report's power statement says.
func TestVerifyScores(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	os.WriteFile(spec, []byte(`{"method": {"name": "d2d"}, "claim": {"epsilon": 0.5, "delta": 1e-3}}`), 0o644)
	models := filepath.Join("testdata", "verify")
	for _, c := range []struct {
		unlearned string
		code      int
		want      string
	}{{"good", exitInconclusive, "INCONCLUSIVE verify/d2d: largest ε lower bound of the 50 per-example games"},
		{"broken", exitFail, "FAIL verify/d2d: largest ε lower bound of the 50 per-example games"}} {
		stdout, stderr, code := runCLI(t, "verify", "--scores", "--spec", spec, "--unlearned", filepath.Join(models, "scores_"+c.unlearned+".npz"),
			"--retrained", filepath.Join(models, "scores_retrained.npz"), "--out", filepath.Join(dir, c.unlearned))
		if code != c.code || !strings.Contains(stdout, c.want) {
			t.Errorf("%s: exit %d, want %d; %s %s", c.unlearned, code, c.code, stdout, stderr)
		}
	}
}
