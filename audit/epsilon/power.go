package epsilon

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"
	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"gonum.org/v1/gonum/stat/distuv"
)

// The power of a distinguishing game is stated against a named alternative: the Gaussian
// pair N(μ, 1) against N(0, 1) whose exact ε at the claim's δ is Factor × the claimed ε
// (the Gaussian mechanism's trade-off curve, dp.GaussianExactEpsilon). A game with N trials
// per side "would catch a F× violation with 80 % power" when, played on that pair, it shows
// ε_LB > claim with probability at least 0.8.
//
// The game is the split-threshold game (Game with Split): the rule is chosen on the first
// half of each side and bounded on the other half. Its power is computed as
//
//	P = E_rule[ P(ε_LB(FP, FN) > claim | rule) ],
//
// the inner probability exactly, from the binomial laws of the held-out counts under the
// pair, and the outer expectation by a seeded simulation of the selection half that
// replays the game's own rule choice. The result is deterministic for given inputs and
// carries the simulation's standard error.

// PowerReps is the number of simulated selection halves behind a power estimate.
const PowerReps = 256

// powerSeed roots the planner's simulation; with the replicate's index it fixes every draw,
// so a power statement is reproducible and the same in every report.
const powerSeed = 0x5eed_90e7

// PowerResult is a power estimate.
type PowerResult struct {
	Power  float64 // probability of showing ε_LB > claim
	StdErr float64 // standard error of the simulation over the selection half
	Mu     float64 // the alternative's μ
}

// SplitGamePower is the power of the split-threshold game with the given trials per side
// against the alternative of p (p.Power is not used). It returns ctx's error when ctx is
// done first.
func SplitGamePower(ctx context.Context, trials int, p PowerSpec) (PowerResult, error) {
	if err := p.check(false); err != nil {
		return PowerResult{}, err
	}
	if trials < 4 {
		return PowerResult{}, fmt.Errorf("power: %d trials per side; want at least 4", trials)
	}
	mu, err := gdpMuFor(p.Factor*p.Claim, p.Delta)
	if err != nil {
		return PowerResult{}, err
	}
	pw, se := sharedPowerSim(trials, p).power(ctx, mu)
	if err := ctx.Err(); err != nil {
		return PowerResult{}, err
	}
	return PowerResult{Power: pw, StdErr: se, Mu: mu}, nil
}

// SmallestDetectableFactor is the least factor F (to 1 %) such that the split game with
// the given trials per side catches the F× Gaussian alternative with probability at least
// p.Power; +Inf when no violation of any size can be caught (the claim is above what the
// trials can resolve, MaxCertifiable). p.Factor is not used. It returns ctx's error when
// ctx is done first.
func SmallestDetectableFactor(ctx context.Context, trials int, p PowerSpec) (float64, error) {
	p.Factor = 2 // placeholder for the check
	if err := p.check(true); err != nil {
		return 0, err
	}
	if trials < 4 {
		return 0, fmt.Errorf("power: %d trials per side; want at least 4", trials)
	}
	k := factorKey{simKey{trials: trials, claim: p.Claim, delta: p.Delta, a: 1 - p.Conf}, p.Power}
	r := smallestFactors.get(k, func() (factorResult, bool) {
		f, err := smallestDetectableFactor(ctx, trials, p)
		return factorResult{f, err}, ctx.Err() == nil
	})
	return r.f, r.err
}

// smallestDetectableFactor is SmallestDetectableFactor's search, on checked inputs.
func smallestDetectableFactor(ctx context.Context, trials int, p PowerSpec) (float64, error) {
	if MaxCertifiable(trials, p.Delta, p.Conf, threshold.Split) <= p.Claim {
		return math.Inf(1), nil
	}
	sim := sharedPowerSim(trials, p)
	detects := func(f float64) (bool, error) {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		mu, err := gdpMuFor(f*p.Claim, p.Delta)
		if err != nil {
			return false, err
		}
		return sim.reaches(ctx, mu, p.Power), nil
	}
	lo, hi := 1.0, 2.0
	for {
		ok, err := detects(hi)
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if err != nil {
			return math.Inf(1), nil // past any Gaussian pair the planner can build
		}
		if ok {
			break
		}
		lo, hi = hi, 2*hi
		if hi > 1024 {
			return math.Inf(1), nil
		}
	}
	f, err := dp.Bisect(lo, hi, func(lo, hi float64) float64 { return math.Sqrt(lo * hi) },
		func(lo, hi float64) bool { return hi/lo <= 1.01 }, detects)
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return f, err
}

func (p PowerSpec) check(needPower bool) error {
	if !(p.Claim > 0) || !(p.Factor > 1) || !(p.Delta > 0 && p.Delta < 1) || !(p.Conf > 0 && p.Conf < 1) ||
		(needPower && !(p.Power > 0 && p.Power < 1)) {
		return fmt.Errorf("power: claim %v, factor %v, power %v, δ %v, confidence %v; want ε > 0, factor > 1, and power, δ, confidence in (0, 1)",
			p.Claim, p.Factor, p.Power, p.Delta, p.Conf)
	}
	return nil
}

// powerSim holds what a power computation at one trial count reuses: the Clopper–Pearson
// bounds of both halves, each computed when first needed.
type powerSim struct {
	trials, sel, eval int
	claim, delta, a   float64
	uSel              *cpTable   // CPUpper(k, sel, SelectionLevel(sel)/2) for k = 0..sel: the choice's
	uEval             *cpTable   // CPUpper(k, eval, a/2) for k = 0..eval: the held-out bound's
	draws             *drawCache // the search's record of its draws, or nil
	// progress, if set, is told how many replicates a call of replicates has finished, from
	// its workers (so concurrently)
	progress func(done int)
}

// newPowerSim makes the simulation of a count; its bounds are computed as the replicates
// ask for them.
func newPowerSim(trials int, p PowerSpec) *powerSim {
	s := &powerSim{trials: trials, sel: trials / 2, eval: trials - trials/2, claim: p.Claim, delta: p.Delta, a: 1 - p.Conf}
	s.uSel = newCPTable(s.sel, SelectionLevel(s.sel)/2)
	s.uEval = newCPTable(s.eval, s.a/2)
	return s
}

// power is the game's power against N(μ, 1) vs N(0, 1) and its standard error.
func (s *powerSim) power(ctx context.Context, mu float64) (float64, float64) {
	return s.powerReps(ctx, mu, PowerReps)
}

// powerReps estimates the power from the first reps replicates. When ctx is done the
// replicates left are skipped (the estimate is then meaningless).
func (s *powerSim) powerReps(ctx context.Context, mu float64, reps int) (float64, float64) {
	per := make([]float64, reps)
	s.replicates(ctx, mu, per, 0)
	return meanStdErr(per)
}

// meanStdErr is the power estimate of per-replicate powers and its standard error, summed
// in the replicates' order so that the result does not depend on the cores.
func meanStdErr(per []float64) (float64, float64) {
	reps := len(per)
	var sum, sum2 float64
	for _, pw := range per {
		sum += pw
		sum2 += pw * pw
	}
	m := sum / float64(reps)
	v := math.Max(0, sum2/float64(reps)-m*m)
	return m, math.Sqrt(v / float64(reps-1))
}

// replicates sets per[rep] to replicate rep's power for rep = from..len(per)−1, in
// parallel; each replicate's value depends on its index alone (not on the cores, nor on
// which replicates run beside it, nor on where its draws resume), so a longer estimate
// can extend a shorter one.
func (s *powerSim) replicates(ctx context.Context, mu float64, per []float64, from int) {
	reps := len(per)
	d := s.draws
	if d != nil && d.mu != mu {
		d = nil // recorded for another alternative
	}
	learnL, learnR := math.Inf(-1), math.Inf(1)
	clock := 0
	if d != nil {
		d.grow(reps)
		d.clock++
		clock, learnL, learnR = d.clock, d.learnL, d.learnR
	}
	// the counts of a replicate's selection half at μ, shared with the other simulations of
	// its size (a search keeps its own draws)
	var shared *countedReps
	if s.draws == nil {
		shared = countedAt(s.sel, mu)
	}
	workers := min(reps-from, runtime.GOMAXPROCS(0))
	learned := make([][2]float64, workers)
	var finished atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var pos, neg []float64 // drawn only when choose asks for every score
			c := chooser{buckets: simBuckets, learnL: learnL, learnR: learnR, center: mu / 2}
			for rep := from + w; rep < reps; rep += workers {
				if ctx.Err() != nil {
					return
				}
				// replicate rep draws the same sequence at every μ and every trial count, so
				// power is smooth in both (common random numbers) and searches are stable:
				// rand.NewPCG(powerSeed, rep)'s normals
				seed := uint64(rep)
				c.redraw = func() ([]float64, []float64) {
					if pos == nil {
						pos, neg = make([]float64, s.sel), make([]float64, s.sel)
					}
					g := newNormals(powerSeed, seed)
					g.fill(pos, neg, mu)
					return pos, neg
				}
				// the buckets span ±5 around both means; scores beyond fall in the end ones
				c.begin(s.sel, s.sel, min(0, mu)-5, max(0, mu)+5)
				var g normals
				drawn := 0
				// go on from a checkpoint whose tails hold those learned since (else its
				// tails, kept as they were, would miss where the best rules now lie)
				if ck := d.from(rep, s.sel, clock); ck != nil && ck.tailL >= c.learnL && ck.tailR <= c.learnR {
					g, drawn = d.resume(ck, &c), ck.sel
					g.count(mu, &c, s.sel-drawn)
				} else {
					shared.load(rep, &c, func() {
						g = newNormals(powerSeed, seed)
						c.tailL, c.tailR, c.tp, c.tn = c.learnL, c.learnR, c.tp[:0], c.tn[:0]
						g.count(mu, &c, s.sel)
					})
				}
				d.save(rep, s.sel, g, &c, clock)
				rule := s.choose(nil, nil, &c) // the game's own choice on the selection half
				var tpr, fpr float64
				if rule.Above {
					tpr, fpr = 1-distuv.UnitNormal.CDF(rule.Threshold-mu), 1-distuv.UnitNormal.CDF(rule.Threshold)
				} else {
					tpr, fpr = distuv.UnitNormal.CDF(rule.Threshold-mu), distuv.UnitNormal.CDF(rule.Threshold)
				}
				per[rep] = s.evalPower(tpr, fpr)
				if s.progress != nil {
					s.progress(int(finished.Add(1)))
				}
			}
			learned[w] = [2]float64{c.learnL, c.learnR}
		})
	}
	wg.Wait()
	if d != nil {
		for _, l := range learned {
			d.learnL, d.learnR = max(d.learnL, l[0]), min(d.learnR, l[1])
		}
	}
}

// evalPower is P(ε_LB > claim) on the held-out half for a rule with the given true rates:
// FN ~ Bin(n, 1 − tpr) and FP ~ Bin(n, fpr), independent. ε_LB decreases in both counts, so
// the region where it exceeds the claim is {FP ≤ m(FN)} with m non-increasing. The
// binomial probabilities are those of binomialRange, computed only where the sum reaches:
// it stops where ε_LB no longer exceeds the claim at FP = 0, or where m falls below the
// FP window (every term after is exactly 0).
func (s *powerSim) evalPower(tpr, fpr float64) float64 {
	n := s.eval
	fnLo, fnHi, fnProb := binomialRange(n, 1-tpr)
	fpLo, fpHi, fpProb := binomialRange(n, fpr)
	var fpCDF []float64 // Σ P(FP = j) for j = fpLo..fpLo+i, as far as asked
	cdfFP := func(k int) float64 {
		switch {
		case k < fpLo:
			return 0
		case k > fpHi:
			return 1
		}
		for j := fpLo + len(fpCDF); j <= k; j++ {
			acc := 0.0
			if len(fpCDF) > 0 {
				acc = fpCDF[len(fpCDF)-1]
			}
			fpCDF = append(fpCDF, acc+fpProb(j))
		}
		return fpCDF[k-fpLo]
	}
	// ε > claim ⟺ ln r > claim for the larger ratio r (ratio): decided without the
	// logarithms where r is off e^claim by more than 10⁻⁹, far beyond their error
	ec := fexp.Exp(s.claim)
	exceeds := func(fp, fn int) bool {
		fpr, fnr := s.uEval.at(fp), s.uEval.at(fn)
		switch r := s.ratio(fpr, fnr); {
		case r > ec*(1+1e-9):
			return true
		case r < ec*(1-1e-9):
			return false
		}
		return epsFromRates(fpr, fnr, s.delta) > s.claim
	}
	total := 0.0
	hi := n // m(fn) ≤ hi, found by bisection and then only lowered
	for fn := fnLo; fn <= fnHi && hi >= fpLo; fn++ {
		if !exceeds(0, fn) {
			break // m(fn) < 0 here and beyond
		}
		lo := 0
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if exceeds(mid, fn) {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		total += fnProb(fn) * cdfFP(lo)
	}
	return math.Min(1, total)
}

// lb is the selection half's ε lower bound for a rule's counts (the game's criterion).
func (s *powerSim) lb(c Counts) float64 {
	return epsFromRates(s.uSel.at(c.FP), s.uSel.at(c.Pos-c.TP), s.delta)
}

// ratio is max(r₁, r₂) of choose (0 where neither numerator is positive), of the bounds
// fpr and fnr.
func (s *powerSim) ratio(fpr, fnr float64) float64 {
	r := 0.0
	if num := 1 - s.delta - fnr; num > 0 {
		r = num / fpr
	}
	if num := 1 - s.delta - fpr; num > 0 {
		r = max(r, num/fnr)
	}
	return r
}

// binomialRange is the window of counts of Bin(n, p) that holds all but about 1e-30 of its
// mass, lo to hi, and the probability of a count in it.
func binomialRange(n int, p float64) (lo, hi int, prob func(k int) float64) {
	switch {
	case p <= 0:
		return 0, 0, func(int) float64 { return 1 }
	case p >= 1:
		return n, n, func(int) float64 { return 1 }
	}
	mean, sd := float64(n)*p, math.Sqrt(float64(n)*p*(1-p))
	lo = max(0, int(math.Floor(mean-12*sd))-2)
	hi = min(n, int(math.Ceil(mean+12*sd))+2)
	b := distuv.Binomial{N: float64(n), P: p}
	return lo, hi, func(k int) float64 { return fexp.Exp(b.LogProb(float64(k))) }
}

// sweep offers every rule on the sorted samples pos and neg to better — every distinct
// score in ascending order, "above" before "below", by one merged pass instead of two
// binary searches per candidate; better reports whether the rule beats every rule offered
// before it, and the last such rule is returned (none: the threshold +∞, above).
//
// The counts are those of the partition at each distinct score, but the threshold is put
// between scores, not on them (spec estimators-and-attacks §(g)): "above" at score t
// becomes the midpoint of t and the distinct score before it (−∞ for the first), "below"
// at t the midpoint of t and the one after it (+∞ for the last). On the samples seen the
// rule flags exactly the same scores; on held-out scores it no longer sides with whichever
// sample happened to hold the boundary value, which misclassified held-out points of
// perfectly separable pairs.
func sweep(pos, neg []float64, better func(Counts) bool) Rule {
	np, nn := len(pos), len(neg)
	best := Rule{Threshold: math.Inf(1), Above: true}
	prev := math.Inf(-1) // the distinct score before t
	i, j := 0, 0         // pos[:i] and neg[:j] are below the current threshold t
	for i < np || j < nn {
		var t float64
		switch {
		case i == np:
			t = neg[j]
		case j == nn:
			t = pos[i]
		default:
			t = math.Min(pos[i], neg[j])
		}
		// #{s ≥ t} = n − (values below t); #{s ≤ t} adds the values equal to t
		ie, je := i, j
		for ie < np && pos[ie] == t {
			ie++
		}
		for je < nn && neg[je] == t {
			je++
		}
		if better(Counts{TP: np - i, Pos: np, FP: nn - j, Neg: nn}) {
			best = Rule{Threshold: between(prev, t, t), Above: true}
		}
		if better(Counts{TP: ie, Pos: np, FP: je, Neg: nn}) {
			next := math.Inf(1)
			switch {
			case ie < np && je < nn:
				next = math.Min(pos[ie], neg[je])
			case ie < np:
				next = pos[ie]
			case je < nn:
				next = neg[je]
			}
			best = Rule{Threshold: between(t, next, t), Above: false}
		}
		prev = t
		i, j = ie, je
	}
	return best
}

// between is a threshold between scores lo < hi: their midpoint, computed without
// overflow; −∞ when lo is, +∞ when hi is. Where lo and hi are adjacent floats no value
// lies strictly between them and it is the score the rule was counted at (on), whose
// "≥" or "≤" parts the scores as the sweep counted them.
func between(lo, hi, on float64) float64 {
	switch {
	case math.IsInf(lo, -1):
		return lo
	case math.IsInf(hi, 1):
		return hi
	}
	m := lo/2 + hi/2
	if m <= lo || m >= hi {
		return on
	}
	return m
}
