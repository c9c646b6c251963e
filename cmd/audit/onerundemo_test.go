package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// demo --one-run audits D2D's perfect variant and its three controls with one training
// run per m (32, 64 and 128, the default ladder) and prints the table: the no-unlearning
// control is refuted at m = 128, the honest variant is not and is never PASSed by a
// one-run audit (INCONCLUSIVE, exit 3), the controls one run cannot show say why, and
// the controls are in the report beside the subject, outside the verdict.
func TestDemoOneRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	stdout, stderr, code := runCLI(t, "demo", "--one-run", "--variants", "perfect", "--out", out)
	if code != exitInconclusive {
		t.Fatalf("exit %d; want %d (INCONCLUSIVE)\n%s\n%s", code, exitInconclusive, stdout, stderr)
	}
	for _, want := range []string{"subject", "refuted", "one-run ε bound (at m)", "μ per canary", "d2d/perfect", "weak-noise", "sees-deleted",
		"not refuted up to m = 128", "Dirac canaries", "per canary: the claim allows μ ≤ 0.477", "a typical run of m = 128 refutes it from μ ≈ 2.79",
		"d2d/perfect weak-noise: μ ≈", "overall: INCONCLUSIVE"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	refuted := false
	for line := range strings.SplitSeq(stdout, "\n") {
		if strings.HasPrefix(line, "d2d/perfect") && strings.Contains(line, "REFUTED") {
			if !strings.Contains(line, "no-unlearning") || !strings.Contains(line, "REFUTED at m = 128") {
				t.Errorf("refuted: %s", line)
			}
			refuted = true
		}
	}
	if !refuted || strings.Contains(stdout, "not run (name it in --variants)") {
		t.Errorf("no-unlearning refuted: %v; or a variant named in --variants left out:\n%s", refuted, stdout)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Subjects []struct{ Name, Verdict string }
		Controls []struct{ Subject, Name string }
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Subjects) != 1 || rep.Subjects[0].Name != "d2d/perfect/one-run" || len(rep.Controls) != 3 {
		t.Errorf("report: %+v", rep)
	}
	if _, stderr, code := runCLI(t, "demo", "--one-run", "--one-run-max", "16", "--variants", "strongly-convex", "--out", out); code != exitUsage || !strings.Contains(stderr, "--one-run-max 16") {
		t.Errorf("--one-run-max 16: exit %d, %s", code, stderr)
	}
}

// Without --variants, demo --one-run leaves out the variants whose m/2 deletions cost
// minutes to serve (D2D's convex-weak and distributed) and says so, and at m = 32 says
// that no typical run of so few canaries can refute 2ε.
func TestDemoOneRunDefaultVariants(t *testing.T) {
	stdout, stderr, code := runCLI(t, "demo", "--one-run", "--one-run-max", "32", "--out", filepath.Join(t.TempDir(), "r"))
	if code != exitInconclusive {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"not run (name it in --variants): convex-weak (", "not run (name it in --variants): distributed (",
		"no typical run of m = 32 can refute it", "olu/passive", "sglu/b=32", "hf/theorem-4", "safe/stream"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "d2d/convex-weak ") || strings.Contains(stdout, "d2d/distributed ") {
		t.Errorf("a costly variant ran:\n%s", stdout)
	}
}
