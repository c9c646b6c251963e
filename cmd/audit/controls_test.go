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

// Subjects share their bootstrap resamples with their controls' checks when controls are
// checked, and not without them nor when plan times each check alone (it would time the
// draws once, for the first check only). Planted bug caught: sharing during plan.
func TestControlsShareResamples(t *testing.T) {
	for _, c := range []struct {
		controls bool
		plan     *planRequest
		share    bool
	}{{true, nil, true}, {false, nil, false}, {true, &planRequest{}, false}} {
		if got := shareResamples(demoConfig{controls: c.controls, replay: replay{plan: c.plan}}); got != c.share {
			t.Errorf("controls %v, plan %v: shared %v; want %v", c.controls, c.plan != nil, got, c.share)
		}
	}
}
