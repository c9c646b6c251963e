package checks_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// gaussianTrials publishes N(shift·e₁, I) after unlearning and N(0, I) after retraining,
// in two coordinates.
func gaussianTrials(n int, shift float64, seed uint64) []trials.TrialResult {
	rng := rand.New(rand.NewPCG(seed, 99))
	out := make([]trials.TrialResult, n)
	for i := range out {
		out[i] = trials.TrialResult{Index: i,
			Unlearned: reference.Release{Published: []float64{shift + rng.NormFloat64(), rng.NormFloat64()}},
			Retrained: reference.Release{Published: []float64{rng.NormFloat64(), rng.NormFloat64()}}}
	}
	return out
}

// An empirical PASS needs power: with identical laws the game shows no violation at any
// trial count, but it PASSes only once the trials would have caught a 2× violation with
// 80 % power; below that it is INCONCLUSIVE and names about the trials that would decide.
// A real violation FAILs. Each verdict is one seeded draw; the FAIL case's shift (ε ≈ 11
// for a Gaussian pair against a claimed 1) makes a miss practically impossible.
func TestEmpiricalReleaseVerdictNeedsPower(t *testing.T) {
	check := checks.EmpiricalRelease{Prefix: "t", Epsilon: 1, Delta: 0.05, Seed: 1}
	famConf := 1 - (1-0.95)/2 // the two score families share the false-alarm budget
	need, _, err := epsilon.TrialsToDetect(context.Background(), epsilon.PowerSpec{Claim: 1, Factor: 2, Power: 0.8, Delta: 0.05, Conf: famConf})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a 2× violation of ε = 1 at δ = 0.05 takes %d trials per side", need)

	few, err := check.Check(context.Background(), gaussianTrials(need/4, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	// one question, one count: the finding's trials-needed is the planner's, to the trial
	if few.Verdict != verdict.Inconclusive || few.Power == nil || few.Power.Sufficient() || few.TrialsNeeded != need || few.Power.TrialsNeeded != need {
		t.Errorf("%d trials: %s, power %+v, %d trials needed; want INCONCLUSIVE naming the planner's %d", need/4, few.Verdict, few.Power, few.TrialsNeeded, need)
	}
	wantQ := verdict.Question{Route: "split game, the better of 2 score families", Epsilon: 1, Delta: 0.05, Confidence: famConf, Power: 0.8, Trials: need / 4}
	if q := few.Power.Question; q == nil || *q != wantQ {
		t.Errorf("the finding's question %+v, want %+v", q, wantQ)
	} else if !strings.Contains(few.Power.Summary(), "`"+q.PlanCommand(2)+"`") || !strings.Contains(few.Power.Summary(), "97.5 % confidence") {
		t.Errorf("the power's summary does not name its question: %s", few.Power.Summary())
	}
	if few.Power.SmallestFactor <= 2 {
		t.Errorf("%d trials: smallest detectable factor %v, yet the power against 2× is %v", need/4, few.Power.SmallestFactor, few.Power.Power)
	}

	enough, err := check.Check(context.Background(), gaussianTrials(need*3/2, 0, 2))
	if err != nil {
		t.Fatal(err)
	}
	if enough.Verdict != verdict.Pass || !enough.Power.Sufficient() || enough.Power.SmallestFactor > 2 || enough.TrialsNeeded != 0 {
		t.Errorf("%d trials: %s, power %+v; want PASS with power against 2×", need*3/2, enough.Verdict, enough.Power)
	}

	leak, err := check.Check(context.Background(), gaussianTrials(need/4, 6, 3))
	if err != nil {
		t.Fatal(err)
	}
	if leak.Verdict != verdict.Fail {
		t.Errorf("a 6σ shift: %s (ε_LB %v)", leak.Verdict, leak.Measured)
	}

	for _, bad := range []float64{1, 0.5, -2} {
		if _, err := (checks.EmpiricalRelease{Epsilon: 1, Delta: 0.05, PowerAgainst: bad}).Check(context.Background(), gaussianTrials(20, 0, 4)); err == nil {
			t.Errorf("power against %g× accepted", bad)
		}
	}
}

// Decide takes the verdict from the findings the claim requires (with none named, from
// all), but a violation shown by any finding fails the subject.
func TestDecideUsesRequiredFindings(t *testing.T) {
	fs := []verdict.Finding{
		{Kind: verdict.Certificate, Verdict: verdict.Pass},
		{Kind: verdict.Release, Verdict: verdict.Pass},
		{Kind: verdict.Empirical, Verdict: verdict.Inconclusive},
	}
	if v := verdict.Decide(verdict.Claim{Required: verdict.StateHolding}, fs); v != verdict.Pass {
		t.Errorf("state-holding claim: %s, want PASS (the empirical game supports)", v)
	}
	if v := verdict.Decide(verdict.Claim{Required: []verdict.Kind{verdict.Empirical}}, fs); v != verdict.Inconclusive {
		t.Errorf("black-box claim: %s, want INCONCLUSIVE", v)
	}
	if v := verdict.Decide(verdict.Claim{}, fs); v != verdict.Inconclusive {
		t.Errorf("claim requiring everything: %s, want INCONCLUSIVE", v)
	}
	fs[2].Verdict = verdict.Fail // a violation shown counts whoever showed it
	if v := verdict.Decide(verdict.Claim{Required: verdict.StateHolding}, fs); v != verdict.Fail {
		t.Errorf("a supporting finding showed a violation, yet the verdict is %s", v)
	}
	if err := verdict.Consistent(verdict.Claim{Required: verdict.StateHolding}, fs[2]); err == nil {
		t.Error("Consistent accepted a failing supporting finding")
	}
	if v := verdict.Decide(verdict.Claim{Required: verdict.StateHolding}, nil); v != verdict.Inconclusive {
		t.Errorf("no findings: %s, want INCONCLUSIVE", v)
	}
}

// The membership attack on the deleted records: when the unlearned models still lean
// towards a deleted record (their mean shifted along it by 6σ: ε ≈ 11 against a claimed 1)
// the record's scores show it and the check FAILs; when unlearning is exact (no shift) it
// shows no violation, states its power, and PASSes only with it.
func TestMembershipReleaseCatchesARememberedRecord(t *testing.T) {
	deleted, err := reference.FromRecords(2, []reference.Record{{ID: 7, X: []float64{1, 0}, Y: 1}, {ID: 9, X: []float64{0, 1}, Y: -1}})
	if err != nil {
		t.Fatal(err)
	}
	check := checks.MembershipRelease{Prefix: "t", Epsilon: 1, Delta: 0.05, Loss: reference.Logistic{Lambda: 0.1}, Deleted: deleted, Seed: 1}
	leak, err := check.Check(context.Background(), gaussianTrials(200, 6, 5))
	if err != nil {
		t.Fatal(err)
	}
	if leak.Verdict != verdict.Fail || !strings.Contains(leak.Detail, "strongest: record 7") || len(leak.Estimates) != 2 {
		t.Errorf("remembered record: %s, ε_LB %v (%s), %d estimates; want FAIL on record 7", leak.Verdict, leak.Measured, leak.Detail, len(leak.Estimates))
	}
	if auc := leak.Estimates[0].Value; !(auc > 0.9) {
		t.Errorf("record 7's membership AUC %v; the shift makes it near 1", auc)
	}
	exact, err := check.Check(context.Background(), gaussianTrials(200, 0, 6))
	if err != nil {
		t.Fatal(err)
	}
	if err := verdict.Consistent(verdict.Claim{Required: verdict.StateHolding}, exact); err != nil || exact.Verdict == verdict.Fail {
		t.Errorf("exact unlearning: %s: %v", exact.Verdict, err)
	}
	if _, err := (checks.MembershipRelease{Epsilon: 1, Delta: 0.05, Loss: check.Loss}).Check(context.Background(), gaussianTrials(20, 0, 7)); err == nil {
		t.Error("no deleted records accepted")
	}
}

// The same attack through a Score function (the route of models that are not linear in
// the features): scoring record 7 as the first coordinate of the published model, the
// remembered record (a 6σ shift) FAILs, and an exact unlearning does not.
func TestMembershipReleaseWithAScoreFunction(t *testing.T) {
	score := func(dst, w []float64) { dst[0], dst[1] = w[0], w[1] }
	check := checks.MembershipRelease{Prefix: "t", Epsilon: 1, Delta: 0.05, Score: score, IDs: []int64{7, 9}, Seed: 1}
	leak, err := check.Check(context.Background(), gaussianTrials(200, 6, 5))
	if err != nil {
		t.Fatal(err)
	}
	if leak.Verdict != verdict.Fail || !strings.Contains(leak.Detail, "strongest: record 7") {
		t.Errorf("remembered record: %s (%s); want FAIL on record 7", leak.Verdict, leak.Detail)
	}
	exact, err := check.Check(context.Background(), gaussianTrials(200, 0, 6))
	if err != nil || exact.Verdict == verdict.Fail {
		t.Errorf("exact unlearning: %s: %v", exact.Verdict, err)
	}
	if _, err := (checks.MembershipRelease{Epsilon: 1, Delta: 0.05, Score: score}).Check(context.Background(), gaussianTrials(20, 0, 7)); err == nil {
		t.Error("a score function without record IDs accepted")
	}
}

// Checks side by side find what each finds alone: a check gives its stacked models back to
// a pool (for the next check's) only once nothing of it reads them, its estimates included
// (computed beside its game). A check that gave them back early would read another's
// models written over its own (under -race, the race itself is reported). Each goroutine
// checks its own trials again and again, so that checks start and end at different times.
func TestEmpiricalReleaseSideBySideIsAlone(t *testing.T) {
	check := checks.EmpiricalRelease{Prefix: "t", Epsilon: 1, Delta: 0.05, Seed: 1}
	sets := [][]trials.TrialResult{gaussianTrials(400, 0, 11), gaussianTrials(400, 0.5, 12), gaussianTrials(400, 1, 13), gaussianTrials(400, 3, 14)}
	want := make([]verdict.Finding, len(sets))
	for i, results := range sets {
		f, err := check.Check(context.Background(), results)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Estimates) == 0 {
			t.Fatalf("set %d: no estimates to compare", i)
		}
		want[i] = f
	}
	var wg sync.WaitGroup
	for i, results := range sets {
		wg.Go(func() {
			for round := range 4 {
				got, err := check.Check(context.Background(), results)
				if err != nil {
					t.Error(err)
					return
				}
				if !reflect.DeepEqual(got, want[i]) {
					t.Errorf("set %d, round %d, side by side: %+v; alone %+v", i, round, got.Estimates, want[i].Estimates)
					return
				}
			}
		})
	}
	wg.Wait()
}
