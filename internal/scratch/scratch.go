// Package scratch keeps large working arrays between uses. A check of 10⁵–10⁶ trials works
// in arrays of tens to hundreds of megabytes (stacked models, centred rows, sort keys);
// made new each time, their pages cost more to fault in than to fill, so each array goes
// back to a Pool when its user is done with it and comes out again for the next.
//
//	var rows scratch.Pool[float64]
//	buf := rows.Get(n * d) // contents: whatever the last user left
//	defer rows.Put(buf)
package scratch

import "sync"

// Pool keeps slices of T for reuse. The zero Pool is ready; it is safe for concurrent use,
// and, as a sync.Pool, lets the garbage collector take what it keeps.
type Pool[T any] struct{ p sync.Pool }

// Get returns a slice of n Ts. Its contents are whatever its last user left: every caller
// sets each element before it reads it.
func (p *Pool[T]) Get(n int) []T {
	if s, ok := p.p.Get().(*[]T); ok && cap(*s) >= n {
		return (*s)[:n]
	} // one too small goes
	return make([]T, n)
}

// Put gives s back to p; nothing may use s after.
func (p *Pool[T]) Put(s []T) { p.p.Put(&s) }
