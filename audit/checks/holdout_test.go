package checks_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/mia"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// rememberedScores are one model's scores on 300 deleted records it still remembers
// (N(1.5, 1)) and on n held-out ones (N(0, 1)).
func rememberedScores(n int, shift float64) (forget, holdout []float64, ids []int64) {
	r := reference.Stream(3, 0, "test/holdout")
	forget, holdout = make([]float64, 300), make([]float64, n)
	reference.FillNormal(forget, 1, r)
	reference.FillNormal(holdout, 1, r)
	ids = make([]int64, len(forget))
	for i := range forget {
		forget[i] += shift
		ids[i] = int64(1000 + i)
	}
	return forget, holdout, ids
}

// The finding carries the AUC with its interval, the two TPRs with their Clopper–Pearson
// intervals, and the plots' numbers; it is INCONCLUSIVE however clear the membership,
// and says why; its ROC is one the log–log plot can start at 1/holdout; the records come
// most exposed first, with their percentiles among the held-out scores.
func TestHoldoutMembership(t *testing.T) {
	forget, holdout, ids := rememberedScores(500, 1.5)
	f, err := checks.HoldoutMembership(forget, holdout, ids, 0.95, 1)
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := mia.OneModelMembership(forget, holdout, 0.95, 1)
	s := f.Membership
	switch {
	case f.Verdict != verdict.Inconclusive || f.Kind != verdict.Measurement:
		t.Fatalf("verdict %s, kind %s; want INCONCLUSIVE, empirical", f.Verdict, f.Kind)
	case f.Measured != ms.AUC || *f.Interval != (verdict.Interval{Lower: ms.AUCLower, Upper: ms.AUCUpper}) || f.Interval.Lower <= 0.5:
		t.Fatalf("measured %v in %v; want the AUC %v [%v, %v], above ½", f.Measured, *f.Interval, ms.AUC, ms.AUCLower, ms.AUCUpper)
	case !strings.Contains(f.Detail, "it becomes an ε bound only through a one-run audit"):
		t.Fatalf("detail does not say what the measurement is not: %s", f.Detail)
	case s == nil || s.Forget != 300 || s.Holdout != 500 || len(s.TPR) != 2 || len(f.Estimates) != 2:
		t.Fatalf("summary %+v, %d estimates", s, len(f.Estimates))
	}
	for i, e := range f.Estimates {
		tp := ms.TPR[i]
		if e.Value != tp.TPR || *e.Interval != (verdict.Interval{Lower: tp.Lower, Upper: tp.Upper}) || s.TPR[i].TP != tp.TP || s.TPR[i].Threshold != tp.Threshold {
			t.Errorf("estimate %s = %v %v; want %v [%v, %v]", e.Name, e.Value, *e.Interval, tp.TPR, tp.Lower, tp.Upper)
		}
	}
	if !strings.Contains(f.Estimates[0].Note, "allows no false positive") || strings.Contains(f.Estimates[1].Note, "allows no false positive") {
		t.Errorf("with 500 held-out records FPR 0.1 %% allows none, 1 %% five: %q, %q", f.Estimates[0].Note, f.Estimates[1].Note)
	}
	// the ROC: every multiple of 1/500 is a level; it starts at FPR 0 and ends at (1, 1),
	// both rates never falling
	if s.ROC[0].FPR != 0 || s.ROC[len(s.ROC)-1] != (verdict.ROCPoint{FPR: 1, TPR: 1}) {
		t.Fatalf("ROC from %v to %v", s.ROC[0], s.ROC[len(s.ROC)-1])
	}
	for i := 1; i < len(s.ROC); i++ {
		if s.ROC[i].FPR < s.ROC[i-1].FPR || s.ROC[i].TPR < s.ROC[i-1].TPR {
			t.Fatalf("ROC falls at %d: %v then %v", i, s.ROC[i-1], s.ROC[i])
		}
	}
	for i := 1; i < len(s.Records); i++ {
		if s.Records[i].Score > s.Records[i-1].Score || s.Records[i].Percentile > s.Records[i-1].Percentile {
			t.Fatalf("records not sorted most exposed first at %d", i)
		}
	}
	if r := s.Records[0]; r.Percentile != 100 || !strings.Contains(f.Detail, "the most exposed is record") {
		t.Errorf("most exposed record %+v", r)
	}
	if len(s.HoldoutQuantiles) != len(checks.HoldoutQuantileLevels) || s.HoldoutQuantiles[2].P != 0.95 ||
		!(s.HoldoutQuantiles[2].Value > 1.4 && s.HoldoutQuantiles[2].Value < 1.9) {
		t.Errorf("holdout quantiles %+v; the 95th of N(0, 1) is 1.64", s.HoldoutQuantiles)
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"membership":{"forget":300,"holdout":500,`, `"auc_interval":`, `"tpr_at_fpr":[{"fpr":0.001,`, `"records":[{"id":`, `"holdout_quantiles":[{"p":0.5,`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
}

// Forgotten records (one law for both sides) give an AUC interval around ½ — and the
// verdict is still INCONCLUSIVE: a membership measurement cannot PASS a claim.
func TestHoldoutMembershipNeverPasses(t *testing.T) {
	forget, holdout, ids := rememberedScores(1000, 0)
	f, err := checks.HoldoutMembership(forget, holdout, ids, 0.95, 1)
	if err != nil {
		t.Fatal(err)
	}
	if f.Verdict != verdict.Inconclusive || !(f.Interval.Lower < 0.5 && 0.5 < f.Interval.Upper) {
		t.Fatalf("verdict %s, AUC %v in %v", f.Verdict, f.Measured, *f.Interval)
	}
	// 1000 held-out records: the log grid, at most 201 levels, the first past 0 at 1/1000
	if g := f.Membership.ROC; len(g) > 201 || g[1].FPR != 0.001 {
		t.Errorf("1000 held-out records: %d ROC points, the second at FPR %v; want at most 201, the second at 0.001", len(g), g[1].FPR)
	}
}

// A finding without a membership measurement writes the JSON it always did.
func TestFindingJSONUnchangedWithoutMembership(t *testing.T) {
	b, err := json.Marshal(verdict.Finding{Check: "x", Verdict: verdict.Pass, Comparison: "≤", Confidence: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"check":"x","title":"","kind":"","verdict":"PASS","measured":0,"bound":0,"comparison":"≤","confidence":1}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}

func TestHoldoutMembershipRefuses(t *testing.T) {
	for _, c := range []struct {
		forget, holdout []float64
		ids             []int64
		want            string
	}{
		{[]float64{1, 2}, []float64{0, 1}, []int64{1}, "1 record IDs for 2 forget scores"},
		{[]float64{1, 2, 3}, []float64{0, 1}, []int64{4, 5, 4}, "record ID 4 at forget indices 0 and 2"},
		{[]float64{1, 2}, []float64{0, math.NaN()}, []int64{1, 2}, "holdout membership: one-model membership: holdout score 1 is NaN"},
		{nil, []float64{0, 1}, nil, "0 forget scores"},
	} {
		_, err := checks.HoldoutMembership(c.forget, c.holdout, c.ids, 0.95, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one naming %q", err, c.want)
		}
	}
}
