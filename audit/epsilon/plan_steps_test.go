package epsilon

import (
	"context"
	"sync"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/steps"
)

// The power search reports its bracketing without a count and its settling as replicates
// done of at most how many are left, ending at all of them done; listening changes nothing
// in the answer.
func TestSearchReportsSteps(t *testing.T) {
	p := PowerSpec{Claim: 1, Factor: 2, Power: 0.8, Delta: 1e-3, Conf: 0.975}
	type rep struct {
		stage       string
		done, total int
	}
	var mu sync.Mutex
	var got []rep
	ctx := steps.With(context.Background(), func(stage string, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, rep{stage, done, total})
	})
	n, m, err := searchTrials(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	n0, m0, err := searchTrials(context.Background(), p)
	if err != nil || n != n0 || m != m0 {
		t.Fatalf("with a listener: %d trials, μ = %v; without: %d, %v (%v)", n, m, n0, m0, err)
	}
	if len(got) == 0 || got[0] != (rep{"bracketing", 0, 0}) {
		t.Fatalf("first report %v; want the bracketing, without a count", got[:min(1, len(got))])
	}
	settling := 0
	for _, r := range got[1:] {
		if r.stage != "settling" || r.total <= 0 || r.done > r.total {
			t.Fatalf("report %+v after the bracketing; want settling replicates, done ≤ total", r)
		}
		settling++
	}
	last := got[len(got)-1]
	// the settling evaluates at least the bracket's two ends, extending 32 coarse replicates
	// to 256 at each
	if last.done != last.total || last.done < 2*(PowerReps-coarseReps) || settling < last.done {
		t.Errorf("last report %+v after %d settling reports; want all done, at least %d replicates, one report each", last, settling, 2*(PowerReps-coarseReps))
	}
}

// bisectSteps bounds bisectCount's evaluations from above, and by at most one on the
// settling's brackets (within a fifth of the count, where lo/parts and hi/parts are close).
func TestBisectSteps(t *testing.T) {
	for lo := 0; lo < 400; lo += 7 {
		for hi := lo + 1; hi < 2*lo+50; hi += 3 {
			for _, mid := range []int{lo, (lo + hi) / 2, hi - 1} {
				evals := 0
				bisectCount(lo, hi, settleParts, func(n int) bool { evals++; return n > mid })
				if b := bisectSteps(lo, hi, settleParts); evals > b || (5*hi <= 6*lo && evals < b-1) {
					t.Fatalf("bisect %d..%d (answer past %d): %d evaluations, bound %d", lo, hi, mid, evals, b)
				}
			}
		}
	}
}
