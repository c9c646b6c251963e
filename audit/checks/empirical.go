package checks

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"

	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/estimate"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/internal/scratch"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// EmpiricalRelease checks a claim with the published models alone — no secret state, no
// knowledge of the method — by playing a distinguishing game between the published models
// of unlearned runs and of retrains.
//
// The trials are split in halves. On the first half of each side the attacker fits two
// scores: the projection on the Fisher direction (which sees a shift of the mean, such as
// a deleted record still pulling the model) and the squared distance to the first halves'
// centre (which sees a change of spread, such as noise that is missing or too weak). For
// each score it chooses the threshold rule on the first halves and bounds ε with
// Clopper–Pearson on the second halves (epsilon.Game, Split), each score at half the
// false-alarm budget. The largest bound decides:
//
//   - FAIL when ε_LB exceeds the claimed ε: a violation at the stated confidence;
//   - PASS when it does not and the game had power: played with these trials on the
//     Gaussian-mechanism pair whose exact ε is PowerAgainst × the claim (default 2×), it
//     would have shown the claim violated with probability at least 0.8
//     (epsilon.SplitGamePower, at the per-score confidence);
//   - INCONCLUSIVE otherwise, with about the trials per side that would reach that power.
//
// Every finding states its power: the probability against the named alternative and the
// smallest violation it would catch with 80 % power (Finding.Power).
//
// Reported beside it, as estimates: the projected Rényi divergence with its interval
// (against the claimed α·ρ when the claim has a Rényi curve), the Gaussian-DP route's ε,
// and the NeurIPS 2023 competition's ε of the projection scores.
type EmpiricalRelease struct {
	Prefix     string
	Epsilon    float64 // claimed ε
	Delta      float64 // claimed δ
	Rho        float64 // claimed Rényi curve D_α ≤ α·ρ, if any
	Alpha      float64 // order of the Rényi estimate; 0 means 2
	Confidence float64 // 0 means 0.95
	Seed       uint64  // for the estimators' resampling
	// PowerAgainst names the violation a PASS must have been able to catch: the Gaussian
	// pair at PowerAgainst × the claimed ε. 0 means DefaultPowerAgainst.
	PowerAgainst float64
}

// MinEmpiricalTrials is the fewest trials EmpiricalRelease accepts: four per half per side.
const MinEmpiricalTrials = 8

// GamePowerSpec is the power question the distinguishing game (EmpiricalRelease) answers
// for a claim: can it show a true ε of against × the claimed ε violated, with the claim's
// δ, at the per-family confidence the game plays at (two score families share the
// false-alarm budget). The planner and the finding ask it alike, so the trials the
// planner names are the trials the finding counts as enough.
func GamePowerSpec(claimEpsilon, delta, confidence, against float64) epsilon.PowerSpec {
	return epsilon.PowerSpec{Claim: claimEpsilon, Factor: against, Power: verdict.PowerTarget, Delta: delta, Conf: 1 - (1-confidence)/2}
}

// empiricalSettings checks the trial count and fills in the defaults of an empirical
// check's confidence (0.95) and named violation (DefaultPowerAgainst).
func empiricalSettings(trials int, confidence, against *float64) error {
	if trials < MinEmpiricalTrials {
		return fmt.Errorf("%d trials; want at least %d", trials, MinEmpiricalTrials)
	}
	if *confidence == 0 {
		*confidence = 0.95
	}
	if *against == 0 {
		*against = verdict.DefaultPowerAgainst
	}
	if !(*against > 1) {
		return fmt.Errorf("power against %g× the claim; want a factor above 1", *against)
	}
	return nil
}

// publishedModels stacks the trials' published models, unlearned and retrained, one row
// a trial, each of d coordinates.
func publishedModels(results []trials.TrialResult, d int) (unlearned, retrained *mat.Dense, err error) {
	unlearned, retrained = mat.NewDense(len(results), d, stacks.Get(len(results)*d)), mat.NewDense(len(results), d, stacks.Get(len(results)*d))
	if err := stackRows(results, d, unlearned, retrained); err != nil {
		releaseModels(unlearned, retrained)
		return nil, nil, err
	}
	return unlearned, retrained, nil
}

// stackRows sets row i of unlearned and retrained to results[i]'s published models, of d
// coordinates each.
func stackRows(results []trials.TrialResult, d int, unlearned, retrained *mat.Dense) error {
	for i, tr := range results {
		if len(tr.Unlearned.Published) != d || len(tr.Retrained.Published) != d {
			return fmt.Errorf("trial %d publishes %d and %d coordinates; want %d",
				tr.Index, len(tr.Unlearned.Published), len(tr.Retrained.Published), d)
		}
		unlearned.SetRow(i, tr.Unlearned.Published)
		retrained.SetRow(i, tr.Retrained.Published)
	}
	return nil
}

// stacks keeps the arrays publishedModels stacks models in, for the next check's; a check
// gives them back (releaseModels) when done.
var stacks scratch.Pool[float64]

// releaseModels gives publishedModels' matrices back to stacks; nothing may read them after.
func releaseModels(ms ...*mat.Dense) {
	for _, m := range ms {
		stacks.Put(m.RawMatrix().Data)
	}
}

// blockRows is how many trials' models publishedBlocks stacks at a time: enough that a
// block's product with the records takes gonum's parallel path, as the whole stack's does
// (past 64 features its sums split the features at the same points), so that every score
// has the whole stack's bits.
const blockRows = 4096

// publishedBlocks calls f(i0, unlearned, retrained) with the rows i0, i0+1, … of
// publishedModels' matrices, a block at a time and in order, in two buffers it reuses:
// scoring reads each model once, and a whole stack of 10⁵–10⁶ trials' models is hundreds
// of megabytes of fresh pages a check. A block has blockRows rows or more (the last takes
// the remainder), or is the whole stack when there are fewer than 2·blockRows trials.
func publishedBlocks(results []trials.TrialResult, d int, f func(i0 int, unlearned, retrained *mat.Dense)) error {
	n := len(results)
	size := n
	if n >= 2*blockRows {
		size = blockRows
	}
	most := min(n, 2*size-1) // the last block's rows at most
	bu, br := make([]float64, most*d), make([]float64, most*d)
	for i0 := 0; i0 < n; {
		rows := size
		if n-i0 < 2*size {
			rows = n - i0
		}
		u, r := mat.NewDense(rows, d, bu[:rows*d]), mat.NewDense(rows, d, br[:rows*d])
		if err := stackRows(results[i0:i0+rows], d, u, r); err != nil {
			return err
		}
		f(i0, u, r)
		i0 += rows
	}
	return nil
}

// Check runs the game on finished trials.
func (e EmpiricalRelease) Check(ctx context.Context, results []trials.TrialResult) (verdict.Finding, error) {
	n := len(results)
	if e.Alpha == 0 {
		e.Alpha = 2
	}
	if err := empiricalSettings(n, &e.Confidence, &e.PowerAgainst); err != nil {
		return verdict.Finding{}, fmt.Errorf("empirical release check: %w", err)
	}
	a, b, err := publishedModels(results, len(results[0].Unlearned.Published))
	if err != nil {
		return verdict.Finding{}, fmt.Errorf("empirical release check: %w", err)
	}
	defer releaseModels(a, b) // after the estimates, which read them, are done (below)
	d := a.RawMatrix().Cols
	h := n / 2
	u := estimate.FisherDirection(a, b)
	center := make([]float64, d)
	for i := range h {
		for j := range d {
			center[j] += (a.At(i, j) + b.At(i, j)) / float64(2*h)
		}
	}
	proj := func(m *mat.Dense) []float64 {
		out := make([]float64, n)
		for i := range n {
			out[i] = floats.Dot(m.RawRowView(i), u)
		}
		return out
	}
	spread := func(m *mat.Dense) []float64 {
		out := make([]float64, n)
		for i := range n {
			var s float64
			for j, v := range m.RawRowView(i) {
				s += (v - center[j]) * (v - center[j])
			}
			out[i] = s
		}
		return out
	}
	famConf := 1 - (1-e.Confidence)/2 // two score families share the false-alarm budget
	game := epsilon.Game{Delta: e.Delta, Confidence: famConf, Strategy: threshold.Split}
	type family struct {
		name     string
		pos, neg []float64
	}
	fams := []family{{"projection on the fitted mean-difference direction", proj(a), proj(b)}, {"squared distance to the fitted centre", spread(a), spread(b)}}
	// the estimates read the models, u and the projections, as the game does, and write
	// nothing they share: computed beside it, so that this check's longest stretch on one
	// core (its end, when it is the last of a phase) is shorter
	var estimates []verdict.Estimate
	var side sync.WaitGroup
	defer side.Wait()
	side.Go(func() { estimates = e.estimates(a, b, u, fams[0].pos, fams[0].neg) })
	// and the families' games side by side
	played, errs := make([]epsilon.Result, len(fams)), make([]error, len(fams))
	var games sync.WaitGroup
	for i, f := range fams {
		games.Go(func() { played[i], errs[i] = game.LowerBound(f.pos, f.neg) })
	}
	games.Wait()
	best := epsilon.Result{Epsilon: -1}
	var bestName string
	for i, f := range fams {
		if errs[i] != nil {
			return verdict.Finding{}, fmt.Errorf("empirical release check: %w", errs[i])
		}
		if res := played[i]; res.Epsilon > best.Epsilon {
			best, bestName = res, f.name
		}
	}
	resolution := epsilon.MaxCertifiable(n, e.Delta, famConf, threshold.Split)
	f := verdict.Finding{
		Check: e.Prefix + "/empirical/epsilon-lower-bound", Kind: verdict.Empirical,
		Title:    fmt.Sprintf("ε lower bound of a distinguishing game on the published models at δ = %.3g", e.Delta),
		Measured: best.Epsilon, Interval: &verdict.Interval{Lower: best.Epsilon, Upper: math.Inf(1)},
		Bound: e.Epsilon, Comparison: "≤", Confidence: e.Confidence, Trials: n,
		Detail: fmt.Sprintf("best attack: threshold on the %s, chosen on %d trials per side and bounded with Clopper–Pearson on the other %d (%d false positives, %d false negatives); the game can show at most ε = %.3g with these trials (its resolution)",
			bestName, h, n-h, best.Counts.FP, best.Counts.Pos-best.Counts.TP, resolution),
	}
	spec := GamePowerSpec(e.Epsilon, e.Delta, e.Confidence, e.PowerAgainst)
	if f.Power, err = PowerOf(ctx, n, spec, fmt.Sprintf("split game, the better of %d score families", len(fams))); err != nil {
		return verdict.Finding{}, fmt.Errorf("empirical release check: %w", err)
	}
	if err := decide(ctx, &f, spec); err != nil {
		return verdict.Finding{}, err
	}
	side.Wait()
	f.Estimates = estimates
	f.HeldOut = heldOut("unlearned if "+ruleWords(best.Rule), best.Rule, best.Counts, e.Delta, famConf)
	for _, fam := range fams {
		if fam.name == bestName { // the held-out half, in the direction of the rule that decided
			f.Scores = verdict.SummarizeScoresOriented(fam.name+" (held-out half; "+dirWord(best.Rule.Above)+")", fam.pos[h:], fam.neg[h:], best.Rule.Above)
		}
	}
	return f, nil
}

// estimates are the finding's estimates; u is FisherDirection(a, b), fitted already (nil:
// fitted again).
func (e EmpiricalRelease) estimates(a, b *mat.Dense, u, projA, projB []float64) []verdict.Estimate {
	// three estimates of their own, computed side by side and listed in this order (each
	// left out when it cannot be computed)
	var parts [3]*verdict.Estimate
	var wg sync.WaitGroup
	wg.Go(func() {
		if pe, err := estimate.ProjectedAlong(a, b, u, estimate.Options{Alpha: e.Alpha, Confidence: e.Confidence, Covariance: estimate.Pooled, Seed: e.Seed}); err == nil {
			note := "projected on the Fisher direction, univariate Gaussian fits with one variance, parametric bootstrap interval"
			if e.Rho > 0 {
				note += fmt.Sprintf("; the claim allows α·ρ = %.4g", e.Alpha*e.Rho)
			}
			parts[0] = &verdict.Estimate{Name: fmt.Sprintf("Rényi divergence D_%g (projected)", e.Alpha), Value: pe.Value,
				Interval: &verdict.Interval{Lower: pe.Interval.Lower, Upper: pe.Interval.Upper}, Note: note}
		}
	})
	wg.Go(func() {
		game := epsilon.Game{Delta: e.Delta, Confidence: e.Confidence, Strategy: threshold.Split}
		if g, err := game.GDP(projA, projB); err == nil {
			mu := fmt.Sprintf("μ ≥ %.4g", g.Mu)
			if math.IsInf(g.Mu, -1) || math.IsNaN(g.Mu) {
				mu = "no lower bound on μ" // the scores showed no separation at this confidence
			}
			parts[1] = &verdict.Estimate{Name: "ε via the Gaussian-DP route", Value: g.Epsilon,
				Note: mu + " from the projection scores; a bound only if the pair is exactly Gaussian-DP"}
		}
	})
	wg.Go(func() {
		// on the held-out halves: the direction was fitted on the first halves
		na, nb := len(projA), len(projB)
		if c, err := epsilon.Competition(column(projA[na/2:]), column(projB[nb/2:])); err == nil {
			parts[2] = &verdict.Estimate{Name: "NeurIPS 2023 competition ε (projection scores, held-out half)", Value: c.Epsilons[0],
				Note: fmt.Sprintf("the competition's scorer on the held-out halves' projections (the direction was fitted on the first halves; the scorer picks its own direction, by the medians, and its thresholds on the models it scores: an optimistic estimate, never a bound): δ = 1e-5, no interval, capped at 50; ε ≥ %.0f earns nothing", c.EMax)}
		}
	})
	wg.Wait()
	var out []verdict.Estimate
	for _, p := range parts {
		if p != nil {
			out = append(out, *p)
		}
	}
	return out
}

// column turns scores into one-example rows for the competition scorer, which reads them:
// views of s, not a small allocation each.
func column(s []float64) [][]float64 {
	out := make([][]float64, len(s))
	for i := range s {
		out[i] = s[i : i+1 : i+1]
	}
	return out
}
