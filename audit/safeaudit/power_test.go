package safeaudit

import (
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

// The SVC attack states its power in the structured field, not in prose alone: against an
// excess member rate of 0.1, with a PASS only at 80 % power, an INCONCLUSIVE naming the
// records that would decide; so does every other empirical finding of the audit.
func TestSVCAttackStatesItsPower(t *testing.T) {
	fs := checked(t, instance(t), 40)
	st, ok := fs["safe/stream/svc-attack"]
	if !ok {
		t.Fatal("no svc-attack finding")
	}
	p := st.Power
	if p == nil || p.Unit != "excess member rate" || p.Against != verdict.ExcessAgainst || !(p.SmallestFactor > 0) {
		t.Fatalf("svc-attack power %+v", p)
	}
	if (st.Verdict == verdict.Pass) != p.Sufficient() && st.Verdict != verdict.Fail {
		t.Errorf("svc-attack %s with power %.3f", st.Verdict, p.Power)
	}
	if st.Verdict == verdict.Inconclusive && (st.TrialsNeeded <= 0 || p.TrialsNeeded != st.TrialsNeeded) {
		t.Errorf("svc-attack INCONCLUSIVE: %d trials needed, power's %d", st.TrialsNeeded, p.TrialsNeeded)
	}
	for name, f := range fs {
		if f.Kind == verdict.Empirical && f.Power == nil {
			t.Errorf("empirical finding %s states no power", name)
		}
	}
}
