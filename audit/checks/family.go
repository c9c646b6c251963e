package checks

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"
	"github.com/unlearnaudit/unlearnaudit/internal/fexp"

	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/estimate"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/mia"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// The statistics a black-box audit tests (spec estimators-and-attacks §(g)). A game on raw
// parameters — d in the thousands, tens of models a side — or one game per deleted record
// with a Bonferroni correction has almost no power; one number per model that carries the
// signal, such as the deleted records' mean loss, separates the sides. Each statistic
// below is a fixed function of the published model (post-processing), or one fitted on
// the selection half alone (the first half of each side), which the game never evaluates
// on; the family game (epsilon.Game.Family) chooses the statistic and its rule together on
// that half and bounds ε on the other.

// recordStatistics are the mean and the median over records (columns) of per-record
// scores, one value per model (row), named after what the scores are.
func RecordStatistics(what string, u, r *mat.Dense) []epsilon.Statistic {
	mean := func(m *mat.Dense) []float64 {
		n, _ := m.Dims()
		out := make([]float64, n)
		for i := range n {
			out[i] = finiteMean(m.RawRowView(i))
		}
		return out
	}
	median := func(m *mat.Dense) []float64 {
		n, k := m.Dims()
		out, row := make([]float64, n), make([]float64, k)
		for i := range n {
			copy(row, m.RawRowView(i))
			slices.Sort(row)
			a, b := row[(k-1)/2], row[k/2]
			if out[i] = (a + b) / 2; math.IsInf(out[i], 0) {
				out[i] = a/2 + b/2 // the sum overflowed; the halves cannot
			}
		}
		return out
	}
	return []epsilon.Statistic{
		{Name: "mean " + what, Pos: mean(u), Neg: mean(r)},
		{Name: "median " + what, Pos: median(u), Neg: median(r)},
	}
}

// finiteMean is the mean of finite xs, finite however large they are: the plain mean
// (stat.Mean, so that ordinary scores give the same bits as ever), and where its sum
// overflows, the mean of xs scaled by their largest magnitude, scaled back.
func finiteMean(xs []float64) float64 {
	m := stat.Mean(xs, nil)
	if !math.IsInf(m, 0) && !math.IsNaN(m) {
		return m
	}
	scale := 0.0
	for _, x := range xs {
		scale = max(scale, math.Abs(x))
	}
	if scale == 0 || math.IsInf(scale, 0) || math.IsNaN(scale) {
		return m // not finite values: no scaling helps
	}
	sum := 0.0
	for _, x := range xs {
		sum += x / scale // |x/scale| ≤ 1: the sum is at most len(xs)
	}
	return sum / float64(len(xs)) * scale
}

// A NonFiniteError is a statistic of the models that is not finite (an overflow: model
// parameters or scores too large to project or sum): no game can be played on it.
type NonFiniteError struct {
	Statistic string
	Side      string // "unlearned" or "retrained"
	Model     int    // 0-based, in the order the side's models were given
	Value     float64
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("the %s of %s model %d is %v, not a finite number: the models' values are too large for it (rescale them)", e.Statistic, e.Side, e.Model, e.Value)
}

// finiteStatistics refuses statistics with a value that is not finite, naming the first.
func finiteStatistics(stats []epsilon.Statistic) error {
	for _, s := range stats {
		for _, side := range []struct {
			name string
			vs   []float64
		}{{"unlearned", s.Pos}, {"retrained", s.Neg}} {
			for i, v := range side.vs {
				if math.IsInf(v, 0) || math.IsNaN(v) {
					return &NonFiniteError{Statistic: s.Name, Side: side.name, Model: i, Value: v}
				}
			}
		}
	}
	return nil
}

// selectionMean is the mean of the selection half of a side: its first rows/2 models.
func selectionMean(m *mat.Dense) []float64 {
	n, d := m.Dims()
	out := make([]float64, d)
	for i := range n / 2 {
		floats.Add(out, m.RawRowView(i))
	}
	floats.Scale(1/float64(n/2), out)
	return out
}

// project is every model's projection on dir.
func project(m *mat.Dense, dir []float64) []float64 {
	n, _ := m.Dims()
	out := make([]float64, n)
	for i := range n {
		out[i] = floats.Dot(m.RawRowView(i), dir)
	}
	return out
}

// parameterStatistics look at the parameters alone: the projection on the Fisher
// direction with Ledoit–Wolf shrinkage (estimate.FisherDirection, which solves through
// the models' Gram matrix when d exceeds them), the projection on the raw difference of
// the two sides' means (the limit of full shrinkage, robust where the covariance of a few
// dozen models in thousands of dimensions is noise), and the squared distance to the
// centre of both sides (a change of spread: noise missing or too weak). Every direction
// and centre is fitted on the selection halves.
func ParameterStatistics(u, r *mat.Dense) []epsilon.Statistic {
	nu, d := u.Dims()
	nr, _ := r.Dims()
	hu, hr := nu/2, nr/2
	mu, mr := selectionMean(u), selectionMean(r)
	diff := floats.SubTo(make([]float64, d), mu, mr)
	centre := make([]float64, d)
	floats.AddScaledTo(centre, floats.ScaleTo(make([]float64, d), float64(hu)/float64(hu+hr), mu), float64(hr)/float64(hu+hr), mr)
	spread := func(m *mat.Dense) []float64 {
		n, _ := m.Dims()
		out := make([]float64, n)
		for i := range n {
			out[i] = floats.Distance(m.RawRowView(i), centre, 2)
			out[i] *= out[i]
		}
		return out
	}
	fisher := estimate.FisherDirection(u, r)
	return []epsilon.Statistic{
		{Name: "projection on the shrunk Fisher direction", Pos: project(u, fisher), Neg: project(r, fisher)},
		{Name: "projection on the difference of the means", Pos: project(u, diff), Neg: project(r, diff)},
		{Name: "squared distance to the centre", Pos: spread(u), Neg: spread(r)},
	}
}

// gradientStatistic is the projection on a direction the data give without looking at
// the unlearned models: the deleted records' summed logistic-loss gradient at the mean of
// the selection half's retrained models. A model that kept the records sits down that
// gradient, so a low projection is what remembering looks like. deleted are the records
// as the models see them (linearRecords).
func GradientStatistic(u, r *mat.Dense, deleted *reference.Dataset) epsilon.Statistic {
	theta := selectionMean(r)
	g, gk := make([]float64, len(theta)), make([]float64, len(theta))
	for k := range deleted.Len() {
		rec := deleted.Record(k)
		reference.Logistic{}.ExampleGradient(gk, theta, rec.X, rec.Y)
		floats.Add(g, gk)
	}
	return epsilon.Statistic{Name: "projection on the deleted records' loss gradient at the retrained mean", Pos: project(u, g), Neg: project(r, g)}
}

// linearScores are the deleted records' logistic losses and logit-scaled confidences
// φ = ln p_y − ln(1 − p_y) (the margin) under every model, models × records (mia.Scores).
// φ decreases with the loss, so its median is the median loss's image: only its mean adds
// a statistic.
func LinearScores(models *mat.Dense, deleted *reference.Dataset) (loss, conf *mat.Dense) {
	n, _ := models.Dims()
	loss, conf = mat.NewDense(n, deleted.Len(), nil), mat.NewDense(n, deleted.Len(), nil)
	mia.Scores(loss, mia.Loss, reference.Logistic{}, models, deleted)
	mia.Scores(conf, mia.Confidence, reference.Logistic{}, models, deleted)
	return loss, conf
}

// FamilyGame is the distinguishing game over a pre-registered family of statistics
// (epsilon.Game.Family, split): the audit of published models when the evidence is the
// models alone. Sides may differ in size (each is bounded with its own Clopper–Pearson
// interval); the power is stated at the smaller side's count, which understates it. The
// power is the split game's on the deciding statistic alone (epsilon.SplitGamePower):
// choosing among null statistics besides the one that carries a violation costs little
// (a family of seven keeps the planner's promise: epsilon's
// TestFamilyKeepsThePlannersPower).
type FamilyGame struct {
	Check      string  // the finding's identifier
	Of         string  // what the statistics are of, for the title; "" means "the published models"
	Epsilon    float64 // claimed ε
	Delta      float64 // claimed δ
	Confidence float64 // 0 means 0.95
	// PowerAgainst names the violation a PASS must have been able to catch; 0 means
	// DefaultPowerAgainst.
	PowerAgainst float64
}

// Play runs the game on the statistics and returns its finding: FAIL above the claim,
// PASS with power against the PowerAgainst× Gaussian pair at the confidence used,
// INCONCLUSIVE otherwise, with the models per side that would decide. The finding names
// the statistic that decided and carries the rule's held-out counts (HeldOut). The figures
// beside the bound — the rule's held-out TPR and FPR, the deciding statistic's AUC, TPR at
// low FPR, competition ε, histograms and ROC — are the held-out halves', in the direction
// of the rule that decided: on the selection halves, which chose the statistic and fitted
// its direction, they would read an honest pair as a leak, and without the rule's
// direction a FAIL decided by "≤" would print an AUC near 0.
func (g FamilyGame) Play(ctx context.Context, stats []epsilon.Statistic) (verdict.Finding, error) {
	if len(stats) == 0 {
		return verdict.Finding{}, fmt.Errorf("family game: no statistics")
	}
	if err := finiteStatistics(stats); err != nil {
		return verdict.Finding{}, fmt.Errorf("family game: %w", err)
	}
	nu, nr := len(stats[0].Pos), len(stats[0].Neg)
	n := min(nu, nr)
	if err := empiricalSettings(n, &g.Confidence, &g.PowerAgainst); err != nil {
		return verdict.Finding{}, fmt.Errorf("family game: %w", err)
	}
	res, err := epsilon.Game{Delta: g.Delta, Confidence: g.Confidence, Strategy: threshold.Split}.Family(stats)
	if err != nil {
		return verdict.Finding{}, err
	}
	chosen := stats[res.Chosen]
	of := g.Of
	if of == "" {
		of = "the published models"
	}
	names := make([]string, len(stats))
	for i, s := range stats {
		names[i] = fmt.Sprintf("%s (%.3g)", s.Name, res.Selection[i])
	}
	rule := "unlearned if " + ruleWords(res.Rule)
	how := rule + ", midway between selection scores"
	directionFree := math.IsInf(res.Rule.Threshold, 0)
	if t := res.Rule.Threshold; directionFree {
		rule = "every model called unlearned"
		if (t > 0) == res.Rule.Above {
			rule = "no model called unlearned"
		}
		how = rule + ": no threshold separated the selection halves"
	}
	f := verdict.Finding{
		Check: g.Check, Kind: verdict.Empirical,
		Title:    fmt.Sprintf("ε lower bound of a distinguishing game over %d pre-registered statistics of %s at δ = %.3g", len(stats), of, g.Delta),
		Measured: res.Epsilon, Interval: &verdict.Interval{Lower: res.Epsilon, Upper: math.Inf(1)},
		Bound: g.Epsilon, Comparison: "≤", Confidence: g.Confidence, Trials: n,
		Detail: fmt.Sprintf("decided by the %s: the statistic and its threshold (%s) chosen on the first %d unlearned and %d retrained models, ε bounded with Clopper–Pearson on the other %d and %d (%d false positives, %d false negatives), at the whole confidence (one held-out evaluation). The family, with each statistic's in-sample selection score (the ε bound its best rule reaches on the selection halves that fitted it: how the statistic was chosen, not a measurement of the models, and high for an honest pair whose direction was fitted on few models): %s",
			chosen.Name, how, nu/2, nr/2, nu-nu/2, nr-nr/2, res.Counts.FP, res.Counts.Pos-res.Counts.TP, strings.Join(names, "; ")),
	}
	if nu != nr {
		f.Detail += fmt.Sprintf("; the sides differ (%d and %d models), and the power below is stated at the smaller", nu, nr)
	}
	f.Detail += "; the halves are taken in the order the models were given (file order): the first half of each side selects, the second evaluates, and no seed enters the verdict"
	spec := epsilon.PowerSpec{Claim: g.Epsilon, Factor: g.PowerAgainst, Power: verdict.PowerTarget, Delta: g.Delta, Conf: g.Confidence}
	if f.Power, err = PowerOf(ctx, n, spec, fmt.Sprintf("split game, the best of %d pre-registered statistics chosen on half", len(stats))); err != nil {
		return verdict.Finding{}, fmt.Errorf("family game: %w", err)
	}
	if err := decide(ctx, &f, spec); err != nil {
		return verdict.Finding{}, err
	}
	f.HeldOut = heldOut(rule, res.Rule, res.Counts, g.Delta, g.Confidence)
	f.Detail += fmt.Sprintf("; these held-out halves can show at most ε = %.3g (no false positive, no false negative)", f.HeldOut.Resolution)
	// the figures beside the bound: the chosen statistic on the held-out halves alone (the
	// selection halves chose it, and would flatter it), oriented by the rule that decided
	hp, hn := oriented(chosen.Pos[nu/2:], res.Rule.Above), oriented(chosen.Neg[nr/2:], res.Rule.Above)
	orient := heldOutOrientation(res.Rule.Above, len(hp), len(hn))
	if directionFree {
		// a rule that calls every model (or none) unlearned has no direction: the figures
		// keep the rule's nominal one, and say that an AUC below ½ is then no contradiction
		orient += " (the rule calls every model the same, so its direction is nominal: an AUC below 0.5 here is 1 − AUC the other way, and no verdict rests on it)"
	}
	f.Scores = verdict.SummarizeScoresOriented(chosen.Name+" (held-out half; "+dirWord(res.Rule.Above)+")", chosen.Pos[nu/2:], chosen.Neg[nr/2:], res.Rule.Above)
	f.Estimates = append(f.Estimates, heldOutRates(f.HeldOut, rule)...)
	if c, err := epsilon.Competition(column(chosen.Pos[nu/2:]), column(chosen.Neg[nr/2:])); err == nil && nu-nu/2 == nr-nr/2 {
		f.Estimates = append(f.Estimates, verdict.Estimate{Name: "NeurIPS 2023 competition ε (the deciding statistic, held-out half)", Value: c.Epsilons[0],
			Note: fmt.Sprintf("the competition's scorer on the deciding statistic's held-out half (%d models a side; the scorer picks its own direction, by the medians, and its thresholds on the models it scores: an optimistic estimate, never a bound): δ = 1e-5, no interval, capped at 50; ε ≥ %.0f earns nothing", nu-nu/2, c.EMax)})
	}
	if m, err := mia.Evaluate(hp, hn, 200, 0.95, 1); err == nil {
		f.Estimates = append(f.Estimates, verdict.Estimate{Name: "AUC of the deciding statistic (held-out half)", Value: m.AUC.Value,
			Interval: &verdict.Interval{Lower: m.AUC.Lower, Upper: m.AUC.Upper},
			Note:     orient + "; 0.5 is chance; 95 % bootstrap interval (an estimate)"})
		for _, t := range []struct {
			level float64
			m     mia.Metric
		}{{0.001, m.TPRAt0_1Percent}, {0.01, m.TPRAt1Percent}} {
			f.Estimates = append(f.Estimates, verdict.Estimate{Name: fmt.Sprintf("TPR at FPR %g of the deciding statistic (held-out half)", t.level), Value: t.m.Value,
				Interval: &verdict.Interval{Lower: t.m.Lower, Upper: t.m.Upper},
				Note:     fmt.Sprintf("%s; 95 %% bootstrap interval; with %d held-out retrained models the smallest FPR resolved is %.3g", orient, len(hn), 1/float64(len(hn)))})
		}
	}
	return f, nil
}

// RankCheck is the audit of fewer unlearned models than a game needs — one production
// model is the usual case — against N reference retrains: each model's pre-registered
// primary statistic, oriented so that lower means "remembers the deleted records", is
// ranked among the references' (epsilon.Ranks). A p-value at or below
// ((1 − confidence)/k − δ)/e^ε shows a violation (FAIL); nothing else decides, so the
// verdict is otherwise INCONCLUSIVE, never PASS.
//
// The p-value is the conservative one, (below + 1 + ties)/(N + 1): a function of the
// statistics alone, so that no seed moves the verdict. Randomised asks for the exact
// randomised p-value instead, its tie-breaker drawn from Seed: uniform, so it reaches the
// threshold with fewer retrains, but a verdict an edit of the seed can flip; the finding
// then says so.
type RankCheck struct {
	Check      string
	Epsilon    float64
	Delta      float64
	Confidence float64 // 0 means 0.95
	Randomised bool    // decide on the seeded randomised p-value, not the conservative one
	Seed       uint64  // for the tie-breakers, when Randomised
	// PowerAgainst is the violation the game that would decide must catch (0 means
	// DefaultPowerAgainst): an INCONCLUSIVE rank check names the models it needs.
	PowerAgainst float64
}

// Play ranks the models' statistic among the references'. ctx bounds the planner's search
// for the models an INCONCLUSIVE result names; its only error is ctx's.
func (c RankCheck) Play(ctx context.Context, primary string, models, refs []float64) (verdict.Finding, error) {
	if c.Confidence == 0 {
		c.Confidence = 0.95
	}
	if c.PowerAgainst == 0 {
		c.PowerAgainst = verdict.DefaultPowerAgainst
	}
	if err := finiteStatistics([]epsilon.Statistic{{Name: primary, Pos: models, Neg: refs}}); err != nil {
		return verdict.Finding{}, fmt.Errorf("rank check: %w", err)
	}
	var rng *rand.Rand
	if c.Randomised {
		rng = rand.New(rand.NewPCG(c.Seed, 0x72616e6b))
	}
	rt, err := epsilon.Ranks(models, refs, c.Epsilon, c.Delta, c.Confidence, rng)
	if err != nil {
		return verdict.Finding{}, fmt.Errorf("rank check: %w", err)
	}
	k, n := len(models), len(refs)
	below, ties := epsilon.RankCounts(models[rt.Worst], refs)
	pvalue := fmt.Sprintf("the conservative p-value (below + 1 + ties)/(N + 1), a function of the statistics alone (no seed enters the verdict): %d of the %d retrains below it, %d tied", below, n, ties)
	title := ""
	if c.Randomised {
		pvalue = fmt.Sprintf("the exact randomised p-value (below + U·(1 + ties))/(N + 1), U uniform drawn from the spec's seed %d (rank_p \"randomised\"): uniform under the references' law, but another seed can give another verdict; the conservative p-value, (below + 1 + ties)/(N + 1), is %.4g (%d of the %d retrains below it, %d tied)",
			c.Seed, epsilon.ConservativeRankPValue(models[rt.Worst], refs), below, n, ties)
		title = ", randomised p-value"
	}
	f := verdict.Finding{
		Check: c.Check, Kind: verdict.Empirical,
		Title:    fmt.Sprintf("rank of %d unlearned model(s) among %d retrains on the %s (one-sided: lower means the deleted records are remembered%s)", k, n, primary, title),
		Measured: rt.Min, Bound: rt.Threshold, Comparison: ">", Confidence: c.Confidence, Trials: k,
		Detail: fmt.Sprintf("the pre-registered primary statistic is the %s; model %d has the smallest rank p-value, %.4g: %s; under the claim P(p ≤ t) ≤ e^ε·t + δ, so p ≤ t = ((1 − %.3g)/%d − %.3g)/e^%.3g = %.4g shows a violation at confidence %.3g",
			primary, rt.Worst, rt.Min, pvalue, c.Confidence, k, c.Delta, c.Epsilon, rt.Threshold, c.Confidence),
	}
	need := epsilon.RanksNeeded(k, c.Epsilon, c.Delta, c.Confidence)
	// what decides is the distributional game, on at least MinEmpiricalTrials models a
	// side; the count it needs is the planner's, for the game's question
	// asked at the fewest models the game plays with (the plan command needs a count
	// the game can be played at; the count it names does not depend on it)
	q := verdict.Question{Route: "the distinguishing game over the pre-registered statistics", Epsilon: c.Epsilon, Delta: c.Delta,
		Confidence: c.Confidence, Power: verdict.PowerTarget, Trials: max(k, MinEmpiricalTrials)}
	rp, err := PlanRanks(ctx, k, n, c.Epsilon, c.Delta, c.Confidence, c.PowerAgainst)
	if err != nil {
		return verdict.Finding{}, err
	}
	f.Detail = rp.Supports() + ". The check: " + f.Detail
	switch {
	case rt.Violated:
		f.Verdict = verdict.Fail
	default:
		f.Verdict = verdict.Inconclusive
		f.Detail += fmt.Sprintf("; a rank test can show a violation but never that the claim holds: the distributional game decides, on at least %d unlearned models and as many retrains", MinEmpiricalTrials)
		if rp.GameTrials == 0 {
			f.Detail += fmt.Sprintf(", though no count up to %d a side catches a %g× violation with %.0f %% power", epsilon.MaxPlanTrials, c.PowerAgainst, 100*verdict.PowerTarget)
		} else {
			f.TrialsNeeded = rp.GameTrials
			f.Detail += fmt.Sprintf("; to catch a %g× violation with %.0f %% power it needs about %d a side (`%s` asks it)", c.PowerAgainst, 100*verdict.PowerTarget, f.TrialsNeeded, q.PlanCommand(c.PowerAgainst))
		}
		switch {
		case need == 0:
			f.Detail += fmt.Sprintf("; at δ = %.3g no number of retrains can show a violation of %d model(s) at this confidence", c.Delta, k)
		case n < need && c.Randomised:
			f.Detail += fmt.Sprintf("; with %d retrains a model below all of them reaches t only when its tie-breaker does (U ≤ t·(N + 1) = %.3g): at least %d retrains let it reach t whatever the seed", n, rt.Threshold*float64(n+1), need)
		case n < need:
			f.Detail += fmt.Sprintf("; with %d retrains even a model below all of them has p = 1/(N + 1) = %.4g > t, so no model can show a violation: supply at least %d", n, 1/float64(n+1), need)
		}
	}
	// the pre-registered direction: lower is called unlearned
	f.Scores = verdict.SummarizeScoresOriented(primary+" (lower is called unlearned, the pre-registered direction)", models, refs, false)
	return f, nil
}

// A RankPlan is what k unlearned models ranked among n retrains support (PlanRanks): the
// rank report's first line and `audit plan --models`'s answer, from the same figures. In ε
// at δ and in Gaussian-DP μ (the statistic's shift in the retrains' standard deviations).
type RankPlan struct {
	Models, Retrains                    int
	Epsilon, Delta, Confidence, Against float64
	// Threshold is the p-value at or below which a model shows the claim violated,
	// ((1 − confidence)/k − δ)/e^ε; RetrainsNeeded the fewest retrains with which a model
	// below all of them reaches it (epsilon.RanksNeeded; 0: no number can, δ too large).
	Threshold      float64
	RetrainsNeeded int
	// At Retrains: the smallest leak caught with PowerTarget (epsilon.RankSmallestMu; +Inf
	// none) and the largest ε that can be shown (epsilon.RanksMaxEpsilon; −Inf: none).
	SmallestEpsilon, SmallestMu, MaxEpsilon, MaxMu float64
	// GameTrials is what a PASS needs instead, the game's count per side against Against×
	// (epsilon.TrialsToDetect, at least MinEmpiricalTrials; 0: beyond epsilon.MaxPlanTrials).
	GameTrials int
}

// PlanRanks computes a RankPlan; n may be 0 (the retrains not yet chosen: the figures at
// Retrains are then left out). Its only error is ctx's, or a claim out of range.
func PlanRanks(ctx context.Context, k, n int, eps, delta, confidence, against float64) (RankPlan, error) {
	if k < 1 || n < 0 || !(eps >= 0) || math.IsInf(eps, 1) || !(delta >= 0 && delta < 1) || !(confidence > 0 && confidence < 1) || !(against > 1) {
		return RankPlan{}, fmt.Errorf("rank plan: %d models, %d retrains, ε %v, δ %v, confidence %v, against %v×: want k ≥ 1, n ≥ 0, ε ≥ 0 finite, δ in [0, 1), confidence in (0, 1), against > 1", k, n, eps, delta, confidence, against)
	}
	p := RankPlan{Models: k, Retrains: n, Epsilon: eps, Delta: delta, Confidence: confidence, Against: against,
		Threshold: ((1-confidence)/float64(k) - delta) / fexp.Exp(eps), RetrainsNeeded: epsilon.RanksNeeded(k, eps, delta, confidence)}
	if n > 0 {
		p.SmallestMu = epsilon.RankSmallestMu(k, n, eps, delta, confidence, verdict.PowerTarget)
		p.SmallestEpsilon = dp.GaussianExactEpsilon(p.SmallestMu, delta)
		p.MaxEpsilon = epsilon.RanksMaxEpsilon(k, n, delta, confidence)
		p.MaxMu = epsilon.GDPMu(p.MaxEpsilon, delta)
	}
	q := verdict.Question{Epsilon: eps, Delta: delta, Confidence: confidence, Power: verdict.PowerTarget}
	game, _, err := epsilon.TrialsToDetect(ctx, q.PowerSpec(against))
	if err := ctx.Err(); err != nil {
		return RankPlan{}, err
	}
	if err == nil {
		p.GameTrials = max(game, MinEmpiricalTrials)
	}
	return p, nil
}

// Supports words the plan, for the rank finding's first line: at p.Retrains, the smallest
// leak caught with 80 % power and the largest ε that can be shown; the retrains with which
// the claim can be shown violated at all; and that no number of retrains PASSes it.
func (p RankPlan) Supports() string {
	var out []string
	if p.Retrains > 0 {
		caught := fmt.Sprintf("no leak, however large, is caught with %.0f %% power", 100*verdict.PowerTarget)
		if !math.IsInf(p.SmallestMu, 1) {
			caught = fmt.Sprintf("with %.0f %% power they show ε = %g violated when the true leak is ε ≥ %.3g (μ ≥ %.3g)", 100*verdict.PowerTarget, p.Epsilon, p.SmallestEpsilon, p.SmallestMu)
		}
		most := "no ε ≥ 0 can be shown"
		if !math.IsInf(p.MaxEpsilon, -1) {
			most = fmt.Sprintf("the most they can show is ε = %.3g (μ = %.3g)", p.MaxEpsilon, p.MaxMu)
		}
		out = append(out, fmt.Sprintf("What %d model(s) among %d retrains support: %s; %s at δ = %.3g", p.Models, p.Retrains, caught, most, p.Delta))
	}
	show := fmt.Sprintf("at δ = %.3g no number of retrains can show ε = %g violated with %d model(s)", p.Delta, p.Epsilon, p.Models)
	if p.RetrainsNeeded > 0 {
		show = fmt.Sprintf("a violation of ε = %g can be shown by %d model(s) from %d retrains (a model below all of them then has p = 1/%d ≤ t = %.4g)", p.Epsilon, p.Models, p.RetrainsNeeded, p.RetrainsNeeded+1, p.Threshold)
		if p.Retrains > 0 && p.Retrains < p.RetrainsNeeded {
			show += "; these cannot show it at all"
		}
	}
	pass := fmt.Sprintf("no number of retrains PASSes it: a PASS needs the game on about %d models a side (%.0f %% power against %g×)", p.GameTrials, 100*verdict.PowerTarget, p.Against)
	if p.GameTrials == 0 {
		pass = fmt.Sprintf("no number of retrains PASSes it, nor the game on up to %d models a side (%.0f %% power against %g×)", epsilon.MaxPlanTrials, 100*verdict.PowerTarget, p.Against)
	}
	s := strings.Join(append(out, show, pass), "; ")
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:] // a first line: "At δ …", "A violation …"
}
