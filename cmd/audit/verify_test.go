package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"

	auditspec "github.com/unlearnaudit/unlearnaudit/audit/spec" // the package, beside a local spec (a file)
	"github.com/unlearnaudit/unlearnaudit/audit/verify"
	"github.com/unlearnaudit/unlearnaudit/reference"
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
	os.WriteFile(spec, []byte(`{"method": {"name": "d2d"}, "claim": {"epsilon": 1, "delta": 1e-6}}`), 0o644)
	// half a claim verify would have to complete: refused, not audited at the demo's
	// defaults (a spec with no claim is measured: TestVerifyMeasures)
	for i, claimless := range []string{`{"claim": {"epsilon": 1}}`, `{"claim": {"delta": 1e-6}}`} {
		p := filepath.Join(dir, fmt.Sprintf("claimless%d.json", i))
		os.WriteFile(p, []byte(claimless), 0o644)
		out := filepath.Join(dir, "out")
		_, stderr, code := runCLI(t, "verify", "--spec", p, "--unlearned", retrained(), "--retrained", retrained(), "--out", out)
		if code != exitUsage || !strings.Contains(stderr, p+": claim: want both epsilon and delta") {
			t.Errorf("spec %s: exit %d, %q; want 2, naming the claim's fields", claimless, code, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("spec %s: %s was written", claimless, out)
		}
	}
	// the pre-noise route checks a certificate against a claim: without one it is refused,
	// not measured (no spec and no --epsilon/--delta)
	{
		out := filepath.Join(dir, "out")
		_, stderr, code := runCLI(t, "verify", "--unlearned", retrained(), "--retrained", retrained(),
			"--prenoise-unlearned", retrained(), "--prenoise-retrained", retrained(), "--out", out)
		if code != exitUsage || !strings.Contains(stderr, "--prenoise-unlearned checks a certificate against a claim") {
			t.Errorf("pre-noise without a claim: exit %d, %q; want 2, asking for the claim", code, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("pre-noise without a claim: %s was written", out)
		}
	}
	// nor without a spec to declare Δ and σ, even with the claim's flags
	{
		out := filepath.Join(dir, "out")
		_, stderr, code := runCLI(t, "verify", "--epsilon", "1", "--delta", "1e-5", "--unlearned", retrained(), "--retrained", retrained(),
			"--prenoise-unlearned", retrained(), "--prenoise-retrained", retrained(), "--out", out)
		if code != exitUsage || !strings.Contains(stderr, "--prenoise-unlearned checks the certificate a spec declares: give --spec FILE") {
			t.Errorf("pre-noise without a spec: exit %d, %q; want 2, asking for the spec", code, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("pre-noise without a spec: %s was written", out)
		}
	}
	few := filepath.Join(dir, "few")
	os.MkdirAll(few, 0o755)
	for i := range 3 {
		b, _ := os.ReadFile(filepath.Join("testdata", "verify", "good", "model_0"+string(rune('0'+i))+".npy"))
		os.WriteFile(filepath.Join(few, "m"+string(rune('0'+i))+".npy"), b, 0o644)
	}
	retrained := retrained()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--unlearned", few, "--retrained", few}, "3 unlearned model(s); the game on parameters needs at least 8 a side. Fewer models are audited by the rank"},
		{[]string{"--unlearned", retrained, "--retrained", few}, "3 retrained model(s); the game needs at least 8 a side"},
		{[]string{"--unlearned", few}, "recipe: deletes: none named"},
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

// The per-record route (--scores): each model's loss on the 50 deleted records, as NumPy
// saved them. Against a claim of ε = 0.5 the correct unlearner's scores show nothing
// (INCONCLUSIVE: 40 models lack the power) and the one that ignored the deletion is caught
// by the game over each model's mean and median loss (FAIL).
func TestVerifyScores(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	os.WriteFile(spec, []byte(`{"method": {"name": "d2d"}, "claim": {"epsilon": 0.5, "delta": 1e-3}}`), 0o644)
	models := filepath.Join("testdata", "verify")
	for _, c := range []struct {
		unlearned string
		code      int
		want      string
	}{{"good", exitInconclusive, "INCONCLUSIVE verify/d2d: ε lower bound of a distinguishing game over 2 pre-registered statistics of the per-record scores"},
		{"broken", exitFail, "FAIL verify/d2d: ε lower bound of a distinguishing game over 2 pre-registered statistics of the per-record scores"}} {
		stdout, stderr, code := runCLI(t, "verify", "--scores", "--spec", spec, "--unlearned", filepath.Join(models, "scores_"+c.unlearned+".npz"),
			"--retrained", filepath.Join(models, "scores_retrained.npz"), "--out", filepath.Join(dir, c.unlearned))
		if code != c.code || !strings.Contains(stdout, c.want) {
			t.Errorf("%s: exit %d, want %d; %s %s", c.unlearned, code, c.code, stdout, stderr)
		}
	}
}

// writeModels writes n models a subject publishes (on a seed of their own) as a CSV
// matrix, one model a row: models "trained elsewhere" by the toolkit's own recipe.
func writeModels(t *testing.T, path string, sub trials.Subject, n int) {
	t.Helper()
	var b strings.Builder
	for i := range n {
		rel, err := sub.Unlearned(context.Background(), reference.Streams{Seed: 9090, Trial: i})
		if err != nil {
			t.Fatal(err)
		}
		for j, v := range rel.Published {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Without --retrained, verify retrains by the spec's recipe: 40 models of D2D's one-shot
// variant are not failed (false-failure probability 1 − confidence = 5 %, seeds fixed)
// and the report says the retrains are the toolkit's; 40 models with a tenth of the noise
// are failed; one model gets the rank test of the deleted records' mean loss and is
// INCONCLUSIVE, saying what would decide; a spec naming two variants, or --scores without retrained scores, is
// refused.
func TestVerifyRetrainsByRecipe(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "recipe.json")
	os.WriteFile(spec, []byte(`{"method": {"name": "d2d", "variants": ["perfect"]}, "deletes": [830, 3, 4],
		"claim": {"epsilon": 1, "delta": 1e-3}, "trials": 40}`), 0o644)
	s, err := auditspec.LoadSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := reference.SyntheticClassification(1000, 20, s.Seed) // the data the spec names: the built-in set
	if err != nil {
		t.Fatal(err)
	}
	recipe, err := verify.NewRecipe(t.Context(), s, ds)
	if err != nil {
		t.Fatal(err)
	}
	good, weak, one := filepath.Join(dir, "good.csv"), filepath.Join(dir, "weak.csv"), filepath.Join(dir, "one.csv")
	writeModels(t, good, recipe.Audited.Subject, 40)
	writeModels(t, one, recipe.Audited.Subject, 1)
	for _, c := range recipe.Audited.Controls {
		if c.Name == "weak-noise" {
			writeModels(t, weak, c.Audited.Subject, 40)
		}
	}
	for _, c := range []struct {
		models string
		codes  []int
		want   []string
	}{
		{good, []int{exitPass, exitInconclusive}, []string{"verify/d2d", "40 retrains by the spec's recipe"}},
		{weak, []int{exitFail}, []string{"FAIL verify/d2d"}},
		{one, []int{exitInconclusive}, []string{"INCONCLUSIVE verify/d2d", "rank of 1 unlearned model(s) among"}},
	} {
		out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(c.models), ".csv"))
		stdout, stderr, code := runCLI(t, "verify", "--spec", spec, "--unlearned", c.models, "--out", out)
		if !slices.Contains(c.codes, code) {
			t.Fatalf("%s: exit %d, want one of %v\n%s%s", c.models, code, c.codes, stdout, stderr)
		}
		md, _ := os.ReadFile(filepath.Join(out, "report.md"))
		for _, w := range c.want {
			if !strings.Contains(stdout+string(md), w) {
				t.Errorf("%s: neither the summary nor report.md says %q:\n%s", c.models, w, stdout)
			}
		}
		if c.models == one {
			need := regexp.MustCompile(`1 \(need (\d{3,})\)`).FindStringSubmatch(string(md))
			plan := regexp.MustCompile("audit plan (--trials [^`\\\\]+)").FindStringSubmatch(string(md))
			if !strings.Contains(string(md), "the distributional game decides, on at least 8 unlearned models") || need == nil || plan == nil {
				t.Fatalf("one model: report.md does not say what would decide:\n%s", md)
			}
			// the command it prints asks the same question: the planner says the same count
			out, errOut, code := runCLI(t, append(append([]string{"plan"}, strings.Fields(plan[1])...), "--json")...)
			var got struct {
				TrialsNeeded int `json:"trials_needed"`
			}
			if code != 0 || json.Unmarshal([]byte(out), &got) != nil || strconv.Itoa(got.TrialsNeeded) != need[1] {
				t.Errorf("audit plan %s: exit %d, %s%s; want %s trials needed, as the report says", plan[1], code, out, errOut, need[1])
			}
		}
	}
	two := filepath.Join(dir, "two.json")
	os.WriteFile(two, []byte(`{"method": {"name": "d2d", "variants": ["perfect", "strongly-convex"]}, "deletes": [3], "claim": {"epsilon": 1, "delta": 1e-6}}`), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"verify", "--spec", two, "--unlearned", good}, "two.json: recipe: method.variants: 2 selected"},
		{[]string{"verify", "--spec", spec, "--scores", "--unlearned", good}, "--scores needs --retrained"},
	} {
		out := filepath.Join(dir, "refused")
		_, stderr, code := runCLI(t, append(c.args, "--out", out)...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: refused, yet wrote %s", c.args, out)
		}
	}
}

// retrained is the 40 retrained models of testdata/verify.
func retrained() string { return filepath.Join("testdata", "verify", "retrained") }

// Models of another size on one side are refused naming each side's first model by its
// parts — what was read from it, shape and type — so that an array saved beside the
// weights (a loss curve) is seen at once; the message said only the two counts. Planted
// and caught: the parts left out.
func TestVerifyParameterCountsNameTheParts(t *testing.T) {
	dir := t.TempDir()
	u, r := filepath.Join(dir, "u"), filepath.Join(dir, "r")
	for _, side := range []struct {
		dir, row string
	}{{u, "0.5,1,2\n"}, {r, "0.5,1\n"}} {
		if err := os.Mkdir(side.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range 10 {
			if err := os.WriteFile(filepath.Join(side.dir, fmt.Sprintf("m%d.csv", i)), []byte(side.row), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	_, stderr, code := runCLI(t, "verify", "--unlearned", u, "--retrained", r, "--epsilon", "1", "--delta", "1e-3", "--out", filepath.Join(dir, "out"))
	want := fmt.Sprintf("verify: unlearned models have 3 parameters (%s: [1 3] csv), retrained ones 2 (%s: [1 2] csv)", filepath.Join(u, "m0.csv"), filepath.Join(r, "m0.csv"))
	if code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, %s; want %d and %s", code, stderr, exitUsage, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the output folder: %v; want none written", err)
	}
}
