package checks

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/internal/steps"
	"github.com/unlearnaudit/unlearnaudit/mia"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// The checks run side by side — each here waits until all of them have started, which
// one after another would never do — and their findings come back in the checks' order.
func TestCheckPhaseRunsSideBySideInOrder(t *testing.T) {
	const n = 4
	var started sync.WaitGroup
	started.Add(n)
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	checks := make([]trials.CheckFunc, n)
	for i := range checks {
		checks[i] = func(ctx context.Context) ([]verdict.Finding, error) {
			started.Done()
			select {
			case <-all:
			case <-time.After(10 * time.Second):
				return nil, fmt.Errorf("check %d: the others did not start beside it", i)
			}
			time.Sleep(time.Duration(n-i) * time.Millisecond) // the last ends first
			return []verdict.Finding{{Check: fmt.Sprint(i)}}, nil
		}
	}
	got, err := trials.CheckPhase{Limit: n}.Run(context.Background(), checks)
	if err != nil {
		t.Fatal(err)
	}
	for i, fs := range got {
		if len(fs) != 1 || fs[0].Check != fmt.Sprint(i) {
			t.Errorf("findings %d: %v, want check %d's", i, fs, i)
		}
	}
}

// Limit bounds the checks running at once, and is reached: the checks hold until the test
// has seen two running and given any third 20 ms to start wrongly (no timing decides a pass:
// with Limit kept, exactly two run until released).
func TestCheckPhaseLimit(t *testing.T) {
	var mu sync.Mutex
	running, most := 0, 0
	two, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	checks := make([]trials.CheckFunc, 7)
	for i := range checks {
		checks[i] = func(ctx context.Context) ([]verdict.Finding, error) {
			mu.Lock()
			running++
			most = max(most, running)
			if running == 2 {
				once.Do(func() { close(two) })
			}
			mu.Unlock()
			<-release
			mu.Lock()
			running--
			mu.Unlock()
			return nil, nil
		}
	}
	go func() {
		select {
		case <-two:
			time.Sleep(20 * time.Millisecond)
		case <-time.After(10 * time.Second): // never two at once: fails below
		}
		close(release)
	}()
	if _, err := (trials.CheckPhase{Limit: 2}).Run(context.Background(), checks); err != nil {
		t.Fatal(err)
	}
	if most != 2 {
		t.Errorf("%d checks ran at once; want Limit's 2", most)
	}
}

// A check that fails ends the others (its error, not their interruption, is returned).
func TestCheckPhaseFirstErrorEndsTheOthers(t *testing.T) {
	broken := errors.New("broken")
	ended := make(chan bool, 1) // whether check 0 was ended (its context done) or ran out
	checks := []trials.CheckFunc{
		func(ctx context.Context) ([]verdict.Finding, error) {
			select {
			case <-ctx.Done():
				ended <- true
				return nil, fmt.Errorf("check 0: %w", ctx.Err())
			case <-time.After(time.Minute): // a guard against a hang, not a deadline
				ended <- false
				return nil, nil
			}
		},
		func(ctx context.Context) ([]verdict.Finding, error) { return nil, broken },
		func(ctx context.Context) ([]verdict.Finding, error) {
			t.Error("check 2 started after check 1 failed")
			return nil, nil
		},
	}
	_, err := trials.CheckPhase{Limit: 2}.Run(context.Background(), checks)
	if !errors.Is(err, broken) {
		t.Errorf("error %v, want check 1's", err)
	}
	if !<-ended {
		t.Error("check 0 ran out its minute: the failure of check 1 did not end it")
	}
}

// Show sees each check's steps in turn, from the last it reported before it was shown,
// and not another check's. Check 0 may report some of its steps before the caller's
// goroutine shows it (a loaded machine, -race): then Show sees the last of those and the
// rest, a suffix of its three ending at 3/3; check 1 reports before it is shown, so Show
// sees that report, replayed, after check 0's.
func TestCheckPhaseShowsOneCheckAtATime(t *testing.T) {
	type report struct {
		shown, done, total int
	}
	var mu sync.Mutex
	var seen []report
	second := make(chan struct{}) // check 1 reports before it is shown, and waits
	checks := []trials.CheckFunc{
		func(ctx context.Context) ([]verdict.Finding, error) {
			select {
			case <-second:
			case <-time.After(10 * time.Second):
				return nil, errors.New("check 0: check 1 did not start beside it")
			}
			for k := range 3 {
				steps.Report(ctx, "", k+1, 3)
			}
			return nil, nil
		},
		func(ctx context.Context) ([]verdict.Finding, error) {
			steps.Report(ctx, "", 1, 2)
			close(second)
			return nil, nil
		},
	}
	p := trials.CheckPhase{Limit: 2, Show: func(i int) (context.Context, func()) {
		ctx := steps.With(context.Background(), func(_ string, done, total int) {
			mu.Lock()
			seen = append(seen, report{i, done, total})
			mu.Unlock()
		})
		return ctx, func() {}
	}}
	if _, err := p.Run(context.Background(), checks); err != nil {
		t.Fatal(err)
	}
	all := []report{{0, 1, 3}, {0, 2, 3}, {0, 3, 3}, {1, 1, 2}}
	if len(seen) < 2 || !slices.Equal(seen, all[len(all)-len(seen):]) {
		t.Errorf("shown %v, want a suffix of %v holding check 0's last step and check 1's", seen, all)
	}
}

// A queue runs its checks a batch of Limit at a time, as they are added: a run holds the
// trials of at most Limit audits at once (here: what was added and not yet checked), the
// findings come back in the order of Add, and Flush runs the last, short batch.
func TestCheckQueueHoldsAtMostABatch(t *testing.T) {
	const limit, n = 2, 5
	held, most := 0, 0
	var got []string
	q := trials.CheckQueue{Phase: trials.CheckPhase{Limit: limit}}
	for i := range n {
		held++ // audit i's trials, produced
		most = max(most, held)
		name := fmt.Sprint(i)
		check := func(context.Context) ([]verdict.Finding, error) { return []verdict.Finding{{Check: name}}, nil }
		if err := q.Add(context.Background(), name, check, func(fs []verdict.Finding) { held--; got = append(got, fs[0].Check) }); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if most > limit || held != 0 || !slices.Equal(got, []string{"0", "1", "2", "3", "4"}) {
		t.Fatalf("at most %d audits held at once (want ≤ %d), %d left unchecked, findings in the order %v", most, limit, held, got)
	}
	// a failing check ends its batch with its error, and nothing of the batch is handed on
	q = trials.CheckQueue{Phase: trials.CheckPhase{Limit: limit}}
	boom := errors.New("boom")
	handed := 0
	_ = q.Add(context.Background(), "a", func(context.Context) ([]verdict.Finding, error) { return nil, nil }, func([]verdict.Finding) { handed++ })
	err := q.Add(context.Background(), "b", func(context.Context) ([]verdict.Finding, error) { return nil, boom }, func([]verdict.Finding) { handed++ })
	if !errors.Is(err, boom) || handed != 0 {
		t.Fatalf("a failed batch: error %v, %d findings handed on; want boom and none", err, handed)
	}
}

// Membership checks given one mia.Resamples (MembershipRelease.Resamples, passed
// explicitly; the context carries nothing) share it across a queue's batches: the checks
// of three audits of the same two records and trial count keep one set of resamples a
// record (2 × 200 replicates × 300 bytes), and find what each finds alone. Without
// Resamples nothing is kept.
func TestCheckQueueSharesResamples(t *testing.T) {
	deleted, err := reference.FromRecords(2, []reference.Record{{ID: 7, X: []float64{1, 0}, Y: 1}, {ID: 9, X: []float64{0, 1}, Y: -1}})
	if err != nil {
		t.Fatal(err)
	}
	alone := MembershipRelease{Prefix: "t", Epsilon: 1, Delta: 0.05, Loss: reference.Logistic{Lambda: 0.1}, Deleted: deleted, Seed: 1}
	const n = 300
	draw := func(shift float64, seed uint64) []trials.TrialResult {
		r := reference.Stream(seed, 0, "queue-shares")
		out := make([]trials.TrialResult, n)
		for i := range out {
			u := []float64{shift + r.NormFloat64(), r.NormFloat64()}
			v := []float64{r.NormFloat64(), r.NormFloat64()}
			out[i] = trials.TrialResult{Index: i, Unlearned: reference.Release{Published: u}, Retrained: reference.Release{Published: v}}
		}
		return out
	}
	audits := [][]trials.TrialResult{draw(0, 1), draw(0.3, 2), draw(2, 3)}
	for _, shared := range []bool{true, false} {
		q := trials.CheckQueue{Phase: trials.CheckPhase{Limit: 2}}
		check := alone
		if shared {
			check.Resamples = mia.NewResamples(trials.SharedBudget)
		}
		found := make([]verdict.Finding, len(audits))
		for i, results := range audits {
			err := q.Add(context.Background(), fmt.Sprint(i), func(ctx context.Context) ([]verdict.Finding, error) {
				f, err := check.Check(ctx, results)
				return []verdict.Finding{f}, err
			}, func(fs []verdict.Finding) { found[i] = fs[0] })
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := q.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		for i, results := range audits {
			want, err := alone.Check(context.Background(), results)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(found[i], want) {
				t.Errorf("shared %v, audit %d: %+v; alone %+v", shared, i, found[i].Estimates, want.Estimates)
			}
		}
		// 2 records × 200 replicates × a nibble for each of the held-out halves' 2·(n − n/2)
		// samples (the records' AUCs are the held-out half's): the resamples passed were
		// drawn into, once
		if want := int64(2 * 200 * (n - n/2)); shared && check.Resamples.Held() != want {
			t.Errorf("%d bytes of resamples held; want %d (one set a record, of the held-out halves)", check.Resamples.Held(), want)
		}
	}
}
