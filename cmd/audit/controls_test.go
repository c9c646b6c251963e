package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reports"
)

// On the demo's data at 50 trials the audit catches every D2D negative control — no
// unlearning, a tenth of the noise, updates that still see the deleted record — while the
// real method PASSes, and the controls do not enter the verdict. Planting a control the
// checks cannot see would show here as "NOT CAUGHT".
func TestControlsAreCaught(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	stdout, stderr, code := runCLI(t, "demo", "--out", out, "--variants", "strongly-convex,perfect", "--trials", "50", "--delta", "0.01", "--controls")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "controls: 6 of 6 caught") {
		t.Errorf("summary: %s", stdout)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep reports.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Verdict != "PASS" || len(rep.Controls) != 6 {
		t.Fatalf("verdict %s with %d controls", rep.Summary.Verdict, len(rep.Controls))
	}
	for _, c := range rep.Controls {
		if !c.Caught || c.Verdict != "FAIL" || len(c.CaughtBy) == 0 {
			t.Errorf("%s of %s: %+v; want caught", c.Name, c.Subject, c)
		}
	}
}
