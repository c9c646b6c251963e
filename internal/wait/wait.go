// Package wait runs a computation that does not watch a context so that the context's end
// still ends the wait for it: a signal then interrupts a long read at once.
package wait

import "context"

// For runs f, a computation that does not watch a context, and returns ctx's
// error as soon as ctx ends, without waiting for f: the command then exits 130 and the
// process ends f with it. (In a test's process f runs on to its end, discarded.)
//
// A context already done when For is called runs f to its end: reading and
// checking the inputs is quick next to a signal's arrival, and bad input is then refused
// as bad input, not reported as an interruption (the work after it sees ctx).
func For[T any](ctx context.Context, f func() (T, error)) (T, error) {
	if ctx.Err() != nil {
		return f()
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
