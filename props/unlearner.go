package props

import (
	"context"
	"fmt"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/artifact"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/audit/verify"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// An Unlearner is your own method under test, as two functions of the data and a trial's
// random streams (reference.Streams: ask for a stream by purpose, never use a global
// generator, so that a trial re-runs bit for bit):
//
//   - Unlearn learns on data, serves the deletion of the given record IDs, and returns the
//     published model;
//   - Retrain learns from scratch on the data without them and returns the published model.
//
// Epsilon and Delta are the (ε, δ)-unlearning claim the method makes for these deletions.
type Unlearner struct {
	Name           string
	Unlearn        func(ctx context.Context, data *reference.Dataset, deletes []int64, s reference.Streams) ([]float64, error)
	Retrain        func(ctx context.Context, remaining *reference.Dataset, s reference.Streams) ([]float64, error)
	Epsilon, Delta float64
}

// ReportTB is what CheckUnlearner reports through: *testing.T and *testing.B satisfy it.
type ReportTB interface {
	Helper()
	Errorf(format string, args ...any)
	Logf(format string, args ...any)
}

// An Option changes how a check reports.
type Option func(*options)

type options struct{ failInconclusive bool }

// FailInconclusive makes an INCONCLUSIVE game fail the test (t.Errorf, naming the trials
// or models per side that would decide) instead of logging it: for a test that must
// show the claim holds, not only that no violation was seen.
func FailInconclusive() Option { return func(o *options) { o.failInconclusive = true } }

func collect(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// inconclusive reports a game without the power to decide: logged, or with
// FailInconclusive an error.
func (o options) inconclusive(t ReportTB, format string, args ...any) {
	t.Helper()
	if o.failInconclusive {
		t.Errorf(format+" (FailInconclusive)", args...)
		return
	}
	t.Logf(format, args...)
}

// CheckUnlearner audits your unlearner from `go test`, the way the toolkit audits its own
// methods: it checks the contract the audit rests on, then runs trials of unlearning and
// of retraining and plays the distinguishing game on the published models.
//
//   - Reproducibility: a trial run twice with the same streams publishes the same model,
//     and every model has the same length. An audit of a method that is not a function of
//     its data and streams measures nothing.
//   - The game (checks.EmpiricalRelease): a violation of the claim shown at 95 %
//     confidence fails the test, naming the ε it shows. A game without the power to catch
//     a 2× violation is not a pass: it is logged as INCONCLUSIVE with the trials that would
//     decide, and the test does not fail for it unless FailInconclusive is given.
//
// It returns the game's finding for further assertions.
func CheckUnlearner(t ReportTB, u Unlearner, data *reference.Dataset, deletes []int64, trialCount int, seed uint64, opts ...Option) verdict.Finding {
	t.Helper()
	remaining, err := data.Without(deletes...)
	if err != nil {
		t.Errorf("%s: the deletions: %v", u.Name, err)
		return verdict.Finding{}
	}
	ctx := context.Background()
	s := reference.Streams{Seed: seed, Trial: 0}
	a, errA := u.Unlearn(ctx, data, deletes, s)
	b, errB := u.Unlearn(ctx, data, deletes, s)
	r, errR := u.Retrain(ctx, remaining, s)
	switch {
	case errA != nil || errB != nil || errR != nil:
		t.Errorf("%s: trial 0: unlearn %v, %v; retrain %v", u.Name, errA, errB, errR)
		return verdict.Finding{}
	case !slices.Equal(a, b):
		t.Errorf("%s: Unlearn published different models from the same streams: take every random choice from the streams given", u.Name)
		return verdict.Finding{}
	case len(a) != len(r) || len(a) == 0:
		t.Errorf("%s: Unlearn publishes %d parameters, Retrain %d", u.Name, len(a), len(r))
		return verdict.Finding{}
	}
	subject := &unlearnerSubject{u: u, data: data, remaining: remaining, deletes: deletes}
	results, err := trials.Engine{}.Run(ctx, subject, seed, trialCount)
	if err != nil {
		t.Errorf("%s: %v", u.Name, err)
		return verdict.Finding{}
	}
	return playGame(t, u.Name, u.Epsilon, u.Delta, seed, results, collect(opts))
}

// playGame runs the distinguishing game on the trials and reports its verdict: a FAIL
// fails the test, an INCONCLUSIVE is logged with the trials that would decide (an error
// with FailInconclusive).
func playGame(t ReportTB, name string, epsilon, delta float64, seed uint64, results []trials.TrialResult, o options) verdict.Finding {
	t.Helper()
	f, err := checks.EmpiricalRelease{Prefix: name, Epsilon: epsilon, Delta: delta, Seed: seed}.Check(context.Background(), results)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return verdict.Finding{}
	}
	switch f.Verdict {
	case verdict.Fail:
		t.Errorf("%s violates its (ε = %g, δ = %g) claim: %s shows ε ≥ %.3g over %d trials (%s)", name, epsilon, delta, f.Title, f.Measured, len(results), f.Detail)
	case verdict.Inconclusive:
		o.inconclusive(t, "%s: INCONCLUSIVE (not a pass: about %d trials per side would decide): %s", name, f.TrialsNeeded, f.Detail)
	}
	return f
}

// CheckSaved audits models already on disk from `go test`: unlearned and retrained are
// each a folder of model files or one matrix file, as `audit verify` reads them
// (artifact.LoadSample), of any sizes of at least 8 models (audit.VerifySamples: the game
// over the pre-registered parameter statistics). A violation of the (ε, δ) claim fails
// the test; a game without the power to decide is logged as INCONCLUSIVE with the models
// per side that would (FailInconclusive makes it fail the test). Files that cannot be read, or samples of different shapes, fail
// the test naming the file. Fewer unlearned models — one production model — need
// per-record scores: CheckSavedScores.
func CheckSaved(t ReportTB, name, unlearned, retrained string, epsilon, delta float64, seed uint64, opts ...Option) verdict.Finding {
	t.Helper()
	return checkSaved(t, name, unlearned, retrained, epsilon, delta, seed, verify.VerifySamples, collect(opts))
}

// CheckSavedScores is CheckSaved on per-record scores (models × deleted records, losses:
// lower means fitted better), audit verify --scores' route: the game over the deleted
// records' mean and median loss with 8 unlearned models or more, and with fewer, down to
// one, the rank test of their mean loss among the retrains, which can fail the test and
// never passes it.
func CheckSavedScores(t ReportTB, name, unlearned, retrained string, epsilon, delta float64, seed uint64, opts ...Option) verdict.Finding {
	t.Helper()
	return checkSaved(t, name, unlearned, retrained, epsilon, delta, seed, verify.VerifyScores, collect(opts))
}

func checkSaved(t ReportTB, name, unlearned, retrained string, epsilon, delta float64, seed uint64,
	verify func(ctx context.Context, u, r *mat.Dense, s *spec.Spec) (verdict.Claim, []verdict.Finding, error), o options) verdict.Finding {
	t.Helper()
	u, _, err := artifact.LoadSample(unlearned, reference.Limits{})
	if err != nil {
		t.Errorf("%s: unlearned models: %v", name, err)
		return verdict.Finding{}
	}
	r, _, err := artifact.LoadSample(retrained, reference.Limits{})
	if err != nil {
		t.Errorf("%s: retrained models: %v", name, err)
		return verdict.Finding{}
	}
	s := &spec.Spec{MethodLabel: name, Epsilon: epsilon, Delta: delta, Confidence: 0.95, PowerAgainst: verdict.DefaultPowerAgainst, Seed: seed}
	_, fs, err := verify(context.Background(), u, r, s)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return verdict.Finding{}
	}
	f := fs[0]
	nu, _ := u.Dims()
	nr, _ := r.Dims()
	switch f.Verdict {
	case verdict.Fail:
		t.Errorf("%s violates its (ε = %g, δ = %g) claim: %s shows %s %.3g against %.3g with %d unlearned and %d retrained models (%s)", name, epsilon, delta, f.Title, f.Check, f.Measured, f.Bound, nu, nr, f.Detail)
	case verdict.Inconclusive:
		o.inconclusive(t, "%s: INCONCLUSIVE (not a pass: about %d models a side would decide): %s", name, f.TrialsNeeded, f.Detail)
	}
	return f
}

// unlearnerSubject adapts an Unlearner to the audit engine.
type unlearnerSubject struct {
	u               Unlearner
	data, remaining *reference.Dataset
	deletes         []int64
}

func (s *unlearnerSubject) Name() string { return s.u.Name }

func (s *unlearnerSubject) Claim() verdict.Claim {
	return verdict.Claim{Method: s.u.Name, Guarantee: "(ε, δ)-unlearning", Epsilon: s.u.Epsilon, Delta: s.u.Delta,
		Source: "declared by the test", Required: []verdict.Kind{verdict.Empirical}}
}

func (s *unlearnerSubject) Unlearned(ctx context.Context, st reference.Streams) (reference.Release, error) {
	m, err := s.u.Unlearn(ctx, s.data, s.deletes, st)
	if err != nil {
		return reference.Release{}, fmt.Errorf("unlearn: %w", err)
	}
	return reference.Release{Published: m}, nil
}

func (s *unlearnerSubject) Retrained(ctx context.Context, st reference.Streams) (reference.Release, error) {
	m, err := s.u.Retrain(ctx, s.remaining, st)
	if err != nil {
		return reference.Release{}, fmt.Errorf("retrain: %w", err)
	}
	return reference.Release{Published: m}, nil
}
