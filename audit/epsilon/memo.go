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
// for the first and share its answer) and kept only when the computation says so (an
// interrupted one is not). An asker handed another's answer that was not kept computes
// its own: the first may have been interrupted by a context the asker does not share.
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
	ran := false
	e.once.Do(func() { e.v, e.keep = f(); ran = true })
	if !e.keep {
		m.mu.Lock()
		if m.m[k] == e {
			delete(m.m, k)
		}
		m.mu.Unlock()
		if !ran {
			v, _ := f() // with this asker's own context
			return v
		}
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
	powers sync.Map // Float64bits(μ) → *muPower
}

// muPower is the memoised power at one μ. Its lock is held while the power is computed,
// so that checks run side by side (audit.CheckPhase), which ask the same μ at once, wait
// for the first asker instead of each simulating it: the same bits, once.
type muPower struct {
	mu     sync.Mutex
	done   bool
	pw, se float64
}

func sharedPowerSim(trials int, p PowerSpec) *sharedSim {
	k := simKey{trials: trials, claim: p.Claim, delta: p.Delta, a: 1 - p.Conf}
	return sims.get(k, func() (*sharedSim, bool) { return &sharedSim{powerSim: newPowerSim(trials, p)}, true })
}

// at is the memo entry of μ.
func (s *sharedSim) at(mu float64) *muPower {
	e, _ := s.powers.LoadOrStore(math.Float64bits(mu), &muPower{})
	return e.(*muPower)
}

// power is powerSim.power, memoised (not when ctx ended it: its value is meaningless, and
// the next asker computes its own).
func (s *sharedSim) power(ctx context.Context, mu float64) (float64, float64) {
	e := s.at(mu)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done {
		return e.pw, e.se
	}
	pw, se := s.powerSim.power(ctx, mu)
	if ctx.Err() == nil {
		e.done, e.pw, e.se = true, pw, se
	}
	return pw, se
}

// earlyChecks are the replicate counts after which reaches looks whether the replicates
// left can still change its answer: a power near 0 settles "no" after 52 of 256 at a
// target of 0.8, one near 1 settles "yes" only after 205.
var earlyChecks = []int{64, 128, 208, 232}

// reaches is whether power(ctx, mu) ≥ target, the same answer, decided as soon as the
// replicates done settle it: the power is their mean, summed in replicate order, each in
// [0, 1], and rounding is monotone, so the sum of the first k is a lower bound on the
// sum of all and that sum plus 1 for each replicate left (added as the sum would add
// them) an upper bound. A power computed to the end is memoised as power's; an asker of
// the same μ waits for it (power's lock).
func (s *sharedSim) reaches(ctx context.Context, mu, target float64) bool {
	e := s.at(mu)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done {
		return e.pw >= target
	}
	per := make([]float64, PowerReps)
	done := 0
	for _, k := range earlyChecks {
		s.replicates(ctx, mu, per[:k], done)
		done = k
		if ctx.Err() != nil {
			return false
		}
		var lo float64
		for _, v := range per[:k] {
			lo += v
		}
		hi := lo
		for range PowerReps - k {
			hi++
		}
		switch {
		case lo/PowerReps >= target:
			return true
		case hi/PowerReps < target:
			return false
		}
	}
	s.replicates(ctx, mu, per, done)
	pw, se := meanStdErr(per)
	if ctx.Err() == nil {
		e.done, e.pw, e.se = true, pw, se
	}
	return pw >= target
}

type factorResult struct {
	f   float64
	err error
}

// smallestFactors memoises SmallestDetectableFactor.
var smallestFactors memo[simKey, factorResult]
