package audit

import (
	"context"
	"runtime"
	"sync"

	"github.com/unlearnaudit/unlearnaudit/internal/steps"
)

// A CheckFunc checks one audit's finished trials (an Audited's Check on its results).
type CheckFunc func(ctx context.Context) ([]Finding, error)

// CheckPhase is the check phase of a run or a merge: every audit's trials are in, and their
// checks (a subject's and its controls', WithControls' order) run side by side. A check
// uses a few cores at best (its findings side by side, the slowest alone at its end), so
// one after another they left cores idle; side by side they fill them. Each audit's
// findings are the bits its check returns alone: checks share nothing but the answers
// audit/epsilon memoises (power simulations, Clopper–Pearson tables), which are the same
// bits whoever computes them, and which concurrent askers compute once.
type CheckPhase struct {
	// Limit is the most checks run at once (0: GOMAXPROCS, at least 2): each holds its
	// working copies of its trials' models while it runs.
	Limit int
	// Show, if set, is called for each check in order, from the caller's goroutine, once
	// the one before has ended: the steps the check reports (internal/steps) from then on,
	// and the last it reported before, go to the listener of the context Show returns,
	// until the check ends and stop is called. A progress bar shows one check at a time,
	// as it did when they ran one after another.
	Show func(i int) (ctx context.Context, stop func())
}

// Run runs checks[i] for every i, side by side, and returns their findings in order. The
// first check to fail ends the others (their contexts are cancelled) and its error is
// returned; so is ctx's when it ends first.
func (p CheckPhase) Run(ctx context.Context, checks []CheckFunc) ([][]Finding, error) {
	limit := p.Limit
	if limit <= 0 {
		limit = max(2, runtime.GOMAXPROCS(0))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := make([][]Finding, len(checks))
	relays := make([]*relay, len(checks))
	done := make([]chan struct{}, len(checks))
	var first error
	var once sync.Once
	fail := func(err error) { once.Do(func() { first = err; cancel() }) }
	slots := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := range checks {
		done[i] = make(chan struct{})
		if p.Show != nil {
			relays[i] = &relay{}
		}
	}
	// the checks start in order, each when a slot is free
	wg.Go(func() {
		for i, check := range checks {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				for _, d := range done[i:] {
					close(d)
				}
				return
			}
			cctx := ctx
			if p.Show != nil {
				cctx = steps.With(ctx, relays[i].report)
			}
			wg.Go(func() {
				defer close(done[i])
				defer func() { <-slots }()
				fs, err := check(cctx)
				if err != nil {
					fail(err)
					return
				}
				out[i] = fs
			})
		}
	})
	if p.Show != nil {
		for i := range checks {
			sctx, stop := p.Show(i)
			relays[i].attach(steps.From(sctx))
			select {
			case <-done[i]:
			case <-ctx.Done():
			}
			relays[i].attach(nil)
			stop()
			if ctx.Err() != nil {
				break
			}
		}
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// relay passes a check's step reports on to the listener attached, if any, and keeps the
// last so that a listener attached later starts where the check is.
type relay struct {
	mu          sync.Mutex
	to          steps.Func
	stage       string
	done, total int
	reported    bool
}

func (r *relay) report(stage string, done, total int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stage, r.done, r.total, r.reported = stage, done, total, true
	if r.to != nil {
		r.to(stage, done, total)
	}
}

func (r *relay) attach(f steps.Func) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.to = f
	if f != nil && r.reported {
		f(r.stage, r.done, r.total)
	}
}
