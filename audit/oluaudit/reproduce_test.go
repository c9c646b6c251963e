package oluaudit_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit/oluaudit"
	"github.com/unlearnaudit/unlearnaudit/internal/audittest"
	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// olu-contraction end to end: a table and a figure per case, the paper's reading
// reported (and failing: the claims the spec disputes), the corrected one judged and
// passing, so the run passes; the JSON is the same on a second run.
func TestReproduceContraction(t *testing.T) {
	testenv.Datasets(t)
	argv := []string{"--samples", "200", "--formats", "svg"}
	res, rep, _ := audittest.Reproduced(t, "olu-contraction", argv...)
	if res.Verdict != verdict.Pass {
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

// olu-regret --quick end to end: both sweeps hold every learner and the bounds beside
// them, each judged bound holds (the run passes) and the paper's Theorem 5 is shown broken
// on the spec's counterexample at the spec's own figure; the JSON is the same on a second
// run.
func TestReproduceRegretQuick(t *testing.T) {
	testenv.Datasets(t)
	argv := []string{"--quick", "--formats", "svg"}
	res, rep, _ := audittest.Reproduced(t, "olu-regret", argv...)
	if res.Verdict != verdict.Pass {
		t.Fatalf("verdict %s:\n%s", res.Verdict, audittest.Summary(res))
	}
	if len(rep.Tables) != 3 || len(rep.Figures) != 2 {
		t.Fatalf("%d tables, figures %v; want 3 and 2", len(rep.Tables), rep.Figures)
	}
	for _, tb := range rep.Tables[:2] {
		if len(tb.Rows) != len(oluaudit.Learners)+7 {
			t.Errorf("%s: %d rows", tb.Name, len(tb.Rows))
		}
		for i, l := range oluaudit.Learners {
			if tb.Rows[i].Label != l || !(tb.Rows[i].Cells[0].Value > 0) {
				t.Errorf("%s: row %d %q = %v", tb.Name, i, tb.Rows[i].Label, tb.Rows[i].Cells[0].Value)
			}
		}
	}
	checks := map[string]bool{}
	loose := 0
	for _, tb := range rep.Tables {
		for _, f := range tb.Findings {
			if _, twice := checks[f.Check]; twice { // --quick's point T = 1000, k = 2 is in both sweeps
				t.Errorf("%s counted twice", f.Check)
			}
			checks[f.Check] = f.Verdict == string(verdict.Pass)
			// the paper's forms are reported, and so is a judged form with 100× slack or more
			judged := strings.Contains(f.Check, "/judged/")
			tooLoose := f.Slack >= reports.SlackLimit
			if f.Reported != (!judged || tooLoose) {
				t.Errorf("%s: reported %v with slack %v", f.Check, f.Reported, f.Slack)
			}
			if f.Verdict == string(verdict.Pass) && (!(f.Slack >= 1) || !strings.Contains(f.Detail, "measured/bound = ")) {
				t.Errorf("%s: a passing bound states no slack: %v, %q", f.Check, f.Slack, f.Detail)
			}
			if judged && tooLoose {
				loose++
			}
		}
	}
	if loose == 0 || rep.Summary.Pass == 0 {
		t.Errorf("%d judged forms taken out for their slack, summary %+v; want some, and some judged left", loose, rep.Summary)
	}
	if checks["olu-regret/theorem-5-instance/paper/stated"] || !checks["olu-regret/theorem-5-instance/judged/paper-method"] || !checks["olu-regret/theorem-5-instance/judged/tight"] {
		t.Errorf("Theorem 5's instance: %v", checks)
	}
	b5 := rep.Tables[2].Rows[0].Cells[0].Value
	if !(b5 > 5.6e5 && b5 < 5.95e5) {
		t.Errorf("B5 mean regret %v; the spec's simulation gives ≈ 5.77e5", b5)
	}
	again, _, _ := audittest.Reproduced(t, "olu-regret", argv...)
	if !bytes.Equal(res.JSON, again.JSON) {
		t.Error("a second run wrote different JSON")
	}
}

func TestReproduceRegretRefuses(t *testing.T) {
	testenv.Datasets(t)
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"--ts", "20", "--k", "16"}, "--ts 20: too short"},
		{[]string{"--ks", "100", "--t", "100"}, "--ks 100: too many"},
	} {
		if _, err := audittest.Reproduce(t, "olu-regret", t.TempDir(), c.argv...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.argv, err, c.want)
		}
	}
}
