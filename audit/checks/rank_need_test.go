package checks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

// An INCONCLUSIVE rank check names the models that would decide as the planner counts
// them for the game that decides (not the 8 that let the game be played), with the plan
// command that asks the same question; PowerAgainst changes the count.
func TestRankCheckNamesThePlannersCount(t *testing.T) {
	retrains := make([]float64, 64)
	for i := range retrains {
		retrains[i] = 0.30 + float64(i)/1000
	}
	for _, against := range []float64{0, 3} {
		f, err := checks.RankCheck{Check: "rank", Epsilon: 1, Delta: 1e-3, Seed: 1, PowerAgainst: against}.Play(context.Background(), "mean loss", []float64{0.33}, retrains)
		if err != nil {
			t.Fatal(err)
		}
		factor := against
		if factor == 0 {
			factor = verdict.DefaultPowerAgainst
		}
		q := verdict.Question{Epsilon: 1, Delta: 1e-3, Confidence: 0.95, Power: verdict.PowerTarget, Trials: checks.MinEmpiricalTrials}
		want, _, err := epsilon.TrialsToDetect(context.Background(), q.PowerSpec(factor))
		if err != nil {
			t.Fatal(err)
		}
		if f.Verdict != verdict.Inconclusive || f.TrialsNeeded != want || want <= checks.MinEmpiricalTrials {
			t.Errorf("against %g×: %s, %d models needed; want INCONCLUSIVE and the planner's %d", factor, f.Verdict, f.TrialsNeeded, want)
		}
		if !strings.Contains(f.Detail, "`"+q.PlanCommand(factor)+"` asks it") {
			t.Errorf("against %g×: the detail does not give the plan command %q: %s", factor, q.PlanCommand(factor), f.Detail)
		}
	}
}
