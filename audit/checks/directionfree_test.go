package checks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
)

// A game whose selection halves no threshold separates (both sides the same constant)
// ends on a rule that calls every model the same: its detail must not say the threshold
// lies midway between selection scores, and its AUC must say that its direction is only
// nominal, so an AUC below ½ beside it is not read as a leak the other way. Planted bug
// caught: the detail's old wording for every rule ("midway between selection scores"), or
// the AUC's note without the nominal-direction caveat.
func TestDirectionFreeRuleSaysSo(t *testing.T) {
	same := make([]float64, 32)
	for i := range same {
		same[i] = 1
	}
	g := checks.FamilyGame{Check: "t", Epsilon: 1, Delta: 1e-3}
	f, err := g.Play(context.Background(), []epsilon.Statistic{{Name: "constant", Pos: same, Neg: same}})
	if err != nil {
		t.Fatal(err)
	}
	if f.HeldOut == nil || (f.HeldOut.Rule != "every model called unlearned" && f.HeldOut.Rule != "no model called unlearned") {
		t.Fatalf("a constant statistic's rule %+v; want one that calls every model the same", f.HeldOut)
	}
	if strings.Contains(f.Detail, "midway") || !strings.Contains(f.Detail, "no threshold separated the selection halves") {
		t.Errorf("detail of a direction-free rule: %s", f.Detail)
	}
	found := false
	for _, e := range f.Estimates {
		if strings.HasPrefix(e.Name, "AUC of the deciding statistic") {
			found = true
			if !strings.Contains(e.Note, "its direction is nominal") {
				t.Errorf("AUC of a direction-free rule without the caveat: %s", e.Note)
			}
		}
	}
	if !found {
		t.Errorf("no AUC of the deciding statistic among %d estimates", len(f.Estimates))
	}
}
