package epsilon

import (
	"context"
	"math"
	"sync"
)

// An audit checks its subject and each of its negative controls with the same claim and
// the same trial count, so the checks ask the same questions of this package: the power of
// the split game at that count (SplitGamePower, SmallestDetectableFactor), and the
// Clopper–Pearson bounds of the same sample sizes at the same levels (every game's sweep).
// Their answers depend on those inputs alone, so they are computed once per process and
// shared: the same bits, a fraction of the time. The memos are bounded (memoLimit) so a
// long-lived process that checks many counts does not keep them all.

// memoLimit is the most entries a memo keeps; past it, it starts over.
const memoLimit = 64

// memo is a bounded map whose values are computed once (concurrent askers of one key wait
// for the first) and kept only when the computation says so (an interrupted one is not).
type memo[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]*memoEntry[V]
}

type memoEntry[V any] struct {
	once sync.Once
	v    V
	keep bool
}

// get is the value for k, computed by f the first time (f's bool: whether to keep it).
func (m *memo[K, V]) get(k K, f func() (V, bool)) V {
	m.mu.Lock()
	if m.m == nil || len(m.m) >= memoLimit {
		m.m = map[K]*memoEntry[V]{}
	}
	e, ok := m.m[k]
	if !ok {
		e = &memoEntry[V]{}
		m.m[k] = e
	}
	m.mu.Unlock()
	e.once.Do(func() { e.v, e.keep = f() })
	if !e.keep {
		m.mu.Lock()
		if m.m[k] == e {
			delete(m.m, k)
		}
		m.mu.Unlock()
	}
	return e.v
}

type cpKey struct {
	n int
	a float64
}

// cpTables are the games' Clopper–Pearson bounds, one table per sample size and level.
var cpTables memo[cpKey, *cpTable]

// cpTableFor is the shared table of CPUpper(·, n, a).
func cpTableFor(n int, a float64) *cpTable {
	return cpTables.get(cpKey{n, a}, func() (*cpTable, bool) { return newCPTable(n, a), true })
}

// simKey is what a power simulation depends on: the count and the spec less its factor
// and power target (the alternative is a μ, asked per call).
type simKey struct {
	trials              int
	claim, delta, a     float64
	smallestPowerTarget float64 // for SmallestDetectableFactor's memo; 0 in sims' keys
}

// sims are the power simulations the checks share, with their powers memoised per μ.
var sims memo[simKey, *sharedSim]

type sharedSim struct {
	*powerSim
	powers memo[uint64, [2]float64] // Float64bits(μ) → power, standard error
}

func sharedPowerSim(trials int, p PowerSpec) *sharedSim {
	k := simKey{trials: trials, claim: p.Claim, delta: p.Delta, a: 1 - p.Conf}
	return sims.get(k, func() (*sharedSim, bool) { return &sharedSim{powerSim: newPowerSim(trials, p)}, true })
}

// power is powerSim.power, memoised (not when ctx ended it: its value is meaningless).
func (s *sharedSim) power(ctx context.Context, mu float64) (float64, float64) {
	r := s.powers.get(math.Float64bits(mu), func() ([2]float64, bool) {
		pw, se := s.powerSim.power(ctx, mu)
		return [2]float64{pw, se}, ctx.Err() == nil
	})
	return r[0], r[1]
}

type factorResult struct {
	f   float64
	err error
}

// smallestFactors memoises SmallestDetectableFactor.
var smallestFactors memo[simKey, factorResult]
