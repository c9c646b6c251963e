package checks

import (
	"context"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// Each deleted record's membership AUC is its held-out half's, in the direction of the
// record's own rule: here unlearning leaves record 7 more confident and record 9 less
// (θ moved by +3 on both axes; record 9's label is −1), so record 9's game decides with
// "member if ≤", and both records print AUCs near 1 (a shift of 3 standard deviations:
// AUC Φ(3/√2) ≈ 0.98; below 0.9 at 100 held-out models a side has probability below
// 10⁻⁶ — the false-failure probability at the fixed seed). Planted bug caught: the AUC
// without the rule's direction (record 9 printed 0.02, as issue 40's "one record 1, the
// next 0").
func TestMembershipAUCsFollowEachRecordsRule(t *testing.T) {
	deleted, err := reference.FromRecords(2, []reference.Record{{ID: 7, X: []float64{1, 0}, Y: 1}, {ID: 9, X: []float64{0, 1}, Y: -1}})
	if err != nil {
		t.Fatal(err)
	}
	check := MembershipRelease{Prefix: "t", Epsilon: 1, Delta: 0.05, Loss: reference.Logistic{Lambda: 0.1}, Deleted: deleted, Seed: 1}
	r := reference.Stream(40, 0, "membership-orientation")
	results := make([]trials.TrialResult, 200)
	for i := range results {
		u := []float64{3 + r.NormFloat64(), 3 + r.NormFloat64()}
		v := []float64{r.NormFloat64(), r.NormFloat64()}
		results[i] = trials.TrialResult{Index: i, Unlearned: reference.Release{Published: u}, Retrained: reference.Release{Published: v}}
	}
	f, err := check.Check(context.Background(), results)
	if err != nil {
		t.Fatal(err)
	}
	if f.Verdict != verdict.Fail || f.HeldOut == nil {
		t.Fatalf("%s, held-out %+v; want a FAIL with its counts", f.Verdict, f.HeldOut)
	}
	seen := 0
	for _, e := range f.Estimates {
		if !strings.HasPrefix(e.Name, "membership AUC of record") {
			continue
		}
		seen++
		t.Logf("%s = %.3f: %s", e.Name, e.Value, e.Note)
		if e.Value < 0.9 || !strings.Contains(e.Name, "held-out half") {
			t.Errorf("%s = %v; want the held-out half's AUC in the record's rule's direction, near 1", e.Name, e.Value)
		}
		if strings.Contains(e.Name, "record 9") && !strings.Contains(e.Note, "lower confidence ranked as member") {
			t.Errorf("record 9's note does not say its rule's direction: %s", e.Note)
		}
	}
	if seen != 2 {
		t.Fatalf("%d membership AUCs; want one a record", seen)
	}
}
