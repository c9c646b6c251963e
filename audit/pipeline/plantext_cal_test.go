package pipeline

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/unlearnaudit/unlearnaudit/audit"
)

// The calibration's lines name each check's cost as the fit found it, without a "+ 0 ns a
// trial" where it found no per-trial cost (a red-team reader's "its check 150 ms + 0 ns a
// trial"), and keep their columns aligned when a control's name is longer than 28.
func TestPlanCalibrationLines(t *testing.T) {
	cal := audit.Calibration{Workers: 2, Subjects: []audit.SubjectTiming{
		{Name: "d2d/strongly-convex", Trials: 8, PerTrial: time.Millisecond, CheckFixed: 150 * time.Millisecond},
		{Name: "d2d/strongly-convex~sees-deleted-and-more", Trials: 8, PerTrial: time.Millisecond, CheckPerTrial: 18 * time.Microsecond},
		{Name: "s", Trials: 8, PerTrial: time.Millisecond, CheckFixed: 2 * time.Millisecond, CheckPerTrial: 3 * time.Microsecond},
	}}
	var b bytes.Buffer
	(&PlanAnswer{}).WriteText(&b, cal, 0)
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, "a trial (8 trials)") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 3 {
		t.Fatalf("calibration lines %q", lines)
	}
	col := strings.Index(lines[0], "1 ms a trial")
	for i, want := range []string{"its check 150 ms, whatever the trials", "its check 18 µs a trial", "its check 2 ms + 3 µs a trial"} {
		if !strings.HasSuffix(lines[i], want) || strings.Contains(lines[i], "0 ns") || strings.Index(lines[i], "1 ms a trial") != col {
			t.Errorf("line %d %q: want it to end %q, its timing in column %d", i, lines[i], want, col)
		}
	}
}
