package hfaudit

import (
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/internal/audittest"
	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// hf-online at a small size: the methods' rows with the paper's values beside them, the
// requests timed as asked, the float32 check and Guo's two checks passing with the
// bounds they state, and every cell but the measured times the same on a second run.
func TestReproduceOnline(t *testing.T) {
	testenv.Datasets(t)
	argv := []string{"--train", "100", "--pool", "4", "--fraction", "0.1", "--ns-requests", "3", "--retrain-requests", "4", "--d2d-iterations", "3"}
	read := func() (*reports.Reproduced, *reports.Reproduction) { return reproduced(t, "hf-online", argv...) }
	res, first := read()
	if res.Verdict != verdict.Pass {
		t.Fatalf("verdict %s:\n%s", res.Verdict, res.Text)
	}
	table := first.Tables[0]
	var names []string
	for _, r := range table.Rows {
		names = append(names, r.Label)
		if r.Cells[2].Paper == "" && r.Label != "D2D" && r.Label != MethodGuo { // the paper runs neither
			t.Errorf("%s: no paper speed-up beside ours", r.Label)
		}
	}
	if strings.Join(names, ",") != "HF,NS,IJ,D2D,Guo,Retrain" {
		t.Fatalf("rows %v", names)
	}
	if table.Rows[1].Cells[0].Text != "3 of 10" || table.Rows[5].Cells[0].Text != "4 of 10" || table.Rows[3].Cells[0].Text != "10 of 10" {
		t.Errorf("timed cells %q, %q, %q; want 3, 10 and 4 of 10", table.Rows[1].Cells[0].Text, table.Rows[3].Cells[0].Text, table.Rows[5].Cells[0].Text)
	}
	checks := map[string]*reports.Finding{}
	for i := range table.Findings {
		checks[table.Findings[i].Check] = &table.Findings[i]
	}
	for _, name := range []string{"hf-online/float32", "hf-online/guo-residual", "hf-online/guo-oracle"} {
		if f := checks[name]; f == nil || f.Verdict != string(verdict.Pass) || !(f.Bound > 0) || f.Reported {
			t.Fatalf("%s finding %+v; want a judged PASS", name, f)
		}
	}
	if f := checks["hf-online/guo-delta"]; f != nil {
		t.Errorf("Guo's exact δ at its budget is a constant (TestGuoBudgetExactDelta), judged here: %+v", f)
	}
	if f := checks["hf-online/speedups"]; f == nil || !f.Reported {
		t.Errorf("the paper's speed-up ordering %+v; want it reported, not judged", f)
	}
	_, second := read()
	for i, r := range second.Tables[0].Rows {
		for _, c := range []int{0, 4, 5, 6} { // timed, storage, accuracy, distance: not measured times
			if a, b := table.Rows[i].Cells[c].Text, r.Cells[c].Text; a != b {
				t.Errorf("%s column %d: %q then %q", r.Label, c, a, b)
			}
		}
	}
	if _, err := audittest.Reproduce(t, "hf-online", t.TempDir(), "--fraction", "1.5"); err == nil || !strings.Contains(err.Error(), "--fraction") {
		t.Errorf("--fraction 1.5: %v", err)
	}
}
