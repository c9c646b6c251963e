package audit

import (
	"context"
	"testing"
	"time"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/internal/gausstest"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
)

// Predict is the calibration's arithmetic: setup, trials × per-trial, and each check's
// fixed plus per-trial cost; a part runs its own share of the trials (part 0, the largest).
func TestCalibrationPredict(t *testing.T) {
	c := Calibration{Setup: time.Second, Subjects: []SubjectTiming{
		{PerTrial: 10 * time.Millisecond, CheckFixed: 2 * time.Second, CheckPerTrial: time.Millisecond},
		{PerTrial: 30 * time.Millisecond},
	}}
	p := c.Predict(1001, 4)
	if want := time.Second + 1001*40*time.Millisecond + 2*time.Second + 1001*time.Millisecond; p.One != want {
		t.Errorf("one machine %v, want %v", p.One, want)
	}
	if want := time.Second + 251*40*time.Millisecond; p.PerShard != want {
		t.Errorf("per part %v, want %v (part 0 of 4 holds 251 of 1001 trials)", p.PerShard, want)
	}
	if want := time.Second + 2*time.Second + 1001*time.Millisecond; p.Merge != want {
		t.Errorf("merge %v, want %v", p.Merge, want)
	}
}

// Calibrate runs at least 16 trials of each subject (and its controls when asked), times
// them, and fits its check; the subject's trials are the engine's own (no checkpoint left).
func TestCalibrate(t *testing.T) {
	sub := gausstest.NewCounting(-1)
	checked := 0
	a := Audited{Subject: sub, Check: func(ctx context.Context, r []trials.TrialResult) ([]verdict.Finding, error) {
		checked++
		time.Sleep(time.Millisecond)
		return nil, nil
	}}
	cal, err := Calibrate(context.Background(), []Audited{a}, 3, 2, 50*time.Millisecond, 100)
	if err != nil {
		t.Fatal(err)
	}
	st := cal.Subjects[0]
	if len(cal.Subjects) != 1 || st.Trials < 16 || st.Trials > 100 || st.PerTrial <= 0 {
		t.Fatalf("calibration %+v", cal)
	}
	if checked != 3 || st.CheckFixed+st.CheckPerTrial*time.Duration(st.Trials) < time.Millisecond {
		t.Errorf("check run %d times, fitted %v + %v a trial; want 3 runs and at least the 1 ms it sleeps", checked, st.CheckFixed, st.CheckPerTrial)
	}
	if int(sub.Runs.Load()) < st.Trials {
		t.Errorf("%d trials run, %d reported", sub.Runs.Load(), st.Trials)
	}
}

// A check whose cost at a trial count is paid once per count (the game's power, memoised
// per count and shared by a subject's controls) is fitted with that cost: each check is
// timed at a count not timed before. Timing twice at one count fitted 0 a trial.
func TestCalibrateCountsEachCountOnce(t *testing.T) {
	// A fake clock that only the check advances: the fit is then exact (no sleep a loaded
	// machine could stretch), 1 ms a trial and nothing fixed, when every count is paid once.
	var elapsed time.Duration
	start := time.Unix(0, 0)
	defer func(c func() time.Time) { clock = c }(clock)
	clock = func() time.Time { return start.Add(elapsed) }
	const perTrial = time.Millisecond
	paid := map[int]bool{}
	a := Audited{Subject: gausstest.NewCounting(-1), Check: func(ctx context.Context, r []trials.TrialResult) ([]verdict.Finding, error) {
		if !paid[len(r)] { // the cost of this count, once
			paid[len(r)] = true
			elapsed += time.Duration(len(r)) * perTrial
		}
		return nil, nil
	}}
	cal, err := Calibrate(context.Background(), []Audited{a}, 3, 2, 50*time.Millisecond, 32)
	if err != nil {
		t.Fatal(err)
	}
	st := cal.Subjects[0]
	if st.CheckPerTrial != perTrial || st.CheckFixed != 0 {
		t.Errorf("fitted %v + %v a trial over %d trials; want exactly 0 + %v a trial", st.CheckFixed, st.CheckPerTrial, st.Trials, perTrial)
	}
}
