package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// demo --one-run audits the strongly convex variant and its three controls with one
// training run per m (32 and 64) and prints the table; the honest variant is never
// PASSed by a one-run audit (INCONCLUSIVE, exit 3), and the controls are in the report
// beside it, outside the verdict.
func TestDemoOneRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	stdout, stderr, code := runCLI(t, "demo", "--one-run", "--variants", "strongly-convex", "--out", out)
	if code != exitInconclusive {
		t.Fatalf("exit %d; want %d (INCONCLUSIVE)\n%s\n%s", code, exitInconclusive, stdout, stderr)
	}
	for _, want := range []string{"subject", "refuted", "one-run ε bound (at m)", "d2d/strongly-convex", "no-unlearning", "weak-noise", "sees-deleted", "(m = 64)", "overall: INCONCLUSIVE"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
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
	if len(rep.Subjects) != 1 || rep.Subjects[0].Name != "d2d/strongly-convex/one-run" || len(rep.Controls) != 3 {
		t.Errorf("report: %+v", rep)
	}
	if _, stderr, code := runCLI(t, "demo", "--one-run", "--one-run-max", "16", "--variants", "strongly-convex", "--out", out); code != exitUsage || !strings.Contains(stderr, "--one-run-max 16") {
		t.Errorf("--one-run-max 16: exit %d, %s", code, stderr)
	}
}
