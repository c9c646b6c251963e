package epsilon

import (
	"fmt"
	"math"
	"math/bits"
	"sync/atomic"

	"gonum.org/v1/gonum/stat/distuv"
)

// The power simulation's rule choice without sorting the selection half. Sorting both
// samples was most of a plan's time (a plan at δ = 1e-6 sorted 10⁹ normal draws), yet the
// chosen rule depends only on the few scores around the best threshold. choose buckets
// the scores by value (bucket order is score order), counts each bucket, and bounds from
// the counts alone the best ε any threshold inside a bucket can reach; it then sorts and
// sweeps only the buckets that could hold the best rule, and the rule is the one the full
// sweep chooses, ties included (TestPowerSimChooseIsRuleSweep). The best rules of the
// Gaussian pair lie in the tails, so the simulation keeps only the scores there as it
// draws and counts (normals.count), and draws a replicate again in the rare case its best
// rule lies elsewhere; the Clopper–Pearson bounds are computed only at the counts asked
// for (cpTable).

// cpChunk is the number of bounds a cpTable allocates at once.
const cpChunk = 1024

// cpTable is CPUpper(k, n, a) for k = 0..n, each computed the first time it is asked for
// and kept: a replicate needs only the bounds around its best rule and its held-out
// counts, and the replicates at one count share them. Safe for concurrent use: two
// goroutines may compute the same bound, and store the same bits.
type cpTable struct {
	n      int
	a      float64
	chunks keptValues // the bounds
	// the standard normal quantiles of 1 − bound and of bound, which the Gaussian-DP game
	// asks of every rule it sweeps (Game.GDP): the same counts for every audit of the count
	normalAbove, normalAt keptValues
}

// keptValues are float64s for k = 0..n, computed when first asked for: the Float64bits of
// each, 0 while not computed (a value whose bits are 0 is computed again when asked, the
// same bits). Safe for concurrent use.
type keptValues []atomic.Pointer[[cpChunk]atomic.Uint64]

func newKeptValues(n int) keptValues { return make(keptValues, n/cpChunk+1) }

// get is value k, f() the first time.
func (kv keptValues) get(k int, f func() float64) float64 {
	slot := &kv[k/cpChunk]
	c := slot.Load()
	if c == nil {
		c = new([cpChunk]atomic.Uint64)
		if !slot.CompareAndSwap(nil, c) {
			c = slot.Load()
		}
	}
	e := &c[k%cpChunk]
	if b := e.Load(); b != 0 {
		return math.Float64frombits(b)
	}
	v := f()
	e.Store(math.Float64bits(v))
	return v
}

func newCPTable(n int, a float64) *cpTable {
	return &cpTable{n: n, a: a, chunks: newKeptValues(n), normalAbove: newKeptValues(n), normalAt: newKeptValues(n)}
}

// at is CPUpper(k, n, a).
func (t *cpTable) at(k int) float64 {
	return t.chunks.get(k, func() float64 { return CPUpper(k, t.n, t.a) })
}

// quantileAbove is distuv.UnitNormal.Quantile(1 − t.at(k)).
func (t *cpTable) quantileAbove(k int) float64 {
	return t.normalAbove.get(k, func() float64 { return distuv.UnitNormal.Quantile(1 - t.at(k)) })
}

// quantileAt is distuv.UnitNormal.Quantile(t.at(k)).
func (t *cpTable) quantileAt(k int) float64 {
	return t.normalAt.get(k, func() float64 { return distuv.UnitNormal.Quantile(t.at(k)) })
}

// bracket is lo ≤ CPUpper(k, n, a) ≤ hi from the bounds at two nearby counts (the bound
// increases with k), so that bounding every bucket of a replicate asks for few distinct
// counts: those with at most 9 significant bits in k or in n − k, the side nearer k,
// about 0.4 % apart.
func (t *cpTable) bracket(k int) (lo, hi float64) {
	d := min(k, t.n-k)
	s := max(0, bits.Len(uint(d))-9)
	f := d >> s << s
	if f == d {
		u := t.at(k)
		return u, u
	}
	g := min(f+1<<s, t.n)
	if k == d {
		return t.at(f), t.at(g)
	}
	return t.at(t.n - g), t.at(t.n - f)
}

// pruneMargin is the relative margin by which a bucket's bound on the ratio must fall short
// of a ratio some rule reaches before the bucket is skipped: far beyond the bounds'
// rounding (and, as in choose's own filter, the logarithm's), so a skipped bucket holds no
// rule as good as the best, let alone a tie.
const pruneMargin = 1e-7

// chooser is one worker's scratch space for choose, and its buckets: nb of them, equal in
// width from lo, with the scores below lo in the first and those past the last in the last.
//
// The simulation does not keep its scores: it counts them into the buckets as it draws
// them (normals.count), keeping only those in the tails, at or below tailL and at or
// above tailR, where the best rules have been (learn). When the buckets choose must sweep
// hold other scores, it draws the scores again (redraw).
type chooser struct {
	nb             int
	lo, scale      float64
	np, nn         int       // scores on each side
	counted        bool      // startP and startN hold the counts of the scores to choose on
	startP, startN []int32   // per bucket b, the scores of each side in buckets before b (b = 0..nb)
	bound          []float64 // per bucket, an upper bound on the ratio of its rules
	mark           []bool    // per bucket, whether it is sorted and swept
	pp, pn, buf    []float64 // the marked buckets' scores of each side
	buckets        int       // the bucket count; 0 picks it from the sample sizes

	tailL, tailR   float64                     // the tails kept: scores ≤ tailL or ≥ tailR
	tails          bool                        // tp and tn hold the tails of the scores counted
	tp, tn         []float64                   // the scores kept, of each side
	redraw         func() (pos, neg []float64) // all the scores, drawn again
	redraws        int                         // how many times choose asked for them
	learnL, learnR float64                     // the tails to keep next (learn)
	center         float64                     // between the tails
}

// bucketsFor is the number of buckets for n scores: about 32 a bucket, 1 (no pruning)
// for small samples.
func bucketsFor(n int) int {
	if n < 512 {
		return 1
	}
	return n / 32
}

// superBucket is how many buckets choose bounds at once before bounding them one by one.
const superBucket = 32

// begin sets up the buckets for np and nn scores in about [lo, hi] and clears their
// counts.
func (c *chooser) begin(np, nn int, lo, hi float64) {
	nb := c.buckets
	if nb == 0 {
		nb = bucketsFor(np + nn)
	}
	scale := float64(nb) / (hi - lo)
	if nb < 2 || !(scale > 0 && scale < math.Inf(1)) || math.IsInf(lo, 0) {
		nb, lo, scale = 1, 0, 0
	}
	c.nb, c.lo, c.scale, c.np, c.nn, c.counted, c.tails = nb, lo, scale, np, nn, true, false
	if len(c.mark) < nb {
		c.startP, c.startN = make([]int32, nb+1), make([]int32, nb+1)
		c.bound, c.mark = make([]float64, nb), make([]bool, nb)
	}
	clear(c.startP[:nb+1])
	clear(c.startN[:nb+1])
}

// tailMargin widens the tails kept past the buckets where best rules were, in score units
// (the scores' spread is 1): the best threshold wanders between replicates.
const tailMargin = 0.3

// learn widens the tails to keep (learnL, learnR) to hold the marked buckets, with a
// margin, but no further than holds tailShare of the scores counted (by the buckets'
// counts, before them and from them on): a replicate whose best rule lies further in
// draws its scores again rather than have every replicate keep many of them.
func (c *chooser) learn(mark []bool) {
	nb, total := c.nb, float64(c.np+c.nn)
	k := 0 // the scores below bucket k are at most the share
	for k < nb && float64(c.startP[k+1]+c.startN[k+1]) <= tailShare*total {
		k++
	}
	capL := c.lo + float64(k)/c.scale
	k = nb // the scores from bucket k on are at most the share
	for k > 0 && total-float64(c.startP[k-1]+c.startN[k-1]) <= tailShare*total {
		k--
	}
	capR := c.lo + float64(k)/c.scale
	for b, m := range mark {
		if !m {
			continue
		}
		lo, hi := c.lo+float64(b)/c.scale, c.lo+float64(b+1)/c.scale
		switch {
		case hi < c.center:
			c.learnL = min(max(c.learnL, hi+tailMargin), capL)
		case lo > c.center:
			c.learnR = max(min(c.learnR, lo-tailMargin), capR)
		}
	}
}

// tailShare is the most of the scores a tail kept may hold.
const tailShare = 0.01

// bucket is the bucket of score v: monotone in v (a rounded subtraction and product,
// truncated, clamped), so the buckets part the scores in order.
func (c *chooser) bucket(v float64) int { return bucketOf(v, c.lo, c.scale, c.nb) }

// bucketOf is chooser.bucket on the chooser's fields, for loops that keep them in registers.
// A product out of int's range converts to some int (the spec leaves which), and below
// 0 or from nb on the product itself decides the end.
func bucketOf(v, lo, scale float64, nb int) int {
	f := (v - lo) * scale
	b := int(f)
	if uint(b) >= uint(nb) {
		return bucketEnd(f, nb)
	}
	return b
}

func bucketEnd(f float64, nb int) int {
	if f < 0 {
		return 0
	}
	return nb - 1
}

// bounds are, for the rules whose scores lie in buckets b0..b1−1, an upper bound on their
// ratio, and a lower bound on the ratio of the first one ("above" at the first score) and
// of the last ("below" at the last score), which the sweep offers.
func (s *powerSim) bounds(c *chooser, b0, b1 int) (bound, edge float64) {
	np, nn := int(c.startP[c.nb]), int(c.startN[c.nb])
	p0, p1, n0, n1 := int(c.startP[b0]), int(c.startP[b1]), int(c.startN[b0]), int(c.startN[b1])
	// "above" at the scores here: FP from nn − n1 to nn − n0, FN from p0 to p1, and exactly
	// nn − n0 and p0 at the first; "below": FP from n0 to n1, FN from np − p1 to np − p0,
	// and exactly n1 and np − p1 at the last
	aFPlo, _ := s.uSel.bracket(nn - n1)
	aFNlo, aFNhi := s.uSel.bracket(p0)
	bFPlo, _ := s.uSel.bracket(n0)
	bFNlo, bFNhi := s.uSel.bracket(np - p1)
	_, aFP0hi := s.uSel.bracket(nn - n0)
	_, bFP1hi := s.uSel.bracket(n1)
	return max(s.ratio(aFPlo, aFNlo), s.ratio(bFPlo, bFNlo)), max(s.ratio(aFP0hi, aFNhi), s.ratio(bFP1hi, bFNhi))
}

// choose is bestRule(pos, neg, s.lb) — the same rule, ties included — computed without
// sorting pos and neg (which it leaves as they are) and without most of the logarithms:
//
//   - ε(FP, FN) = max(0, ln r₁, ln r₂) for the ratios r₁ = (1 − δ − u_FN)/u_FP and
//     r₂ = (1 − δ − u_FP)/u_FN (u the Clopper–Pearson bounds); the ratios fall as either
//     count rises, so the counts of a bucket's first and last scores bound the ratio of
//     every rule inside it, and the counts at a bucket's edges are rules whose ratio some
//     threshold reaches. A bucket whose bound falls short of the best edge's ratio by more
//     than pruneMargin cannot hold the best rule and is neither sorted nor swept (first
//     bounded 32 buckets at a time). When no edge is above ratio 1 (every rule may have
//     ε = 0, and the first one wins), every bucket is swept.
//   - In the sweep, a candidate whose larger ratio is below the best's by more than a
//     relative 10⁻⁹ has a logarithm smaller by 10⁻⁹ — far beyond math.Log's error of an
//     ulp or so — and cannot win; one whose ratios are at most 1 has ε = 0 and cannot beat a
//     best ≥ 0. Only the others compute ε as lb does.
//
// The rule's threshold lies between its score and the neighbouring distinct score (sweep);
// where that neighbour is in a bucket that was not swept, it is found by a scan. When c
// has counted the scores (begin, count) choose uses its buckets; otherwise it makes its own
// over the scores' range.
func (s *powerSim) choose(pos, neg []float64, c *chooser) Rule {
	if !c.counted {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, side := range [][]float64{pos, neg} {
			for _, v := range side {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		c.begin(len(pos), len(neg), lo, hi)
		for _, v := range pos {
			c.startP[c.bucket(v)+1]++
		}
		for _, v := range neg {
			c.startN[c.bucket(v)+1]++
		}
		c.redraw = nil
	}
	c.counted = false
	np, nn := c.np, c.nn
	scores := func() ([]float64, []float64) { // all of them
		if pos == nil {
			pos, neg = c.redraw()
			c.redraws++
		}
		return pos, neg
	}
	nb := c.nb
	startP, startN := c.startP[:nb+1], c.startN[:nb+1]
	for b := range nb {
		startP[b+1] += startP[b]
		startN[b+1] += startN[b]
	}
	if int(startP[nb]) != np || int(startN[nb]) != nn {
		panic(fmt.Sprintf("epsilon: choose on %d and %d scores, %d and %d counted", np, nn, startP[nb], startN[nb]))
	}
	nonempty := func(b0, b1 int) bool { return startP[b1] > startP[b0] || startN[b1] > startN[b0] }
	// bound 32 buckets at a time, then one at a time where the best rule may be
	mark, bound := c.mark[:nb], c.bound[:nb]
	clear(mark)
	const open = 1 + 1e-6 // below this edge ratio every rule may have ε = 0: no pruning
	edge := 0.0
	if nb > 1 {
		for b0 := 0; b0 < nb; b0 += superBucket {
			if b1 := min(b0+superBucket, nb); nonempty(b0, b1) {
				bd, e := s.bounds(c, b0, b1)
				bound[b0], edge = bd, max(edge, e)
			}
		}
		superEdge := edge
		for b0 := 0; b0 < nb; b0 += superBucket {
			b1 := min(b0+superBucket, nb)
			if !nonempty(b0, b1) || superEdge > open && bound[b0] < superEdge*(1-pruneMargin) {
				continue
			}
			for b := b0; b < b1; b++ {
				if mark[b] = nonempty(b, b+1); mark[b] {
					bd, e := s.bounds(c, b, b+1)
					bound[b], edge = bd, max(edge, e)
				}
			}
		}
	} else {
		mark[0] = true
	}
	bmin, bmax := nb, -1
	for b := range nb {
		if mark[b] && (nb == 1 || edge <= open || bound[b] >= edge*(1-pruneMargin)) {
			bmin, bmax = min(bmin, b), b
		} else {
			mark[b] = false
		}
	}
	// the marked buckets' scores, sorted: from the tails kept when they hold every marked
	// bucket (a bucket before bucket(tailL) holds only scores ≤ tailL, bucket is monotone),
	// else from all the scores, where one at or below vlo is in a bucket before bmin and one
	// at or above vhi after bmax, so most need no bucket
	inTails := c.tails
	if inTails {
		bl, br := c.bucket(c.tailL), c.bucket(c.tailR)
		for b := bmin; b <= bmax && inTails; b++ {
			inTails = !mark[b] || b < bl || b > br
		}
	}
	fromP, fromN := c.tp, c.tn
	vlo, vhi := math.Inf(-1), math.Inf(1)
	if !inTails {
		fromP, fromN = scores()
		if nb > 1 {
			if v := c.lo + float64(bmin-1)/c.scale; c.bucket(v) < bmin {
				vlo = v
			}
			if v := c.lo + float64(bmax+2)/c.scale; c.bucket(v) > bmax {
				vhi = v
			}
		}
	}
	pp, pn := c.pp[:0], c.pn[:0]
	for _, v := range fromP {
		if v > vlo && v < vhi && mark[c.bucket(v)] {
			pp = append(pp, v)
		}
	}
	for _, v := range fromN {
		if v > vlo && v < vhi && mark[c.bucket(v)] {
			pn = append(pn, v)
		}
	}
	if c.tails && nb > 1 && edge > open {
		c.learn(mark)
	}
	if len(c.buf) < max(len(pp), len(pn)) {
		c.buf = make([]float64, max(len(pp), len(pn)))
	}
	sortFloats(pp, c.buf)
	sortFloats(pn, c.buf)
	c.pp, c.pn = pp, pn

	var bestR float64 // the best candidate's larger ratio
	bestV := math.Inf(-1)
	consider := func(fp, fn int) bool {
		fpr, fnr := s.uSel.at(fp), s.uSel.at(fn)
		r := s.ratio(fpr, fnr)
		if bestV >= 0 && (r <= 1 || r < bestR*(1-1e-9)) {
			return false
		}
		v := epsFromRates(fpr, fnr, s.delta)
		if v > bestV {
			bestR, bestV = r, v
			return true
		}
		return false
	}
	// sweep's pass over the marked buckets: gi, gj count the scores below t on each side,
	// prev is the distinct score before t, NaN where it lies in a bucket not swept
	best := Rule{Threshold: math.Inf(1), Above: true}
	var bestT, bestNext float64 // the best rule's score, and its neighbour (prev or next)
	found := false
	i, j, gi, gj, cur := 0, 0, 0, 0, -1
	prev := math.Inf(-1)
	for i < len(pp) || j < len(pn) {
		var t float64
		switch {
		case i == len(pp):
			t = pn[j]
		case j == len(pn):
			t = pp[i]
		default:
			t = math.Min(pp[i], pn[j])
		}
		b := c.bucket(t)
		if b != cur {
			if startP[b] != startP[cur+1] || startN[b] != startN[cur+1] {
				prev = math.NaN() // a bucket with scores lies between
			}
			cur, gi, gj = b, int(startP[b]), int(startN[b])
		}
		ie, je := i, j
		for ie < len(pp) && pp[ie] == t {
			ie++
		}
		for je < len(pn) && pn[je] == t {
			je++
		}
		// #{s ≥ t} = n − (scores below t); #{s ≤ t} adds the scores equal to t
		if consider(nn-gj, gi) {
			found, best.Above, bestT, bestNext = true, true, t, prev
		}
		gie, gje := gi+ie-i, gj+je-j
		if consider(gje, np-gie) {
			next := math.NaN()
			switch {
			case ie < len(pp) || je < len(pn):
				var v float64
				switch {
				case ie < len(pp) && je < len(pn):
					v = math.Min(pp[ie], pn[je])
				case ie < len(pp):
					v = pp[ie]
				default:
					v = pn[je]
				}
				if vb := c.bucket(v); vb == b || startP[vb] == startP[b+1] && startN[vb] == startN[b+1] {
					next = v
				}
			case int(startP[b+1]) == np && int(startN[b+1]) == nn:
				next = math.Inf(1)
			}
			found, best.Above, bestT, bestNext = true, false, t, next
		}
		prev = t
		i, j, gi, gj = ie, je, gie, gje
	}
	if !found {
		return best
	}
	if best.Above {
		if math.IsNaN(bestNext) {
			bestNext = c.neighbourOf(bestT, -1, scores)
		}
		best.Threshold = between(bestNext, bestT, bestT)
	} else {
		if math.IsNaN(bestNext) {
			bestNext = c.neighbourOf(bestT, +1, scores)
		}
		best.Threshold = between(bestT, bestNext, bestT)
	}
	return best
}

// neighbour is the distinct score next to t among pos and neg — the largest below it
// (dir < 0, −∞ if none) or the smallest above it (+∞ if none) — as sweep would name it:
// among equal scores (−0 and +0) the least, as math.Min of the sorted heads gives.
func neighbour(pos, neg []float64, t float64, dir int) float64 {
	v := math.Inf(dir)
	for _, side := range [][]float64{pos, neg} {
		for _, x := range side {
			switch {
			case dir < 0 && x < t && x > v, dir > 0 && x > t && x < v:
				v = x
			case x == v:
				v = math.Min(v, x)
			}
		}
	}
	return v
}

// neighbourOf is neighbour among all the scores: among the tails kept where that settles
// it — every score between t and the tails' neighbour is kept — else among all of them.
func (c *chooser) neighbourOf(t float64, dir int, scores func() ([]float64, []float64)) float64 {
	if c.tails {
		v := neighbour(c.tp, c.tn, t, dir)
		// the scores between v and t are all kept when both lie in one tail
		if dir < 0 && (t <= c.tailL || v >= c.tailR) || dir > 0 && (t >= c.tailR || v <= c.tailL) {
			return v
		}
	}
	pos, neg := scores()
	return neighbour(pos, neg, t, dir)
}
