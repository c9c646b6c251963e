package pipeline

import (
	"context"
	"io"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/internal/progress"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// setupSpy is a method whose demo keeps the setup it is handed and makes no subject.
type setupSpy struct{ got *audit.DemoSetup }

func (*setupSpy) Name() string    { return "spy" }
func (*setupSpy) Summary() string { return "keeps the demo setup it is handed" }
func (*setupSpy) DemoVariants() []audit.Variant {
	return []audit.Variant{{Name: "spy-only", Summary: "keeps its setup"}}
}
func (*setupSpy) DemoParams() []audit.Param { return nil }
func (s *setupSpy) Demo(_ context.Context, setup audit.DemoSetup, _ []string, _ audit.Args) ([]audit.Audited, error) {
	s.got = &setup
	return nil, nil
}

// With ShareResamples (controls checked, not timed one by one by plan) the subjects are
// handed one set of bootstrap resamples their controls' checks share; without, none.
// Planted bug caught: NewSubjects ignoring ShareResamples (the setup then holds none).
func TestSubjectsShareResamples(t *testing.T) {
	spy := &setupSpy{}
	audit.MustRegister(spy)
	t.Cleanup(func() { audit.Deregister(spy.Name()) })
	ds, err := reference.SyntheticClassification(100, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, share := range []bool{true, false} {
		spy.got = nil
		_, _, err := NewSubjects(context.Background(), ds, Setup{Lambda: 0.05, Epsilon: 1, Delta: 1e-6, Seed: 3, Confidence: 0.95,
			Variants: "spy-only", MethodArgs: audit.DefaultArgs(DemoParams()) /* every method's settings, defaulted, as the CLI binds them */, ShareResamples: share})
		if spy.got == nil {
			t.Fatalf("share %v: the method's demo was not asked (%v)", share, err)
		}
		if (spy.got.Resamples != nil) != share {
			t.Errorf("share %v: the setup's resamples are %p", share, spy.got.Resamples)
		}
	}
	if q := checkQueue(context.Background(), Plan{Progress: progress.New(io.Discard, false)}); q.Show == nil {
		t.Error("the check queue shows no steps")
	}
}
