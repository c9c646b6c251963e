package oluaudit_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/internal/audittest"
	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
)

// olu-contraction end to end: a table and a figure per case, the paper's reading
// reported (and failing: the claims the spec disputes), the corrected one judged and
// passing, so the run passes; the JSON is the same on a second run.
func TestReproduceContraction(t *testing.T) {
	testenv.SharedDatasets(t)
	argv := []string{"--samples", "200", "--formats", "svg"}
	res, rep, _ := audittest.Reproduced(t, "olu-contraction", argv...)
	if res.Verdict != audit.Pass {
		t.Fatalf("verdict %s:\n%s", res.Verdict, audittest.Summary(res))
	}
	if len(rep.Tables) != 4 || len(rep.Figures) != 4 {
		t.Fatalf("%d tables, figures %v; want 4 of each", len(rep.Tables), rep.Figures)
	}
	reported, judged := 0, 0
	for _, tb := range rep.Tables {
		for _, f := range tb.Findings {
			if f.Reported != strings.Contains(f.Check, "/paper/") {
				t.Errorf("%s: reported %v", f.Check, f.Reported)
			}
			if f.Reported {
				reported++
			} else {
				judged++
			}
		}
	}
	if rep.Summary.Pass != judged || rep.Summary.Reported == nil || rep.Summary.Reported.Fail != 9 || rep.Summary.Reported.Pass != 3 || reported != 12 {
		t.Errorf("summary %+v, reported %+v; want %d judged passes, 9 of 12 paper claims failing", rep.Summary, rep.Summary.Reported, judged)
	}
	again, _, _ := audittest.Reproduced(t, "olu-contraction", argv...)
	if !bytes.Equal(res.JSON, again.JSON) {
		t.Error("a second run wrote different JSON")
	}
}
