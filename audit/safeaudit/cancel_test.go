package safeaudit_test

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/safeaudit"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// pollCtx is a context that is cancelled by the setup's own progress: its first limit
// polls of Err see it live, every later one sees context.Canceled. It counts the polls
// made after the cancellation, the measure of the work done after it (each poll stands
// for one step of the setup's solvers: a conjugate-gradient iteration, a round). No clock
// is involved, so the test says the same on a loaded machine.
type pollCtx struct {
	context.Context
	limit int

	mu          sync.Mutex
	polls       int
	pollsAfter  int // polls of Err after the one that first returned Canceled
	done        chan struct{}
	closeDoneOn sync.Once
}

func newPollCtx(limit int) *pollCtx {
	return &pollCtx{Context: context.Background(), limit: limit, done: make(chan struct{})}
}

func (c *pollCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.polls++
	if c.polls <= c.limit {
		return nil
	}
	if c.polls > c.limit+1 {
		c.pollsAfter++
	}
	c.closeDoneOn.Do(func() { close(c.done) })
	return context.Canceled
}

func (c *pollCtx) Done() <-chan struct{} { return c.done }

// SAFE's demo setup trains w₀ and retrains exactly after every round, the longest setup of
// any method: a cancellation in the middle of it (Ctrl-C in "audit demo") must stop it and
// come back as context.Canceled, with no more than a few polls after the one that saw it
// (one per layer returning: the solver, the round loop, the demo). The old Demo took no
// context and built its subject on context.Background(), so the setup ran to the end and
// returned a subject: planted back by hand (New(context.Background(), …) in Demo), this
// test fails, the setup polling the context once (RunDemo's own look) where it polls it
// dozens of times.
func TestDemoSetupHonoursCancellation(t *testing.T) {
	ds, err := reference.SyntheticClassification(120, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	setup, err := audit.NewDemoSetup(ds, audit.DemoConfig{Lambda: 0.05, Epsilon: 1, Delta: 1e-6, Seed: 1, Confidence: 0.95, PowerAgainst: 2, Attacks: audit.Attacks{}})
	if err != nil {
		t.Fatal(err)
	}
	m := safeaudit.Method{}
	args := audit.DefaultArgs(m.DemoParams())
	// the whole setup, live: how many polls it makes
	full := newPollCtx(math.MaxInt) // never cancels
	if _, err := audit.RunDemo(full, m, setup, []string{"safe"}, args); err != nil {
		t.Fatal(err)
	}
	if full.polls < 10 {
		t.Fatalf("the setup polled its context %d times; too few to cancel it midway", full.polls)
	}
	t.Logf("the setup polls its context %d times", full.polls)
	for _, at := range []int{1, full.polls / 3, full.polls / 2, full.polls - 2} {
		ctx := newPollCtx(at)
		got, err := audit.RunDemo(ctx, m, setup, []string{"safe"}, args)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled after %d of %d polls: %d subjects, error %v; want context.Canceled", at, full.polls, len(got), err)
		}
		if ctx.pollsAfter > 3 {
			t.Errorf("cancelled after %d of %d polls: %d more polls after the cancellation; want at most 3 (one per layer returning)", at, full.polls, ctx.pollsAfter)
		}
	}
}
