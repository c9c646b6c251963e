package epsilon

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"
	"github.com/unlearnaudit/unlearnaudit/internal/steps"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
)

// MaxCertifiable is the resolution limit of a distinguishing game with the given number
// of trials per side: the largest ε lower bound any rule could show, reached at perfect
// separation (no false positives, no false negatives), at confidence conf. With Split,
// half the trials choose the rule and half bound it; with Bonferroni all bound it, the
// level divided among the thresholds; with a Fixed threshold all bound it at the level. It grows like ln(n): a claim above it
// cannot be shown violated with these trials, whatever the method does.
func MaxCertifiable(trials int, delta, conf float64, s threshold.Strategy) float64 {
	a := 1 - conf
	n := trials
	var fpr float64
	_, fixed := s.Threshold()
	switch {
	case fixed: // chosen before the trials: all of them bound it, at the full level
		fpr = CPUpper(0, n, a/2)
	case s == threshold.Split:
		n = trials - trials/2
		fpr = CPUpper(0, n, a/2)
	default:
		fpr = CPUpper(0, n, a/(4*float64(n+1)))
	}
	return epsFromRates(fpr, fpr, delta)
}

// TrialsForResolution is the least number of trials per side whose MaxCertifiable exceeds
// eps, or an error when none up to 10⁹ does.
func TrialsForResolution(eps, delta, conf float64, s threshold.Strategy) (int, error) {
	return leastTrials(func(n int) bool { return MaxCertifiable(n, delta, conf, s) > eps })
}

// leastTrials is the least n ≥ 4 with ok(n), for ok monotone in n (doubling, then
// bisection).
func leastTrials(ok func(int) bool) (int, error) {
	lo, hi := 4, 8
	if ok(lo) {
		return lo, nil
	}
	for !ok(hi) {
		lo, hi = hi, 2*hi
		if hi > 1e9 {
			return 0, errors.New("no trial count up to 10⁹ suffices")
		}
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// PowerSpec says what violation a test should catch.
type PowerSpec struct {
	Claim  float64 // the claimed ε
	Factor float64 // the true ε is Factor × Claim (> 1)
	Power  float64 // probability of catching it (e.g. 0.8)
	Delta  float64
	Conf   float64 // confidence of the ε lower bound
}

// TrialsToDetect is the least number of trials per side with which the split-threshold
// game shows ε_LB > Claim with probability at least Power, when the truth is the Gaussian
// pair (μ-GDP) whose exact ε at δ is Factor × Claim; it also returns that μ. The power at
// each count is SplitGamePower's: the game's own rule choice, simulated, and exact binomial
// tails for the held-out half. The Gaussian shape of the leak is the named alternative (it
// is the shape of the toolkit's Gaussian mechanisms); leaks of another shape may need
// fewer or more trials.
//
// The search stops with an error past MaxPlanTrials, and with ctx's error when ctx is
// done (checked between power evaluations and inside each).
func TrialsToDetect(ctx context.Context, p PowerSpec) (int, float64, error) {
	seedPlans()
	if v, ok := plans.Load(p); ok {
		r := v.(plan)
		return r.trials, r.mu, r.err
	}
	n, mu, err := searchTrials(ctx, p)
	if err := ctx.Err(); err != nil { // an interrupted search is no answer to keep
		return 0, 0, err
	}
	plans.Store(p, plan{n, mu, err})
	return n, mu, err
}

// MaxPlanTrials bounds the trial counts a plan considers: the most an audit runs
// (trials.MaxTrials). A plan needing more says so instead of simulating games of 10⁹ trials
// (which took minutes and gigabytes).
const MaxPlanTrials = 1_000_000

// errNoCount is a search's refusal past MaxPlanTrials.
var errNoCount = fmt.Errorf("trials to detect: no trial count up to %d suffices (the most an audit runs)", MaxPlanTrials)

// plans memoises TrialsToDetect: a plan at tens of thousands of trials takes seconds, and
// every subject of an audit usually shares one claim.
var plans sync.Map // PowerSpec → plan

type plan struct {
	trials int
	mu     float64
	err    error
}

// searchTrials brackets the least count with the target power on coarse estimates and
// settles it with the full one.
func searchTrials(ctx context.Context, p PowerSpec) (int, float64, error) {
	if err := p.check(true); err != nil {
		return 0, 0, fmt.Errorf("trials to detect: %w", err)
	}
	mu, err := gdpMuFor(p.Factor*p.Claim, p.Delta)
	if err != nil {
		return 0, 0, err
	}
	// no count below the resolution limit can show the claim violated at all
	start, err := TrialsForResolution(p.Claim, p.Delta, p.Conf, threshold.Split)
	if err != nil {
		return 0, 0, fmt.Errorf("trials to detect: %w", err)
	}
	// a coarse search on few replicates brackets the count; the full estimate settles it
	reps := coarseReps
	// the counts tried, with their replicates so far: replicate r is the same at a count
	// however many replicates are asked for, so the settling estimate at a count the
	// coarse search tried extends the coarse one
	tried := map[int][]float64{}
	draws := newDrawCache(mu) // and where each replicate's draws stood at the counts tried
	// progress: the bracketing's evaluations are not known in number, so it reports no
	// count; the settling's replicates are (see settled)
	report := steps.From(ctx)
	if report != nil {
		report("bracketing", 0, 0)
	}
	var settled, planned int // replicates the settling has run, and at most will run
	powerAt := func(trials int) float64 {
		if ctx.Err() != nil {
			return 0 // the search unwinds; its result is ctx's error
		}
		per := tried[trials]
		if have := len(per); have < reps {
			per = append(per, make([]float64, reps-have)...)
			sim := newPowerSim(trials, p)
			sim.draws = draws
			if report != nil && reps == PowerReps {
				sim.progress = func(k int) { report("settling", settled+k, planned) }
			}
			sim.replicates(ctx, mu, per, have)
			tried[trials] = per
			if reps == PowerReps {
				settled += reps - have
			}
		}
		pw, _ := meanStdErr(per[:reps])
		return pw
	}
	// toSettle is the replicates the settling has left when it will evaluate the counts
	// given (0: none) and then bisect lo..hi: at most, as the bisection may stop a step
	// early and find a count already evaluated
	toSettle := func(lo, hi int, counts ...int) int {
		left := 0
		for _, n := range counts {
			if n > 0 {
				left += max(0, PowerReps-len(tried[n]))
			}
		}
		return left + PowerReps*bisectSteps(lo, hi, settleParts)
	}
	replan := func(lo, hi int, counts ...int) {
		if report != nil {
			planned = settled + toSettle(lo, hi, counts...)
			report("settling", settled, planned)
		}
	}
	reaches := func(trials int) bool { return powerAt(trials) >= p.Power }
	// Φ⁻¹(power) grows about linearly in √n (the held-out counts' signal-to-noise ratio
	// does): secant steps on that line find the count in a few evaluations; the answer is
	// then bracketed and bisected to 5 % of the count, about what the simulation's noise
	// lets the power tell apart.
	z := distuv.UnitNormal.Quantile(p.Power)
	lineZ := func(pw float64) float64 {
		return distuv.UnitNormal.Quantile(math.Min(math.Max(pw, 1e-12), 1-1e-12))
	}
	lo, hi := start-1, 0 // power(lo) < target ≤ power(hi), hi = 0 while unknown
	n1, n2 := start, 2*start
	p1, p2 := powerAt(n1), powerAt(n2)
	for range 12 {
		for _, c := range [][2]float64{{float64(n1), p1}, {float64(n2), p2}} {
			if c[1] >= p.Power && (hi == 0 || int(c[0]) < hi) {
				hi = int(c[0])
			}
			if c[1] < p.Power && int(c[0]) > lo {
				lo = int(c[0])
			}
		}
		if hi != 0 && hi-lo <= max(1, hi/10) {
			break
		}
		z1, z2 := lineZ(p1), lineZ(p2)
		r1, r2 := math.Sqrt(float64(n1)), math.Sqrt(float64(n2))
		next := 0.0
		if z2 != z1 {
			r := r2 + (z-z2)*(r2-r1)/(z2-z1)
			next = r * r
		}
		n3 := int(math.Ceil(next))
		// keep the step inside what is known, and away from the ends
		if !(next > float64(lo)) || (hi != 0 && n3 >= hi) || math.IsNaN(next) {
			if hi == 0 {
				n3 = max(n1, n2) * 3 / 2
			} else {
				n3 = lo + (hi-lo)/2
			}
		}
		if n3 > MaxPlanTrials {
			n3 = MaxPlanTrials // the last count tried; past it the search gives up
		}
		if n2 == MaxPlanTrials && p2 < p.Power {
			return 0, 0, errNoCount
		}
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		n1, p1 = n2, p2
		n2, p2 = n3, powerAt(n3)
	}
	for hi == 0 { // the secant did not bracket: double
		if max(lo, n2) >= MaxPlanTrials {
			return 0, 0, errNoCount
		}
		lo, hi = max(lo, n2), min(2*max(lo, n2), MaxPlanTrials)
		if powerAt(hi) < p.Power {
			lo, hi = hi, 0
		}
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
	}
	lo, hi = bisectCount(lo, hi, 10, reaches)
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	// settle with the full estimate, widening the coarse bracket where it was wrong
	reps = PowerReps
	above := func(lo int) int { // lo when it is a count to evaluate
		if lo > start-1 {
			return lo
		}
		return 0
	}
	replan(lo, hi, hi, above(lo))
	for powerAt(hi) < p.Power {
		if hi >= MaxPlanTrials || ctx.Err() != nil {
			return 0, 0, cmp.Or(ctx.Err(), errNoCount)
		}
		lo, hi = hi, min(hi+hi/5, MaxPlanTrials)
		replan(lo, hi, hi)
	}
	for lo > start-1 && powerAt(lo) >= p.Power {
		hi, lo = lo, max(start-1, lo-lo/5)
		replan(lo, hi, above(lo))
	}
	replan(lo, hi)
	_, hi = bisectCount(lo, hi, settleParts, reaches)
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	if report != nil {
		report("settling", settled, settled)
	}
	return hi, mu, nil
}

// settleParts is the settling bisection's resolution: to a twentieth of the count.
const settleParts = 20

// bisectSteps is at most the number of evaluations bisectCount(lo, hi, parts, ·) makes: the
// bracket halves (rounded up) each time, and the bisection stops once it is within hi/parts,
// which is at least lo/parts.
func bisectSteps(lo, hi, parts int) int {
	n := 0
	for w := hi - lo; w > max(1, lo/parts); w -= w / 2 {
		n++
	}
	return n
}

// gdpMuFor is the μ of the Gaussian pair whose exact ε at δ is eps.
func gdpMuFor(eps, delta float64) (float64, error) {
	lo, hi := 0.0, 1.0
	for dp.GaussianExactEpsilon(hi, delta) < eps {
		lo, hi = hi, 2*hi
		if hi > 1e4 {
			return 0, fmt.Errorf("no Gaussian pair reaches ε = %v at δ = %v", eps, delta)
		}
	}
	for hi-lo > 1e-12*hi {
		mid := (lo + hi) / 2
		if dp.GaussianExactEpsilon(mid, delta) < eps {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}

// coarseReps replicates bracket a plan's count before PowerReps settle it.
const coarseReps = 32

// bisectCount narrows a bracket of trial counts — ok(lo) false, ok(hi) true — to within
// hi/parts (at least 1).
func bisectCount(lo, hi, parts int, ok func(int) bool) (int, int) {
	for hi-lo > max(1, hi/parts) {
		mid := lo + (hi-lo)/2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return lo, hi
}
