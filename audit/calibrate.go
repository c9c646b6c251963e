package audit

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
)

// A Calibration is what a short run on this machine measured of an audit, to say how long
// the whole audit takes at any number of trials and shards (Predict). Trials are
// independent and alike, so a trial's cost is the same at 16 trials as at 16,000; a
// check's cost grows with the trials, modelled as fixed plus per-trial from two counts.
type Calibration struct {
	Workers  int
	Setup    time.Duration // loading the data and building the subjects, measured by the caller
	Subjects []SubjectTiming
	Took     time.Duration // the calibration's own wall time
}

// SubjectTiming is one subject's measured costs.
type SubjectTiming struct {
	Name          string
	Trials        int           // trials the calibration ran
	PerTrial      time.Duration // wall time per trial with the calibration's workers
	CheckFixed    time.Duration // the check's time at n trials ≈ CheckFixed + n·CheckPerTrial
	CheckPerTrial time.Duration
	// Questions are the power questions the subject's games answered in its calibration
	// check (the two-family game, the membership game on its deleted records, …), so a
	// planner can say what each needs, not the game's alone. Their Trials is the
	// calibration's count.
	Questions []verdict.Question
}

// WithControls lists what an audit runs, in the order it runs them: each subject followed,
// with controls, by its controls (their Audited: the mutant subject and its check).
func WithControls(audited []Audited, controls bool) []Audited {
	var out []Audited
	for _, a := range audited {
		out = append(out, a)
		if controls {
			for _, c := range a.Controls {
				out = append(out, c.Audited)
			}
		}
	}
	return out
}

// Calibrate runs a few trials of each subject with the given workers (0: one per core)
// and times them and the subject's check. budget is the time to aim for in all: each
// subject first runs max(16, 2·workers) trials, then, if that took less than its share
// of the budget, again with as many as fit in the share (at most maxTrials). The first
// run also warms the caches the second is timed without.
func Calibrate(ctx context.Context, subjects []Audited, seed uint64, workers int, budget time.Duration, maxTrials int) (Calibration, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	start := clock()
	cal := Calibration{Workers: workers}
	share := budget / time.Duration(max(1, len(subjects)))
	// the trials are written to a checkpoint as a real run writes them: encoding is part
	// of a trial's cost
	dir, err := os.MkdirTemp("", "unlearnaudit-calibrate-")
	if err != nil {
		return Calibration{}, fmt.Errorf("calibrate: %w", err)
	}
	defer os.RemoveAll(dir)
	for _, a := range subjects {
		s := a.Subject
		k := min(max(16, 2*workers), maxTrials)
		path := filepath.Join(dir, "trials.jsonl")
		eng := trials.Engine{Workers: workers, Checkpoint: path}
		run := func(k int) ([]trials.TrialResult, time.Duration, error) {
			if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
				return nil, 0, err
			}
			t0 := clock()
			results, err := eng.Run(ctx, s, seed, k)
			return results, clock().Sub(t0), err
		}
		results, took, err := run(k)
		if err != nil {
			return Calibration{}, fmt.Errorf("calibrate %s: %w", s.Name(), err)
		}
		if want := int(float64(k) * float64(share) / float64(max(took, time.Millisecond))); want > k && k < maxTrials {
			k = min(want, maxTrials, 4096)
			if results, took, err = run(k); err != nil {
				return Calibration{}, fmt.Errorf("calibrate %s: %w", s.Name(), err)
			}
		}
		st := SubjectTiming{Name: s.Name(), Trials: k, PerTrial: took / time.Duration(k)}
		if k >= 2*checks.MinEmpiricalTrials {
			// the first check pays once-per-process costs (memoised plans); the fit uses
			// the next two, and the once-only cost joins the fixed part. Each check is at a
			// count not timed before: what depends on the count (the game's power at it) is
			// memoised per count and shared by a subject's controls, so a check timed again
			// at one count would leave it out, and the merge pays it once at its count.
			first, _, err := timeCheck(ctx, a, results[:k-1])
			if err != nil {
				return Calibration{}, err
			}
			half, _, err := timeCheck(ctx, a, results[:k/2])
			if err != nil {
				return Calibration{}, err
			}
			full, fs, err := timeCheck(ctx, a, results)
			if err != nil {
				return Calibration{}, err
			}
			for _, f := range fs {
				if f.Power != nil && f.Power.Question != nil {
					st.Questions = append(st.Questions, *f.Power.Question)
				}
			}
			per := max(0, (full-half)/time.Duration(k-k/2))
			st.CheckPerTrial = per
			st.CheckFixed = max(0, full-per*time.Duration(k)) + max(0, first-full)
		}
		cal.Subjects = append(cal.Subjects, st)
	}
	cal.Took = clock().Sub(start)
	return cal, nil
}

// timeCheck runs a's check on results, and says how long it took and what it found.
func timeCheck(ctx context.Context, a Audited, results []trials.TrialResult) (time.Duration, []verdict.Finding, error) {
	t0 := clock()
	fs, err := a.Check(ctx, results)
	if err != nil {
		return 0, nil, fmt.Errorf("calibrate %s: check: %w", a.Subject.Name(), err)
	}
	return clock().Sub(t0), fs, nil
}

// clock is Calibrate's time: a test replaces it with a fake one that advances by the costs
// it declares, so that the fit is checked exactly rather than against a loaded machine's
// sleeps.
var clock = time.Now

// A Prediction is how long an audit of some trials takes on machines like the one
// calibrated: on one, and split into shards (each part's run, then the merge's checks).
type Prediction struct {
	Trials   int
	Shards   int
	One      time.Duration // the whole audit on one machine
	PerShard time.Duration // the slowest part on one machine each
	Merge    time.Duration // the merge: setup and every check at the full trial count
}

// Predict is the wall time of the audit at n trials per subject, on one machine and in
// shards parts (queueing and file transfer not counted). The checks' time is summed over
// the subjects, each fitted at its own trial counts, so what a subject and its controls
// share at one count (the game's power, memoised) may be counted more than once: an upper
// bound there.
func (c Calibration) Predict(n, shards int) Prediction {
	p := Prediction{Trials: n, Shards: shards}
	part := trials.Shard{Index: 0, Count: max(shards, 1)}.Trials(n) // part 0 is the largest
	var run, runPart, check time.Duration
	for _, s := range c.Subjects {
		run += scale(s.PerTrial, n)
		runPart += scale(s.PerTrial, part)
		check += s.CheckFixed + scale(s.CheckPerTrial, n)
	}
	p.One = c.Setup + run + check
	p.PerShard = c.Setup + runPart
	p.Merge = c.Setup + check
	return p
}

func scale(d time.Duration, n int) time.Duration {
	return time.Duration(math.Round(float64(d) * float64(n)))
}
