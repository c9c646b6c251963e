package hfaudit

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/internal/audittest"
	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// hf-mia end to end at a small size: three models, the attack sees the original model's
// members (its AUC is the largest), the finding is there with a verdict, MIA-U reports
// every feature, U-LiRA's table pools every target's evaluations, and the JSON is the same
// byte for byte on a second run.
func TestReproduceMIA(t *testing.T) {
	testenv.Datasets(t)
	argv := []string{"--train", "300", "--heldout", "300", "--pool", "4", "--fraction", "0.2", "--shadows", "8", "--workers", "2",
		"--ulira-targets", "3", "--ulira-pairs", "4"}
	res, rep := reproduced(t, "hf-mia", argv...)
	if len(rep.Tables) != 3 || len(rep.Tables[1].Rows) != len(MIAUFeatures) || rep.Tables[2].Findings[0].Check != "hf-mia/ulira" || rep.Tables[2].Findings[0].Trials != 12 {
		t.Fatalf("want LiRA's table, MIA-U's (one row per feature) and U-LiRA's (3 targets × 4 evaluation pairs), got %+v", rep.Tables)
	}
	if res.Verdict != verdict.Inconclusive || rep.Summary.Verdict != string(verdict.Inconclusive) || rep.Summary.Judged() || rep.Summary.Reported == nil {
		t.Errorf("verdict %s, summary %+v; want every finding a claim reported, nothing judged: INCONCLUSIVE", res.Verdict, rep.Summary)
	}
	tb := rep.Tables[0]
	if len(tb.Rows) != 3 || tb.Rows[0].Label != "original" || len(tb.Findings) != 1 || tb.Findings[0].Verdict == "" {
		t.Fatalf("table %+v", tb)
	}
	if orig, retr := float64(tb.Rows[0].Cells[0].Value), float64(tb.Rows[2].Cells[0].Value); !(orig > retr) {
		t.Errorf("the original model's AUC %.3f is not above the retrain's %.3f: the attack sees no membership", orig, retr)
	}
	again, err := audittest.Reproduce(t, "hf-mia", t.TempDir(), argv...)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(res.JSON, again.JSON) {
		t.Error("the same seed gave different JSON")
	}
	if _, err := audittest.Reproduce(t, "hf-mia", t.TempDir(), "--shadows", "5"); err == nil || !strings.Contains(err.Error(), "even") {
		t.Errorf("--shadows 5: %v", err)
	}
}

// reproduced runs an experiment into a fresh folder and reads back the JSON it wrote.
func reproduced(t *testing.T, name string, argv ...string) (*reports.Reproduced, *reports.Reproduction) {
	t.Helper()
	res, rep, _ := audittest.Reproduced(t, name, argv...)
	return res, rep
}

// MIA-U's features: the posterior difference, the sorted posteriors' difference and their
// distance, each from the two posteriors alone; posteriors sum to one.
func TestMIAUFeatures(t *testing.T) {
	a, b := []float64{0.7, 0.2, 0.1}, []float64{0.2, 0.5, 0.3}
	if got := miaUFeature("DirectDiff", a, b); math.Abs(got[0]-0.5) > 1e-15 || math.Abs(got[1]+0.3) > 1e-15 {
		t.Errorf("DirectDiff %v", got)
	}
	if got := miaUFeature("SortedDiff", a, b); math.Abs(got[0]+0.1) > 1e-15 || math.Abs(got[2]-0.2) > 1e-15 {
		t.Errorf("SortedDiff %v (ascending: 0.1−0.2, 0.2−0.3, 0.7−0.5)", got)
	}
	if got := miaUFeature("SortedConcat", a, b); len(got) != 6 || got[0] != 0.1 || got[2] != 0.7 || got[3] != 0.2 || got[5] != 0.5 {
		t.Errorf("SortedConcat %v", got)
	}
	if got := miaUFeature("DirectConcat", a, b); len(got) != 6 || got[0] != 0.7 || got[3] != 0.2 {
		t.Errorf("DirectConcat %v", got)
	}
	if got := miaUFeature("EucDist", a, b); math.Abs(got[0]-math.Sqrt(0.25+0.09+0.04)) > 1e-15 {
		t.Errorf("EucDist %v", got)
	}
	m := multiclass.Softmax{K: 3, P: 2, Lambda: 0.7}
	p := posterior(m, []float64{0.3, -1, 2, 0.5, 0, 1, 0.1, 0.2, -0.3}, []float64{1, -2})
	if s := p[0] + p[1] + p[2]; math.Abs(s-1) > 1e-12 {
		t.Errorf("posterior %v sums to %v", p, s)
	}
}
