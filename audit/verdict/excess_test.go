package verdict_test

import (
	"math"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"gonum.org/v1/gonum/stat/distuv"
)

// ExcessPower: a test whose 80 %-power excess is the alternative has power 0.8 against
// it; one that resolves half of it has more and needs no more trials; one that resolves
// only twice it has less and needs four times the records. The summary names the unit.
func TestExcessPower(t *testing.T) {
	z := distuv.UnitNormal.Quantile(0.975)
	at := verdict.ExcessPower("excess AUC", "deleted records", 0.1, 0.1, z, 100)
	if math.Abs(at.Power-verdict.PowerTarget) > 1e-9 || at.TrialsNeeded != 0 || !at.Sufficient() {
		t.Errorf("at the detectable excess: %+v", at)
	}
	if fine := verdict.ExcessPower("excess AUC", "deleted records", 0.1, 0.05, z, 100); !(fine.Power > 0.99) || fine.TrialsNeeded != 0 {
		t.Errorf("resolving half the excess: %+v", fine)
	}
	coarse := verdict.ExcessPower("excess AUC", "deleted records", 0.1, 0.2, z, 100)
	if coarse.Sufficient() || coarse.TrialsNeeded != 400 || coarse.SmallestFactor != 0.2 {
		t.Errorf("resolving twice the excess: %+v", coarse)
	}
	if s := coarse.Summary(); !strings.Contains(s, "would catch an excess AUC of 0.1 with probability") || !strings.Contains(s, "about 400 deleted records would catch") || strings.Contains(s, "×") {
		t.Errorf("summary %q", s)
	}
}
