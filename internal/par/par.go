// Package par runs independent jobs on a bounded number of goroutines. Results go into
// slots the caller indexes by job number, so the output never depends on scheduling.
package par

import (
	"context"
	"runtime"
	"sync"
)

// Do runs f(0), …, f(n−1) on at most workers goroutines (0 or less: one per core) and
// returns the first error; after an error or cancellation no new job starts.
func Do(ctx context.Context, n, workers int, f func(i int) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if err := f(i); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		}()
	}
loop:
	for i := range n {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break loop
		}
	}
	close(jobs)
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}
