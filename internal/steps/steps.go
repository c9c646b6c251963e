// Package steps lets library code say how far a long computation has come without knowing
// who listens: the command attaches a listener to the context (With) and the library
// reports through it (Report, Count). With no listener attached a report does nothing and
// costs a context lookup, so library code reports unconditionally:
//
//	ctx = steps.With(ctx, func(stage string, done, total int) { … }) // a progress bar's
//	…
//	steps.Report(ctx, "bracketing", 0, 0)  // a stage of unknown length: no count
//	steps.Report(ctx, "settling", 96, 768) // 96 of 768 steps done
//
// A total of 0 means the stage's length is unknown (a listener shows elapsed time, not an
// ETA). A listener may be called from several goroutines at once (a simulation reports
// from its workers), so it must be safe for concurrent use.
package steps

import (
	"context"
	"sync"
)

// Func listens to a computation's steps: done of total in the named stage (total 0: not
// known).
type Func func(stage string, done, total int)

type key struct{}

// With returns ctx with f listening to the steps reported through it (nil: none, so that
// a computation nested in a counted one does not report to its listener).
func With(ctx context.Context, f Func) context.Context {
	return context.WithValue(ctx, key{}, f)
}

// From returns ctx's listener, or nil; for a loop that reports often, to look it up once.
func From(ctx context.Context) Func {
	f, _ := ctx.Value(key{}).(Func)
	return f
}

// Report tells ctx's listener, if any, that done of total steps of stage are done.
func Report(ctx context.Context, stage string, done, total int) {
	if f := From(ctx); f != nil {
		f(stage, done, total)
	}
}

// A Counter counts a known list of steps — a subject's checks — done one after another
// or side by side (Step is safe for concurrent use).
type Counter struct {
	f           Func
	mu          sync.Mutex
	done, total int
}

// Count starts counting the steps of a list in which step i runs when runs[i] is true,
// reporting 0 of their number to ctx's listener. The context it returns has no listener:
// the steps' own reports (a power simulation's replicates within a check) would otherwise
// replace the count of steps, so they are not shown.
func Count(ctx context.Context, runs ...bool) (*Counter, context.Context) {
	c := &Counter{f: From(ctx)}
	for _, r := range runs {
		if r {
			c.total++
		}
	}
	if c.f != nil {
		c.f("", 0, c.total)
		ctx = With(ctx, nil)
	}
	return c, ctx
}

// Step records that one more step is done.
func (c *Counter) Step() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done++
	if c.f != nil {
		c.f("", c.done, c.total)
	}
}
