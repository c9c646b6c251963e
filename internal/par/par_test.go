package par

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestDoRunsEveryJobOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 100} {
		hits := make([]int32, 57)
		if err := Do(context.Background(), len(hits), workers, func(i int) error {
			atomic.AddInt32(&hits[i], 1)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for i, h := range hits {
			if h != 1 {
				t.Fatalf("workers %d: job %d ran %d times", workers, i, h)
			}
		}
	}
}

func TestDoStopsAtTheFirstError(t *testing.T) {
	boom := errors.New("boom")
	var started atomic.Int32
	err := Do(context.Background(), 1000, 1, func(i int) error {
		started.Add(1)
		if i == 3 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	// one worker: job 3 fails, at most the job already handed over runs after it
	if s := started.Load(); s > 5 {
		t.Fatalf("%d jobs started after the failure at job 3", s)
	}
}

func TestDoHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Do(ctx, 10, 2, func(int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
