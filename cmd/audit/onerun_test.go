package main

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/canary"
)

// A one-run audit from the command line: audit canaries draws the plan, a "pipeline"
// scores every canary under its one published model, and verify --one-run judges it.
// An unlearner that forgot nothing (included canaries keep a low loss) is refuted by one
// run of 1,000 canaries (FAIL, exit 1) at the claim ε = 1; an honest one (every canary's
// loss from one law) is not (INCONCLUSIVE, exit 3: a one-run audit never passes). Bad
// input is exit 2 naming the file and field, with nothing written: an edited plan, a
// plan overwritten, a NaN score, a count that does not match the plan.
func TestOneRunAudit(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "claim.json")
	os.WriteFile(spec, []byte(`{"method": {"name": "my-sgd"}, "claim": {"epsilon": 1, "delta": 1e-5}}`), 0o644)
	plan := filepath.Join(dir, "canaries.json")
	if stdout, stderr, code := runCLI(t, "canaries", "--seed", "7", "--canaries", "1000", "--out", plan); code != 0 || !strings.Contains(stdout, "1000 canaries") {
		t.Fatalf("canaries: exit %d: %s %s", code, stdout, stderr)
	}
	if _, stderr, code := runCLI(t, "canaries", "--seed", "8", "--out", plan); code != exitUsage || !strings.Contains(stderr, "never overwritten") {
		t.Errorf("a plan overwritten: exit %d, %s", code, stderr)
	}
	p, err := canary.ReadCanaryPlan(plan)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	write := func(name string, forgets bool, edit func([]string)) string {
		row := make([]string, p.Canaries)
		for i, in := range p.Included {
			loss := 1 + 0.3*r.NormFloat64()
			if in == 1 && !forgets {
				loss = 0.2 + 0.1*r.NormFloat64() // still fitted: never deleted
			}
			row[i] = strconv.FormatFloat(loss, 'g', -1, 64)
		}
		if edit != nil {
			edit(row)
		}
		path := filepath.Join(dir, name+".csv")
		os.WriteFile(path, []byte(strings.Join(row, "\n")+"\n"), 0o644)
		return path
	}
	for _, c := range []struct {
		name string
		code int
		want string
	}{{"kept", exitFail, "FAIL verify/my-sgd"}, {"honest", exitInconclusive, "INCONCLUSIVE verify/my-sgd"}} {
		scores := write(c.name, c.name == "honest", nil)
		out := filepath.Join(dir, "out-"+c.name)
		stdout, stderr, code := runCLI(t, "verify", "--spec", spec, "--one-run", plan, "--unlearned", scores, "--out", out)
		if code != c.code || !strings.Contains(stdout, c.want) {
			t.Fatalf("%s: exit %d, want %d; %s %s", c.name, code, c.code, stdout, stderr)
		}
		js, _ := os.ReadFile(filepath.Join(out, "report.json"))
		if !strings.Contains(string(js), "(2ε, (1 + e^ε)δ)") || !strings.Contains(string(js), "declared by the user") {
			t.Errorf("%s: the report does not say what the claim is tested at, or who declared the method", c.name)
		}
	}
	var edited canary.CanaryPlan
	b, _ := os.ReadFile(plan)
	json.Unmarshal(b, &edited)
	edited.Included[3] = 1 - edited.Included[3]
	b, _ = json.Marshal(edited)
	badPlan := filepath.Join(dir, "edited.json")
	os.WriteFile(badPlan, b, 0o644)
	good := write("good", false, nil)
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"edited plan", []string{"--one-run", badPlan, "--unlearned", good}, []string{"edited.json", "included[3]", "seed 7"}},
		{"NaN score", []string{"--one-run", plan, "--unlearned", write("nan", false, func(r []string) { r[5] = "NaN" })}, []string{"nan.csv:6", "not finite"}},
		{"too few scores", []string{"--one-run", plan, "--unlearned", write("short", false, func(r []string) { r[999] = "" })}, []string{"short.csv", "999 scores for the plan's 1000 canaries"}},
		{"with retrained", []string{"--one-run", plan, "--unlearned", good, "--retrained", good}, []string{"neither --retrained"}},
	} {
		out := filepath.Join(dir, "refused")
		_, stderr, code := runCLI(t, append([]string{"verify", "--spec", spec, "--out", out}, c.args...)...)
		if code != exitUsage {
			t.Errorf("%s: exit %d, want %d: %s", c.name, code, exitUsage, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: %q lacks %q", c.name, stderr, w)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: wrote %s", c.name, out)
		}
	}
}

// verify --scores --holdout adds the first unlearned model's membership of the deleted
// records against held-out records (bench/detection's PyTorch MLP that forgot nothing):
// a measurement beside the game, which does not decide (the game FAILs it alone).
func TestVerifyHoldout(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "claim.json")
	os.WriteFile(spec, []byte(`{"method": {"name": "my-mlp"}, "claim": {"epsilon": 1, "delta": 1e-3}}`), 0o644)
	fx := filepath.Join("..", "..", "bench", "detection", "testdata", "torch_mlp")
	out := filepath.Join(dir, "out")
	stdout, stderr, code := runCLI(t, "verify", "--spec", spec, "--scores", "--unlearned", filepath.Join(fx, "deleted_fake.npy"),
		"--retrained", filepath.Join(fx, "deleted_retrained.npy"), "--holdout", filepath.Join(fx, "holdout_fake.npy"), "--out", out, "--formats", "md,html")
	if code != exitFail || !strings.Contains(stdout, "FAIL     0     1     0 ") {
		t.Fatalf("exit %d (the measurement must not count among the subject's findings): %s %s", code, stdout, stderr)
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	html, _ := os.ReadFile(filepath.Join(out, "report.html"))
	for _, w := range []string{"holdout-membership", "mean loss over the deleted records"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("report.md lacks %q", w)
		}
	}
	if !strings.Contains(string(html), "<svg") || !strings.Contains(string(html), "holdout-membership") {
		t.Error("report.html lacks the membership plots")
	}
	if _, stderr, code := runCLI(t, "verify", "--spec", spec, "--unlearned", filepath.Join(fx, "deleted_fake.npy"), "--retrained", filepath.Join(fx, "deleted_retrained.npy"), "--holdout", filepath.Join(fx, "holdout_fake.npy"), "--out", filepath.Join(dir, "x")); code != exitUsage || !strings.Contains(stderr, "--holdout needs --scores") {
		t.Errorf("--holdout without --scores: exit %d %s", code, stderr)
	}
}

// verify --scores --references: the U-LiRA aggregate against the user's reference models
// joins the game (audit/testdata/references, written by NumPy) and decides it; without
// --scores the flag is refused.
func TestVerifyReferences(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "claim.json")
	os.WriteFile(spec, []byte(`{"claim": {"epsilon": 1, "delta": 1e-3}}`), 0o644)
	fx := filepath.Join("..", "..", "audit", "testdata", "references")
	out := filepath.Join(dir, "out")
	stdout, stderr, code := runCLI(t, "verify", "--spec", spec, "--scores", "--unlearned", filepath.Join(fx, "unlearned.npy"),
		"--retrained", filepath.Join(fx, "retrained.npy"), "--references", filepath.Join(fx, "references.npz"), "--out", out)
	if code != exitFail || !strings.Contains(stdout, "FAIL verify/unnamed method") {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	js, _ := os.ReadFile(filepath.Join(out, "report.json"))
	if !strings.Contains(string(js), "decided by the U-LiRA aggregate") || !strings.Contains(string(js), `"role": "reference scores"`) {
		t.Error("the report does not name the U-LiRA aggregate as deciding, or the references as an input")
	}
	if _, stderr, code := runCLI(t, "verify", "--spec", spec, "--unlearned", filepath.Join(fx, "unlearned.npy"), "--retrained", filepath.Join(fx, "retrained.npy"), "--references", filepath.Join(fx, "references.npz"), "--out", filepath.Join(dir, "x")); code != exitUsage || !strings.Contains(stderr, "--references needs --scores") {
		t.Errorf("--references without --scores: exit %d %s", code, stderr)
	}
}

// A score file must be one matrix: an .npz of two arrays, which artifact.LoadSample reads
// as one model's layers, is refused on the scores routes, naming the flag, the file and
// its arrays, and nothing is written.
func TestVerifyScoresOneMatrix(t *testing.T) {
	dir := t.TempDir()
	npy := func(rows, cols int) []byte {
		h := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }", rows, cols)
		h += strings.Repeat(" ", 63-(10+len(h))%64) + "\n"
		b := append([]byte("\x93NUMPY\x01\x00"), byte(len(h)), byte(len(h)>>8))
		return append(append(b, h...), make([]byte, 8*rows*cols)...)
	}
	path := filepath.Join(dir, "two.npz")
	f, _ := os.Create(path)
	zw := zip.NewWriter(f)
	for _, name := range []string{"a.npy", "b.npy"} {
		w, _ := zw.Create(name)
		w.Write(npy(20, 5))
	}
	zw.Close()
	f.Close()
	spec := filepath.Join(dir, "claim.json")
	os.WriteFile(spec, []byte(`{"claim": {"epsilon": 1, "delta": 1e-3}}`), 0o644)
	out := filepath.Join(dir, "out")
	_, stderr, code := runCLI(t, "verify", "--spec", spec, "--scores", "--unlearned", path, "--retrained", path, "--out", out)
	if code != exitUsage || !strings.Contains(stderr, "--unlearned") || !strings.Contains(stderr, "2 arrays") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("wrote %s", out)
	}
}

// A plan followed by more text is refused: the plan is one JSON object.
func TestCanaryPlanTrailingText(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	if _, stderr, code := runCLI(t, "canaries", "--seed", "1", "--canaries", "10", "--out", plan); code != 0 {
		t.Fatal(stderr)
	}
	b, _ := os.ReadFile(plan)
	os.WriteFile(plan, append(b, []byte(`{"schema": "x"} garbage`)...), 0o644)
	if _, err := canary.ReadCanaryPlan(plan); err == nil || !strings.Contains(err.Error(), "text after the plan's JSON object") || !strings.Contains(err.Error(), "plan.json") {
		t.Errorf("a plan with text after it: %v", err)
	}
}
