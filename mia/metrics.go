package mia

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/unlearnaudit/unlearnaudit/internal/floatsort"
	"github.com/unlearnaudit/unlearnaudit/internal/normal"
	"github.com/unlearnaudit/unlearnaudit/internal/scratch"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/stat/distuv"
)

// merged is the pooled scores of positives (members) and negatives in ascending order,
// with ties grouped, so that every metric is one pass and a bootstrap replicate only
// reweights the samples.
type merged struct {
	values []float64 // distinct scores, ascending
	pos    []int     // index of each positive's score in values
	neg    []int
}

func merge(pos, neg []float64) merged {
	if n := len(pos) + len(neg); n >= 1<<12 && int64(n) < 1<<31 && !slices.ContainsFunc(pos, math.IsNaN) && !slices.ContainsFunc(neg, math.IsNaN) {
		return mergeRadix(pos, neg)
	}
	return mergeSort(pos, neg)
}

// mergeSort is merge by a sort and a binary search per sample.
func mergeSort(pos, neg []float64) merged {
	vals := slices.Concat(pos, neg)
	slices.Sort(vals)
	vals = slices.Compact(vals)
	idx := func(s []float64) []int {
		out := make([]int, len(s))
		for i, v := range s {
			out[i] = sort.SearchFloat64s(vals, v)
		}
		return out
	}
	return merged{values: vals, pos: idx(pos), neg: idx(neg)}
}

// mergeRadix is merge for many scores, none NaN: the samples sorted once by a radix sort
// of their scores' bits (with their indices), in place of a sort and a binary search per
// sample. The groups are the same — equal scores, −0 with +0 — and so are the indices.
func mergeRadix(pos, neg []float64) merged {
	n := len(pos) + len(neg)
	keys, idx := keyArrays.Get(n), indexArrays.Get(n)
	defer keyArrays.Put(keys)
	defer indexArrays.Put(idx)
	for i, v := range pos {
		keys[i], idx[i] = orderedBits(v), int32(i)
	}
	for i, v := range neg {
		keys[len(pos)+i], idx[len(pos)+i] = orderedBits(v), int32(len(pos)+i)
	}
	floatsort.SortKeys(keys, idx)
	m := merged{values: make([]float64, 0, n), pos: make([]int, len(pos)), neg: make([]int, len(neg))}
	j := -1
	for k, key := range keys {
		if k == 0 || key != keys[k-1] {
			j++
			m.values = append(m.values, floatsort.FromKey(key))
		}
		if i := int(idx[k]); i < len(pos) {
			m.pos[i] = j
		} else {
			m.neg[i-len(pos)] = j
		}
	}
	return m
}

// keyArrays and indexArrays keep mergeRadix's working arrays between merges: an audit's
// membership check merges again for each record, and new arrays would be that many new
// pages to fault in each time.
var (
	keyArrays   scratch.Pool[uint64]
	indexArrays scratch.Pool[int32]
)

// orderedBits maps a score to a key whose unsigned order is the scores' order, −0 and +0
// to one key (they are equal scores).
func orderedBits(v float64) uint64 {
	if v == 0 {
		v = 0
	}
	return floatsort.Key(v)
}

// drawCounts sets counts[i] to how many of len(counts) draws rand.New(src).IntN(len(counts))
// are i, modulo 2⁸: a count that wrapped has its 2⁸'s in over (nil when none did, which is
// every time in practice: a count is about Poisson(1)). A byte a sample keeps each side's
// counts in L2 up to about a million samples (10⁶ trials, δ = 10⁻⁶'s 651 823 among them):
// in uint16 they outgrew it there, and a record's bootstrap took a sixth longer.
func drawCounts(src *rand.PCG, counts []uint8) (over map[int]float64) {
	clear(counts)
	n := len(counts)
	if bits.UintSize != 64 { // the loop below is the 64-bit platforms' IntN
		r := rand.New(src)
		for range n {
			over = countDraw(counts, r.IntN(n), over)
		}
		return over
	}
	// the source's state in registers, written back at the end: the bootstrap draws 10⁸ of
	// them, and the state's round trips through memory were a third of a draw. Two chains
	// of states a step apart (a, then b, each advanced two steps at once) give the outputs
	// in rand.PCG's order with their multiply-adds side by side, a quarter faster than one.
	if n == 0 {
		return nil
	}
	hi, lo := normal.FromPCG(src).State()
	un := uint64(n)
	pow2 := un&(un-1) == 0
	_, aH, aL := normal.Step(hi, lo)
	_, bH, bL := normal.Step(aH, aL)
	for k := 0; ; {
		// a's output is the next draw (rand.IntN by hand: the compiler does not inline it)
		i, l := intNOf(normal.Out(aH, aL), un, pow2)
		// rejected (at these n about once in 2⁶⁴/n draws, so no test reaches this branch;
		// TestIntNIsRandIntN covers intNReject): go on one step at a time from a, then
		// restart both chains from where it stopped
		if l < un && l < -un%un {
			i, hi, lo = intNReject(i, l, aH, aL, un)
			over = countDraw(counts, int(i), over)
			if k++; k == n {
				break
			}
			_, aH, aL = normal.Step(hi, lo)
			_, bH, bL = normal.Step(aH, aL)
			continue
		}
		over = countDraw(counts, int(i), over)
		if k++; k == n {
			hi, lo = aH, aL
			break
		}
		// then b's: the same steps as a's, written out again so that both chains' states
		// stay in plain local variables
		i, l = intNOf(normal.Out(bH, bL), un, pow2)
		if l < un && l < -un%un {
			i, hi, lo = intNReject(i, l, bH, bL, un)
			over = countDraw(counts, int(i), over)
			if k++; k == n {
				break
			}
			_, aH, aL = normal.Step(hi, lo)
			_, bH, bL = normal.Step(aH, aL)
			continue
		}
		over = countDraw(counts, int(i), over)
		if k++; k == n {
			hi, lo = bH, bL
			break
		}
		aH, aL = normal.Skip2(aH, aL)
		bH, bL = normal.Skip2(bH, bL)
	}
	src.Seed(hi, lo)
	return over
}

// intNOf is rand.Rand.IntN(n)'s first try on the output x, on 64-bit platforms: the index
// and the low half of x·n (the index is rejected when that is below 2⁶⁴ mod n); a power
// of two takes x's low bits and is never rejected.
func intNOf(x, n uint64, pow2 bool) (i, l uint64) {
	if pow2 {
		return x & (n - 1), n
	}
	return bits.Mul64(x, n)
}

// intNReject is rand.Rand.IntN(n)'s rejection on 64-bit platforms (math/rand/v2's uint64n,
// Lemire's multiply-and-reject; Copyright 2009 The Go Authors, BSD-style license, the Go
// distribution's LICENSE file), from the state (hi, lo) after a draw whose product with n,
// (h, l), has l < n: the index and the state after the draws it took.
func intNReject(h, l, hi, lo, n uint64) (i, nhi, nlo uint64) {
	thresh := -n % n
	for l < thresh {
		var x uint64
		x, hi, lo = normal.Step(hi, lo)
		h, l = bits.Mul64(x, n)
	}
	return h, hi, lo
}

// countDraw counts a draw of i, its wraps in over.
func countDraw(counts []uint8, i int, over map[int]float64) map[int]float64 {
	if counts[i]++; counts[i] == 0 {
		over = wrapped(over, i)
	}
	return over
}

// wrapped records in over that i's count wrapped (off countDraw's path, which inlines).
//
//go:noinline
func wrapped(over map[int]float64, i int) map[int]float64 {
	if over == nil {
		over = map[int]float64{}
	}
	over[i] += 1 << 8
	return over
}

// grouped lists one side's samples in score order: sample order[k] has score at[k], at
// non-decreasing (an index into values).
type grouped struct {
	order, at []int32
}

// byValue groups a side's samples (their indices into values, idx) by score.
func (m merged) byValue(idx []int) grouped {
	g := grouped{order: make([]int32, len(idx)), at: make([]int32, len(idx))}
	next := make([]int32, len(m.values)+1) // a counting sort: samples before score j
	for _, j := range idx {
		next[j+1]++
	}
	for j := range m.values {
		next[j+1] += next[j]
	}
	for i, j := range idx {
		g.order[next[j]], g.at[next[j]] = int32(i), int32(j)
		next[j]++
	}
	return g
}

// sum sets w[j] to the counts of the samples at score j: integers, exact in any order.
func (g grouped) sum(w []float64, counts []uint8) {
	clear(w)
	for k, i := range g.order {
		w[g.at[k]] += float64(counts[i])
	}
}

// weighted holds per-distinct-score counts of positives and negatives.
type weighted struct {
	p, n       []float64
	totP, totN float64
}

func (m merged) counts() weighted {
	w := weighted{p: make([]float64, len(m.values)), n: make([]float64, len(m.values))}
	for _, j := range m.pos {
		w.p[j]++
	}
	for _, j := range m.neg {
		w.n[j]++
	}
	w.totP, w.totN = float64(len(m.pos)), float64(len(m.neg))
	return w
}

// auc is P(score_pos > score_neg) + ½P(tie): the Mann–Whitney statistic.
func (w weighted) auc() float64 {
	var below, s float64
	for j := range w.p {
		s += w.p[j] * (below + w.n[j]/2)
		below += w.n[j]
	}
	return s / (w.totP * w.totN)
}

// sweep calls f(tpr, fpr) for the rule "score ≥ t" at every distinct threshold, from the
// highest threshold (flag nothing) down to the lowest (flag everything).
func (w weighted) sweep(f func(tpr, fpr float64)) {
	f(0, 0)
	var tp, fp float64
	for j := len(w.p) - 1; j >= 0; j-- {
		tp += w.p[j]
		fp += w.n[j]
		f(tp/w.totP, fp/w.totN)
	}
}

func (w weighted) tprAt(level float64) float64 {
	best := 0.0
	w.sweep(func(tpr, fpr float64) {
		if fpr <= level {
			best = math.Max(best, tpr)
		}
	})
	return best
}

// thresholdMetrics are tprAt(0.001), tprAt(0.01), tprAt(0.1) and balanced() from one
// sweep instead of four (the same rates, so the same values).
func (w weighted) thresholdMetrics() (t1, t2, t3, bal float64) {
	bal = 0.5
	w.sweep(func(tpr, fpr float64) {
		if fpr <= 0.001 {
			t1 = math.Max(t1, tpr)
		}
		if fpr <= 0.01 {
			t2 = math.Max(t2, tpr)
		}
		if fpr <= 0.1 {
			t3 = math.Max(t3, tpr)
		}
		bal = math.Max(bal, (tpr+1-fpr)/2)
	})
	return t1, t2, t3, bal
}

func (w weighted) balanced() float64 {
	best := 0.5
	w.sweep(func(tpr, fpr float64) { best = math.Max(best, (tpr+1-fpr)/2) })
	return best
}

// ROC is a receiver operating characteristic: the rule "score ≥ t" at every distinct
// threshold, from flagging nothing to flagging everything.
type ROC struct{ FPR, TPR []float64 }

// ROCCurve computes the ROC of member scores pos against non-member scores neg (larger
// scores mean "member").
func ROCCurve(pos, neg []float64) ROC {
	var r ROC
	merge(pos, neg).counts().sweep(func(tpr, fpr float64) {
		r.TPR = append(r.TPR, tpr)
		r.FPR = append(r.FPR, fpr)
	})
	return r
}

// AUC is the area under the ROC curve (ties count half).
func AUC(pos, neg []float64) float64 { return merge(pos, neg).counts().auc() }

// TPRAtFPR is the largest true-positive rate of a threshold rule whose false-positive
// rate is at most level.
func TPRAtFPR(pos, neg []float64, level float64) float64 {
	return merge(pos, neg).counts().tprAt(level)
}

// BalancedAccuracy is the best (TPR + TNR)/2 over thresholds; 0.5 is chance.
func BalancedAccuracy(pos, neg []float64) float64 {
	return merge(pos, neg).counts().balanced()
}

// Metric is a point value with a bootstrap interval (an estimate, not a bound).
type Metric struct {
	Value    float64 `json:"value"`
	Lower    float64 `json:"lower"`
	Upper    float64 `json:"upper"`
	Replicas int     `json:"replicas"`
}

// Metrics summarise an attack.
type Metrics struct {
	AUC              Metric `json:"auc"`
	TPRAt0_1Percent  Metric `json:"tpr_at_fpr_0.001"`
	TPRAt1Percent    Metric `json:"tpr_at_fpr_0.01"`
	TPRAt10Percent   Metric `json:"tpr_at_fpr_0.1"`
	BalancedAccuracy Metric `json:"balanced_accuracy"`
}

// Evaluate computes every metric of member scores pos against non-member scores neg, with
// percentile bootstrap intervals at level conf from reps replicates that resample the
// members and the non-members separately (seeded). The scores are sorted once; a
// replicate reweights them, so it costs one pass, not a sort.
func Evaluate(pos, neg []float64, reps int, conf float64, seed uint64) (Metrics, error) {
	out, err := evaluate(pos, neg, reps, conf, seed, true, nil)
	if err != nil {
		return Metrics{}, err
	}
	return Metrics{AUC: out[0], TPRAt0_1Percent: out[1], TPRAt1Percent: out[2], TPRAt10Percent: out[3], BalancedAccuracy: out[4]}, nil
}

// EvaluateAUC is Evaluate's AUC alone — the same value and interval, from the same
// replicates — without the threshold metrics' passes.
func EvaluateAUC(pos, neg []float64, reps int, conf float64, seed uint64) (Metric, error) {
	out, err := evaluate(pos, neg, reps, conf, seed, false, nil)
	if err != nil {
		return Metric{}, err
	}
	return out[0], nil
}

// evaluate is Evaluate's metrics in its order (AUC, TPR at 0.1 %, 1 %, 10 %, balanced
// accuracy), the threshold ones only when all is set; the AUC alone shares its resamples
// through shared (nil: none).
func evaluate(pos, neg []float64, reps int, conf float64, seed uint64, all bool, shared *Resamples) ([]Metric, error) {
	if len(pos) == 0 || len(neg) == 0 {
		return nil, fmt.Errorf("evaluate attack: %d member and %d non-member scores", len(pos), len(neg))
	}
	if reps < 2 || !(conf > 0 && conf < 1) {
		return nil, fmt.Errorf("evaluate attack: %d replicates at confidence %v", reps, conf)
	}
	if i := slices.IndexFunc(pos, math.IsNaN); i >= 0 {
		return nil, fmt.Errorf("evaluate attack: member score %d is NaN", i)
	}
	if i := slices.IndexFunc(neg, math.IsNaN); i >= 0 {
		return nil, fmt.Errorf("evaluate attack: non-member score %d is NaN", i)
	}
	nstats := 1
	if all {
		nstats = 5
	}
	m := merge(pos, neg)
	stats := func(w weighted, s []float64) {
		s[0] = w.auc()
		if all {
			s[1], s[2], s[3], s[4] = w.thresholdMetrics()
		}
	}
	counts := make([]uint8, len(pos)+len(neg)) // the members' then the non-members'
	cp, cn := counts[:len(pos)], counts[len(pos):]
	var pairs *pairCounts // the AUC alone, in integers
	if !all && 2*float64(len(pos))*float64(len(neg)) < 1<<53 {
		pairs = m.pairCounts(len(pos))
	}
	point := make([]float64, nstats)
	if pairs != nil { // every sample once: weighted.auc of the samples' own counts
		for i := range counts {
			counts[i] = 1
		}
		point[0] = pairs.auc(counts, float64(len(pos)), float64(len(neg)))
	} else {
		stats(m.counts(), point)
	}
	src := reference.Streams{Seed: seed, Trial: -1}.Source("mia/bootstrap") // reference.Stream's source
	var buf weighted                                                        // a replicate's, its counts set by sum (made when first needed)
	rep := make([][]float64, nstats)
	for i := range rep {
		rep[i] = make([]float64, reps)
	}
	s := make([]float64, nstats)
	var byP, byN grouped
	// the resamples, drawn here or by another evaluation (shared)
	var set *resampleSet
	var fill, filled bool
	if pairs != nil {
		set, fill = shared.take(resampleKey{seed: seed, np: len(pos), nn: len(neg), reps: reps})
	}
	if fill {
		defer func() { set.done(filled) }() // given up if this evaluation panics
	}
	for b := range reps {
		// a replicate's weights are counts of draws, integers, whose sums are exact in any
		// order: each sample's draws are counted in a small array (a draw lands anywhere,
		// and this one stays in cache), then summed per distinct score in score order
		var overP, overN map[int]float64
		switch {
		case set != nil && !fill && set.big[b] == nil:
			rep[0][b] = pairs.aucNibbles(set.nib[b*set.stride:(b+1)*set.stride], float64(len(pos)), float64(len(neg)))
			continue
		case set != nil && !fill:
			overP, overN = set.get(b, counts, len(pos))
		default:
			overP, overN = drawCounts(src, cp), drawCounts(src, cn) // the members' draws first
			if fill {
				set.put(b, counts, overP, overN, len(pos))
			}
		}
		if pairs != nil && overP == nil && overN == nil {
			rep[0][b] = pairs.auc(counts, float64(len(pos)), float64(len(neg)))
			continue
		}
		if byP.order == nil {
			byP, byN = m.byValue(m.pos), m.byValue(m.neg)
			buf = weighted{p: make([]float64, len(m.values)), n: make([]float64, len(m.values)), totP: float64(len(pos)), totN: float64(len(neg))}
		}
		byP.sum(buf.p, cp)
		byN.sum(buf.n, cn)
		for i, c := range overP { // integers below 2⁵³: exact in any order
			buf.p[m.pos[i]] += c
		}
		for i, c := range overN {
			buf.n[m.neg[i]] += c
		}
		stats(buf, s)
		for i := range s {
			rep[i][b] = s[i]
		}
	}
	filled = true
	a := 1 - conf
	out := make([]Metric, nstats)
	for i := range out {
		slices.Sort(rep[i])
		out[i] = Metric{Value: point[i], Lower: quantile(rep[i], a/2), Upper: quantile(rep[i], 1-a/2), Replicas: reps}
	}
	return out, nil
}

// pairCounts computes a replicate's AUC (weighted.auc) from the draws' counts in score
// order. weighted.auc's sum is exact: its terms are integers and halves, and its partial
// sums at most 2·P·N halves, below 2⁵³ (evaluate checks), so it is
// ½·Σ_j p_j·(2·below_j + n_j) computed in integers, the same bits. With the members of a
// score before its non-members, a member's count times the non-members' counted so far
// is its p_j·below_j, which leaves Σ_j p_j·n_j over the scores both sides hold (ties).
//
// The counts are gathered into score order by a pass that does nothing else, and then
// summed in sequence: a processor keeps more of a short loop's random reads in flight,
// and past L2 (a few hundred thousand samples a side) one pass doing both took longer.
type pairCounts struct {
	order  []uint32 // the samples in score order, as indices into counts
	neg    []uint64 // bit k%64 of neg[k/64]: order[k] is a non-member
	scored []uint8  // a replicate's counts in score order
	ties   [][3]int32
}

// pairCounts lays the samples out for pairCounts.auc: members' indices 0..np−1, non-members'
// np onwards (as in the counts array), and the ranges [a, mid) of members and [mid, b) of
// non-members that share a score.
func (m merged) pairCounts(np int) *pairCounts {
	nv, n := len(m.values), len(m.pos)+len(m.neg)
	start := make([]int32, nv+1) // where score j's samples start
	perP := make([]int32, nv)
	for _, j := range m.pos {
		start[j+1]++
		perP[j]++
	}
	for _, j := range m.neg {
		start[j+1]++
	}
	for j := range nv {
		start[j+1] += start[j]
	}
	pc := &pairCounts{order: make([]uint32, n), neg: make([]uint64, (n+63)/64), scored: make([]uint8, n)}
	next := slices.Clone(start[:nv])
	for i, j := range m.pos {
		pc.order[next[j]] = uint32(i)
		next[j]++
	}
	for i, j := range m.neg {
		k := next[j]
		pc.order[k] = uint32(np + i)
		pc.neg[k/64] |= 1 << (k % 64)
		next[j]++
	}
	for j := range nv {
		if mid := start[j] + perP[j]; perP[j] > 0 && mid < start[j+1] {
			pc.ties = append(pc.ties, [3]int32{start[j], mid, start[j+1]})
		}
	}
	return pc
}

// auc is weighted.auc of the replicate whose draws counts holds, totP and totN draws.
func (pc *pairCounts) auc(counts []uint8, totP, totN float64) float64 {
	scored := pc.scored[:len(pc.order)]
	for k, e := range pc.order {
		scored[k] = counts[e]
	}
	return pc.sum(totP, totN)
}

// aucNibbles is auc of a replicate whose counts are nibbles (resampleSet), none 15.
func (pc *pairCounts) aucNibbles(nib []byte, totP, totN float64) float64 {
	scored := pc.scored[:len(pc.order)]
	for k, e := range pc.order {
		scored[k] = nib[e/2] >> (4 * (e % 2)) & 15
	}
	return pc.sum(totP, totN)
}

// sum is the AUC of the counts in pc.scored.
func (pc *pairCounts) sum(totP, totN float64) float64 {
	scored := pc.scored[:len(pc.order)]
	var below, sum int64 // Σ_j p_j·below_j
	for w, flags := range pc.neg {
		for _, c := range scored[w*64 : min(len(scored), w*64+64)] {
			v := int64(c)
			p := v &^ -int64(flags&1) // v for a member, 0 for a non-member
			sum += p * below
			below += v - p
			flags >>= 1
		}
	}
	sum *= 2
	for _, t := range pc.ties {
		var p, n int64
		for _, c := range scored[t[0]:t[1]] {
			p += int64(c)
		}
		for _, c := range scored[t[1]:t[2]] {
			n += int64(c)
		}
		sum += p * n
	}
	return float64(sum) / 2 / (totP * totN)
}

// quantile is the p-quantile of sorted, interpolated linearly between its neighbours. Every
// product is rounded before it is added (the float64 conversions: Go may otherwise fuse
// them, as arm64 and amd64 from v3 do, and where it fused depended on where quantile was
// inlined, so two callers disagreed in the last bits), so it gives the same bits on every
// build.
func quantile(sorted []float64, p float64) float64 {
	h := float64(p * float64(len(sorted)-1))
	i := int(math.Floor(h))
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + float64((h-float64(i))*(sorted[i+1]-sorted[i]))
}

// PairedAUCExcess is AUC(a) − AUC(b) for two attacks on the same records (each a
// [positives, negatives] pair of scores), with a percentile bootstrap interval at conf
// that resamples the records once for both attacks, since their scores are paired; r
// draws the resamples.
func PairedAUCExcess(a, b [2][]float64, reps int, conf float64, r *rand.Rand) (point, lo, hi float64) {
	point = AUC(a[0], a[1]) - AUC(b[0], b[1])
	diffs := make([]float64, reps)
	np, nn := len(a[0]), len(a[1])
	ap, an, bp, bn := make([]float64, np), make([]float64, nn), make([]float64, np), make([]float64, nn)
	for i := range reps {
		for k := range np {
			j := r.IntN(np)
			ap[k], bp[k] = a[0][j], b[0][j]
		}
		for k := range nn {
			j := r.IntN(nn)
			an[k], bn[k] = a[1][j], b[1][j]
		}
		diffs[i] = AUC(ap, an) - AUC(bp, bn)
	}
	slices.Sort(diffs)
	alpha := 1 - conf
	q := func(f float64) float64 { return diffs[min(reps-1, int(math.Floor(f*float64(reps))))] }
	return point, q(alpha / 2), q(1 - alpha/2)
}

// DetectableAUCExcess is the smallest excess of one AUC over another that a one-sided
// z-test at level (1 − conf)/2 detects with 80 % power, with pos and neg records:
// Hanley–McNeil's variance at AUC ½, (1/12)(1/pos + 1/neg), for each of two independent
// AUCs (conservative for paired scores). Divided by √2 it is the excess of one AUC over ½.
func DetectableAUCExcess(pos, neg int, conf float64) float64 {
	se := math.Sqrt(2 * (1.0 / 12) * (1/float64(pos) + 1/float64(neg)))
	return (distuv.UnitNormal.Quantile(1-(1-conf)/2) + distuv.UnitNormal.Quantile(0.8)) * se
}
