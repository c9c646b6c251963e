package epsilon

import (
	"context"
	"math"
	"slices"
	"sync"
	"sync/atomic"
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
	trials          int
	claim, delta, a float64
}

// factorKey is SmallestDetectableFactor's question: a simulation's and the power it targets.
type factorKey struct {
	simKey
	power float64
}

// sims are the power simulations the checks share, with their powers memoised per μ.
var sims memo[simKey, *sharedSim]

type sharedSim struct {
	*powerSim
	powers sync.Map // Float64bits(μ) → *muPower
}

// muPower is the memoised power at one μ. Its lock is held while the power is computed,
// so that checks run side by side (trials.CheckPhase), which ask the same μ at once, wait
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
var smallestFactors memo[factorKey, factorResult]

// A check's two games ask their power questions at two confidences (the game's two
// families share its false-alarm budget; the membership game's records share theirs), so
// their simulations differ in the Clopper–Pearson bounds they choose rules with, but not
// in their draws: at a trial count both bisect the same μ's, and a replicate's selection
// half at a μ is the same scores, counted into the same buckets. countedReps keeps those
// counts per replicate for the simulations of the same size to share: the same counts,
// so the same rules and powers, drawn once. Only the last few μ's are kept (a replicate's
// counts are 16 kB), and only from selection halves large enough for drawing to cost
// more than copying.

// countedKeep is how many (size, μ) a process keeps the counts of.
const countedKeep = 4

// countedMinSel is the least selection half whose counts are shared.
const countedMinSel = 4096

// countedMaxTails is the most tail scores a shared replicate keeps (beyond, each
// simulation counts its own).
const countedMaxTails = 4096

type countedKey struct {
	sel int
	mu  uint64 // Float64bits
}

// countedReps are the counts of the replicates of one size at one μ.
type countedReps struct {
	key     countedKey
	reps    [PowerReps]countedRep
	counted atomic.Int64 // replicates counted here, for tests
}

// countedRep is a replicate's counts after count: the chooser's fields count sets.
type countedRep struct {
	once           sync.Once
	ok             bool // kept (its tails not too many)
	startP, startN []int32
	tailL, tailR   float64
	tp, tn         []float64
}

var counted struct {
	mu   sync.Mutex
	last []*countedReps // the most recent last
}

// countedAt is the shared counts of the selection half of sel pairs at μ, or nil when
// sel is too small to share.
func countedAt(sel int, mu float64) *countedReps {
	if sel < countedMinSel {
		return nil
	}
	k := countedKey{sel, math.Float64bits(mu)}
	counted.mu.Lock()
	defer counted.mu.Unlock()
	for i, c := range counted.last {
		if c.key == k {
			counted.last = append(append(counted.last[:i:i], counted.last[i+1:]...), c)
			return c
		}
	}
	c := &countedReps{key: k}
	if len(counted.last) >= countedKeep {
		counted.last = slices.Delete(counted.last, 0, 1)
	}
	counted.last = append(counted.last, c)
	return c
}

// load sets c (begun) to replicate rep's counts: those another simulation counted, or
// those count (which counts them into c) counts now, kept for the others. On a nil
// countedReps, count counts.
func (cr *countedReps) load(rep int, c *chooser, count func()) {
	if cr == nil || rep >= len(cr.reps) {
		count()
		return
	}
	e := &cr.reps[rep]
	ran := false
	e.once.Do(func() {
		count()
		ran = true
		cr.counted.Add(1)
		if len(c.tp)+len(c.tn) > countedMaxTails {
			return
		}
		e.ok = true
		e.startP, e.startN = slices.Clone(c.startP[:c.nb+1]), slices.Clone(c.startN[:c.nb+1])
		e.tailL, e.tailR = c.tailL, c.tailR
		e.tp, e.tn = slices.Clone(c.tp), slices.Clone(c.tn)
	})
	switch {
	case ran:
	case !e.ok || len(e.startP) != c.nb+1:
		count()
	default:
		copy(c.startP, e.startP)
		copy(c.startN, e.startN)
		c.tailL, c.tailR = e.tailL, e.tailR
		c.tp, c.tn = append(c.tp[:0], e.tp...), append(c.tn[:0], e.tn...)
		c.tails = true
	}
}
