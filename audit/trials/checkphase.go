package trials

import (
	"context"
	"runtime"
	"sync"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/internal/steps"
)

// A CheckFunc checks one audit's finished trials (an Audited's Check on its results).
type CheckFunc func(ctx context.Context) ([]verdict.Finding, error)

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
func (p CheckPhase) Run(ctx context.Context, checks []CheckFunc) ([][]verdict.Finding, error) {
	limit := p.limit()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := make([][]verdict.Finding, len(checks))
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

// limit is the most checks Run runs at once.
func (p CheckPhase) limit() int {
	if p.Limit > 0 {
		return p.Limit
	}
	return max(2, runtime.GOMAXPROCS(0))
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

// SharedBudget is the most the resamples a run's checks share (CheckOptions.Resamples) hold:
// 1 GiB, the resamples of 8 records at 651 823 trials (δ = 10⁻⁶'s count for the decisive
// SGLU spec), each 200 replicates of half a byte a trial a side (130 MB).
const SharedBudget = 1 << 30

// A CheckQueue collects a run's checks as their trials finish and runs them side by side
// (CheckPhase) a batch at a time: once the phase's Limit of them wait, they run before the
// next audit's trials are produced. So a run holds the trials of at most Limit audits at
// once — with models of MNIST's 784 features, 100 000 trials of an audit are several GB,
// and a subject with its four controls held at once would be five times that — while the
// checks still fill the cores.
type CheckQueue struct {
	// Phase runs each batch; its Limit (0: GOMAXPROCS, at least 2) is the batch's size.
	Phase CheckPhase
	// Show, if set, is Phase.Show for a check by name (Add's).
	Show func(name string) (ctx context.Context, stop func())

	names  []string
	checks []CheckFunc
	found  []func([]verdict.Finding)
}

// Add queues check (named name; found takes its findings, in the order of Add) and runs
// the queue if it is full. An error is the first check's to fail, or ctx's.
func (q *CheckQueue) Add(ctx context.Context, name string, check CheckFunc, found func([]verdict.Finding)) error {
	q.names, q.checks, q.found = append(q.names, name), append(q.checks, check), append(q.found, found)
	if len(q.checks) < q.Phase.limit() {
		return nil
	}
	return q.Flush(ctx)
}

// Flush runs the queued checks and hands their findings on in order.
func (q *CheckQueue) Flush(ctx context.Context) error {
	if len(q.checks) == 0 {
		return nil
	}
	p := q.Phase
	if q.Show != nil {
		names := q.names
		p.Show = func(i int) (context.Context, func()) { return q.Show(names[i]) }
	}
	out, err := p.Run(ctx, q.checks)
	found := q.found
	q.names, q.checks, q.found = nil, nil, nil // the trials the checks held can go
	if err != nil {
		return err
	}
	for i, fs := range out {
		found[i](fs)
	}
	return nil
}
