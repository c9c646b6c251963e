package audit_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/threshold"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit/canary"
	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/onerun"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/audit/verify"
	"github.com/unlearnaudit/unlearnaudit/mia"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
	"pgregory.net/rapid"
)

// The report-consistency property: on every verify route the library offers — per-record
// scores, parameters, parameters with the data, one model ranked among retrains,
// references (U-LiRA), one model against held-out records, one run with canaries — the
// figures of a finding agree with one another and with its verdict:
//
//   - a split game's bound is the held-out counts' (epsilon.LowerBound of the counts its
//     HeldOut states, to the bit), those counts are the ones the Detail states, and the
//     rule's held-out TPR and FPR printed beside it are those counts' rates;
//   - an ε lower bound never exceeds the resolution the finding states (the bound at no
//     false positive and no false negative, recomputed here);
//   - the deciding statistic's AUC and TPR at FPR are the held-out half's in the rule's
//     direction: the AUC is at least TPR·(1 − FPR) of the rule's held-out point (the least
//     area of any ROC through it) and the TPR at FPR x at least the rule's TPR when its FPR
//     is at most x; a FAIL's rule has TPR > FPR and, in the generator's range, AUC ≥ ½
//     (TestFailPointsLieAboveHalfArea); with one record the AUC is recomputed from the
//     scores' held-out halves;
//   - the power, the smallest violation caught and the trials needed are `audit plan`'s
//     answers (epsilon.SplitGamePower, SmallestDetectableFactor, TrialsToDetect) to the
//     question the finding prints;
//   - the rank check FAILs exactly when its p-value is at most the threshold it states;
//     the holdout's TPRs are its stated counts' rates; a one-run bound is at most what the
//     run could show at best and FAILs exactly above 2ε.
//
// Planted bugs each invariant was seen to catch (each planted by hand, run, seen to fail,
// reverted): the AUC and TPR at FPR computed without the rule's direction (a "≤" FAIL's
// AUC below TPR·(1 − FPR)); computed on all the models (the one-record AUC differs); the
// false positives and negatives swapped in HeldOut (the bound is not the counts'); the
// resolution stated at the smaller side's MaxCertifiable (above the counts' with unequal
// sides); the power simulated at nu + nr models while the question states min(nu, nr);
// the rank threshold without e^ε; a one-run finding's best case at the excluded canaries.
//
// Generation is cheap (tens of models, a few records, the tabled questions of
// plantable.json), so the default 100 checks take seconds.
func TestReportConsistency(t *testing.T) {
	seen := map[string]int{}                     // route and verdict, and the direction of a game's rule
	defer func() { t.Logf("cases: %v", seen) }() // TestReportConsistencyCases meets each for sure
	rapid.Check(t, func(t *rapid.T) {
		c := consistencyCase{
			route: rapid.SampledFrom([]string{"scores", "parameters", "parameters with data", "one model", "references", "holdout", "one-run"}).Draw(t, "route"),
			// claims of ε = 1 against 2× at 95 %: questions plantable.json answers, so that a
			// trials-needed costs no search
			delta:       rapid.SampledFrom([]float64{1e-3, 1e-5}).Draw(t, "delta"),
			confidences: rapid.Bool().Draw(t, "confidences"),
			specSeed:    rapid.Uint64().Draw(t, "spec seed"),
			seed:        rapid.Uint64().Draw(t, "seed"),
			// the leak: unlearned models' values moved by shift, up or down, so that rules
			// decide in both directions; 0 is an honest pair
			shift: rapid.SampledFrom([]float64{0, 0.5, 2, 20}).Draw(t, "shift"),
			nu:    rapid.IntRange(checks.MinEmpiricalTrials, 48).Draw(t, "unlearned"),
			k:     rapid.IntRange(1, 4).Draw(t, "records"),
		}
		if rapid.Bool().Draw(t, "down") {
			c.shift = -c.shift
		}
		c.nr = c.nu
		if rapid.Bool().Draw(t, "unequal sides") {
			c.nr = rapid.IntRange(checks.MinEmpiricalTrials, 48).Draw(t, "retrained")
		}
		switch c.route {
		case "references":
			c.m = rapid.IntRange(4, 16).Draw(t, "references")
		case "one model": // up to 80 retrains: from 55, one model below them all FAILs at δ = 1e-3
			c.nu = rapid.IntRange(1, checks.MinEmpiricalTrials-1).Draw(t, "production models")
			c.nr = rapid.IntRange(checks.MinEmpiricalTrials, 80).Draw(t, "retrains")
		case "holdout":
			c.m = rapid.IntRange(2, 300).Draw(t, "held-out records")
		case "one-run":
			c.m = rapid.IntRange(8, 200).Draw(t, "canaries")
		}
		seen[c.run(t)]++
	})
}

// TestReportConsistencyCases runs the property's checks on cases it meets only by chance:
// FAILs decided in each direction on every game route, a rank FAIL, a one-run FAIL.
func TestReportConsistencyCases(t *testing.T) {
	for _, c := range []struct {
		c    consistencyCase
		want string
	}{
		{consistencyCase{route: "scores", shift: 20, nu: 32, nr: 32, k: 1, delta: 1e-3}, "scores FAIL ≥"},
		{consistencyCase{route: "scores", shift: -20, nu: 32, nr: 40, k: 1, delta: 1e-3}, "scores FAIL ≤"},
		{consistencyCase{route: "scores", shift: -20, nu: 40, nr: 32, k: 3, delta: 1e-5, confidences: true}, "scores FAIL ≤"},
		{consistencyCase{route: "scores", nu: 24, nr: 24, k: 2, delta: 1e-3}, "scores INCONCLUSIVE"},
		{consistencyCase{route: "parameters", shift: -20, nu: 32, nr: 32, k: 2, delta: 1e-3}, "parameters FAIL"},
		{consistencyCase{route: "parameters with data", shift: 20, nu: 32, nr: 32, delta: 1e-3}, "parameters with data FAIL"},
		{consistencyCase{route: "references", shift: 20, nu: 32, nr: 32, k: 2, m: 8, delta: 1e-3}, "references FAIL"},
		{consistencyCase{route: "one model", shift: -20, nu: 1, nr: 80, k: 2, delta: 1e-3}, "one model FAIL"},
		{consistencyCase{route: "one model", nu: 3, nr: 20, k: 2, delta: 1e-3}, "one model INCONCLUSIVE"},
		{consistencyCase{route: "holdout", shift: 2, k: 3, m: 50, delta: 1e-3}, "holdout INCONCLUSIVE"},
		{consistencyCase{route: "one-run", shift: 20, m: 200, delta: 1e-5}, "one-run FAIL"},
	} {
		for seed := range uint64(3) {
			c.c.seed, c.c.specSeed = seed, seed
			if got := c.c.run(t); !strings.HasPrefix(got, c.want) {
				t.Errorf("%+v: %s; want %s", c.c, got, c.want)
			}
		}
	}
}

// consistencyCase is one case of the property: a route, its claim's δ, and what is drawn.
type consistencyCase struct {
	route       string
	delta       float64
	confidences bool // the scores are confidences (else losses)
	specSeed    uint64
	seed        uint64 // the draws'
	shift       float64
	nu, nr, k   int // unlearned and retrained models (or the production models and the retrains), records
	m           int // references, held-out records or canaries
}

// run draws the case's inputs, runs its route and checks the finding's figures; it returns
// the route, the verdict and, for a game, the direction of the rule that decided.
func (c consistencyCase) run(t fataler) string {
	ctx := context.Background()
	s := &spec.Spec{Epsilon: 1, Delta: c.delta, Confidence: 0.95, PowerAgainst: 2, Seed: c.specSeed}
	if c.confidences {
		s.Scores = checks.ConfidenceScores
	}
	rng := rand.New(rand.NewPCG(c.seed, 7))
	draw := func(n, d int, shift float64) *mat.Dense {
		m := mat.NewDense(n, d, nil)
		for i := range n {
			for j := range d {
				m.Set(i, j, shift+rng.NormFloat64())
			}
		}
		return m
	}
	var fs []verdict.Finding
	var err error
	var u, r *mat.Dense // one record's scores, for the AUC's recomputation
	switch c.route {
	case "scores", "references":
		u, r = draw(c.nu, c.k, c.shift), draw(c.nr, c.k, 0)
		if c.route == "references" {
			s.References = &checks.References{Scores: mat.NewDense(2*c.m, c.k, nil), In: make([][]bool, 2*c.m)}
			for i := range 2 * c.m {
				s.References.In[i] = make([]bool, c.k)
				for j := range c.k {
					in := i%2 == 0
					s.References.In[i][j] = in
					v := rng.NormFloat64()
					if in {
						v += c.shift
					}
					s.References.Scores.Set(i, j, v)
				}
			}
		}
		_, fs, err = verify.VerifyScores(ctx, u, r, s)
		if c.route == "references" {
			u = nil // the deciding statistic is not one record's score
		}
	case "parameters":
		_, fs, err = verify.VerifySamples(ctx, draw(c.nu, c.k+1, c.shift), draw(c.nr, c.k+1, 0), s)
	case "parameters with data":
		var recs []reference.Record
		for i := range 6 {
			recs = append(recs, reference.Record{ID: int64(100 + i), X: []float64{rng.NormFloat64(), rng.NormFloat64()}, Y: float64(2*(i%2) - 1)})
		}
		ds, err := reference.FromRecords(2, recs)
		if err != nil {
			t.Fatalf("%v", err)
		}
		s.Deletes = []int64{100, 101, 102}
		_, fs, err = verify.VerifyModels(ctx, draw(c.nu, 2, c.shift), draw(c.nr, 2, 0), ds, s)
		if err != nil {
			t.Fatalf("%s: %v", c.route, err)
		}
	case "one model":
		_, fs, err = verify.VerifyScores(ctx, draw(c.nu, c.k, c.shift), draw(c.nr, c.k, 0), s)
	case "holdout":
		forget, hold := make([]float64, c.k*4), make([]float64, c.m)
		ids := make([]int64, len(forget))
		for i := range forget {
			forget[i], ids[i] = c.shift+rng.NormFloat64(), int64(i)
		}
		for i := range hold {
			hold[i] = rng.NormFloat64()
		}
		var f verdict.Finding
		f, err = checks.HoldoutMembership(forget, hold, ids, 0.95, s.Seed)
		fs = []verdict.Finding{f}
	case "one-run":
		plan, member := make([]bool, c.m), make([]float64, c.m)
		for i := range plan {
			plan[i] = rng.IntN(2) == 0
			member[i] = rng.NormFloat64()
			if plan[i] {
				member[i] += math.Abs(c.shift)
			}
		}
		plan[0], plan[1] = true, false // both kinds
		var f verdict.Finding
		f, err = canary.OneRunFinding("t", plan, member, s.Epsilon, s.Delta, 0.95)
		fs = []verdict.Finding{f}
		if err == nil {
			checkOneRun(t, f, plan, member, s)
		}
	}
	if err != nil {
		t.Fatalf("%s: %v", c.route, err)
	}
	// the references route measures the references' deletion against the audited one
	// beside its game: a measurement with no verdict and no deciding statistic
	var decided []verdict.Finding
	for _, f := range fs {
		if c.route != "references" || f.Kind != verdict.Measurement {
			decided = append(decided, f)
		}
	}
	if len(decided) != 1 {
		t.Fatalf("%s: %d findings", c.route, len(decided))
	}
	f := decided[0]
	key := c.route + " " + string(f.Verdict)
	if f.HeldOut != nil {
		key += map[bool]string{true: " ≥", false: " ≤"}[f.HeldOut.Above]
		checkHeldOut(t, f, s)
		if u != nil && c.k == 1 {
			checkOneRecordAUC(t, f, u, r)
		}
	} else if c.route != "holdout" && c.route != "one-run" && c.route != "one model" {
		t.Fatalf("%s: a game's finding without its held-out counts", c.route)
	}
	switch c.route {
	case "one model":
		checkRank(t, ctx, f, s)
	case "holdout":
		checkHoldout(t, f)
	case "one-run":
	default:
		checkPower(t, ctx, f, min(c.nu, c.nr))
	}
	return key
}

// fataler is what the checks need of a *testing.T or a *rapid.T.
type fataler interface {
	Fatalf(format string, args ...any)
}

// estimate is the finding's estimate whose name starts with prefix.
func estimate(f verdict.Finding, prefix string) (verdict.Estimate, bool) {
	for _, e := range f.Estimates {
		if strings.HasPrefix(e.Name, prefix) {
			return e, true
		}
	}
	return verdict.Estimate{}, false
}

// checkHeldOut: the bound, counts, rates, resolution and the deciding statistic's figures
// of a split game's finding agree.
func checkHeldOut(t fataler, f verdict.Finding, s *spec.Spec) {
	h := f.HeldOut
	conf := f.Power.Question.Confidence // each test's, after the route's correction
	c := h.Counts()
	if b := epsilon.LowerBound(c, s.Delta, 1-conf); math.Float64bits(b) != math.Float64bits(f.Measured) {
		t.Fatalf("the bound %v is not the held-out counts' %+v: %v", f.Measured, c, b)
	}
	if want := fmt.Sprintf("%d false positives, %d false negatives", h.FalsePositives, h.FalseNegatives); !strings.Contains(f.Detail, want) {
		t.Fatalf("the detail does not state the held-out counts (%q): %s", want, f.Detail)
	}
	res := epsilon.LowerBound(epsilon.Counts{TP: c.Pos, Pos: c.Pos, Neg: c.Neg}, s.Delta, 1-conf)
	if math.Float64bits(res) != math.Float64bits(h.Resolution) || f.Measured > h.Resolution {
		t.Fatalf("ε ≥ %v against the stated resolution %v; the counts' is %v", f.Measured, h.Resolution, res)
	}
	if c.Pos == c.Neg && h.Resolution != epsilon.MaxCertifiable(2*c.Pos, s.Delta, conf, threshold.Split) {
		t.Fatalf("resolution %v is not MaxCertifiable's", h.Resolution)
	}
	tpr, fpr := float64(c.TP)/float64(c.Pos), float64(c.FP)/float64(c.Neg)
	et, ok1 := estimate(f, "held-out TPR of the deciding rule")
	ef, ok2 := estimate(f, "held-out FPR of the deciding rule")
	if !ok1 || !ok2 || et.Value != tpr || ef.Value != fpr {
		t.Fatalf("held-out rates %v and %v printed; the counts give %v and %v", et.Value, ef.Value, tpr, fpr)
	}
	if f.Verdict == verdict.Fail && !(tpr > fpr) {
		t.Fatalf("a FAIL whose rule's held-out TPR %v is not above its FPR %v", tpr, fpr)
	}
	auc, ok := estimate(f, "AUC of the deciding statistic")
	if !ok {
		t.Fatalf("no AUC of the deciding statistic: %v", f.Estimates)
	}
	if !strings.Contains(auc.Name, "held-out") || !strings.Contains(auc.Note, "direction of the rule that decided") {
		t.Fatalf("the AUC does not say it is the held-out half's, in the rule's direction: %s: %s", auc.Name, auc.Note)
	}
	// any ROC through the rule's point (fpr, tpr) lies at or above tpr from fpr on
	if floor := tpr * (1 - fpr); auc.Value < floor-1e-12 {
		t.Fatalf("AUC %v below %v, the least area of a ROC through the rule's held-out point (%v, %v): not the rule's direction", auc.Value, floor, fpr, tpr)
	}
	if f.Verdict == verdict.Fail && auc.Value < 0.5 {
		t.Fatalf("a FAIL prints AUC %v for its deciding statistic", auc.Value)
	}
	for _, level := range []float64{0.001, 0.01} {
		e, ok := estimate(f, fmt.Sprintf("TPR at FPR %g of the deciding statistic", level))
		if !ok {
			t.Fatalf("no TPR at FPR %g", level)
		}
		if fpr <= level && e.Value < tpr {
			t.Fatalf("TPR at FPR %g is %v, below the deciding rule's held-out TPR %v at FPR %v", level, e.Value, tpr, fpr)
		}
	}
}

// checkOneRecordAUC: with one record the deciding statistic (the mean or the median of one
// score) is the score itself, so its AUC is recomputed from the held-out halves, oriented
// by the rule.
func checkOneRecordAUC(t fataler, f verdict.Finding, u, r *mat.Dense) {
	nu, _ := u.Dims()
	nr, _ := r.Dims()
	pos, neg := mat.Col(nil, 0, u)[nu/2:], mat.Col(nil, 0, r)[nr/2:]
	if !f.HeldOut.Above {
		for i := range pos {
			pos[i] = -pos[i]
		}
		for i := range neg {
			neg[i] = -neg[i]
		}
	}
	e, _ := estimate(f, "AUC of the deciding statistic")
	if want := mia.AUC(pos, neg); e.Value != want {
		t.Fatalf("AUC %v printed; the held-out halves in the rule's direction (%s) give %v", e.Value, f.HeldOut.Rule, want)
	}
}

// checkPower: the power, smallest factor and trials needed are the planner's answers to
// the printed question.
func checkPower(t fataler, ctx context.Context, f verdict.Finding, n int) {
	p := f.Power
	if p == nil || p.Question == nil {
		t.Fatalf("no power or question")
	}
	q := p.Question
	if q.Trials != n || f.Trials != n {
		t.Fatalf("the question asks about %d trials, the finding had %d; want %d (the smaller side)", q.Trials, f.Trials, n)
	}
	spec := q.PowerSpec(p.Against)
	// what `audit plan` computes for the question (cmd/audit/plan.go asks these)
	want, err := epsilon.SplitGamePower(ctx, q.Trials, spec)
	if err != nil {
		t.Fatalf("%v", err)
	}
	smallest, err := epsilon.SmallestDetectableFactor(ctx, q.Trials, spec)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if p.Power != want.Power || p.StdErr != want.StdErr || p.SmallestFactor != smallest {
		t.Fatalf("power %v ± %v, smallest %v×; the planner says %v ± %v, %v× for %+v", p.Power, p.StdErr, p.SmallestFactor, want.Power, want.StdErr, smallest, spec)
	}
	if f.Verdict != verdict.Inconclusive {
		if f.TrialsNeeded != 0 {
			t.Fatalf("%s with %d trials needed", f.Verdict, f.TrialsNeeded)
		}
		return
	}
	need, _, err := epsilon.TrialsToDetect(ctx, spec)
	if err != nil {
		need = 0
	}
	if f.TrialsNeeded != need || p.TrialsNeeded != need {
		t.Fatalf("INCONCLUSIVE needing %d (power says %d); `audit plan` answers %d", f.TrialsNeeded, p.TrialsNeeded, need)
	}
}

// checkRank: the rank check's verdict is its p-value against the threshold it states, and
// an INCONCLUSIVE names the game's count.
func checkRank(t fataler, ctx context.Context, f verdict.Finding, s *spec.Spec) {
	k := f.Trials
	if want := ((1-s.Confidence)/float64(k) - s.Delta) / math.Exp(s.Epsilon); f.Bound != want {
		t.Fatalf("threshold %v; ((1 − c)/k − δ)/e^ε = %v", f.Bound, want)
	}
	if fail := f.Bound > 0 && f.Measured <= f.Bound; fail != (f.Verdict == verdict.Fail) || f.Verdict == verdict.Pass {
		t.Fatalf("%s with p = %v against t = %v", f.Verdict, f.Measured, f.Bound)
	}
	if f.Verdict == verdict.Inconclusive {
		spec := epsilon.PowerSpec{Claim: s.Epsilon, Factor: s.PowerAgainst, Power: verdict.PowerTarget, Delta: s.Delta, Conf: s.Confidence}
		need, _, err := epsilon.TrialsToDetect(ctx, spec)
		if err == nil && f.TrialsNeeded != max(need, checks.MinEmpiricalTrials) {
			t.Fatalf("INCONCLUSIVE needing %d; `audit plan` answers %d", f.TrialsNeeded, need)
		}
	}
}

// checkHoldout: the holdout's TPRs are its stated counts' rates, within their levels.
func checkHoldout(t fataler, f verdict.Finding) {
	ms := f.Membership
	if f.Verdict != verdict.Inconclusive || ms == nil || len(ms.TPR) == 0 {
		t.Fatalf("holdout: %s, %+v", f.Verdict, ms)
	}
	for _, r := range ms.TPR {
		if r.TPR != float64(r.TP)/float64(ms.Forget) || float64(r.FP) > r.FPR*float64(ms.Holdout)+1e-9 {
			t.Fatalf("holdout: TPR %v at FPR %v from %d of %d and %d of %d", r.TPR, r.FPR, r.TP, ms.Forget, r.FP, ms.Holdout)
		}
	}
	if !(f.Measured >= 0 && f.Measured <= 1) {
		t.Fatalf("holdout AUC %v", f.Measured)
	}
}

// checkOneRun: a one-run bound is at most the run's best case, and FAILs exactly above 2ε.
func checkOneRun(t fataler, f verdict.Finding, plan []bool, member []float64, s *spec.Spec) {
	in, _, err := onerun.SplitScores(plan, member)
	if err != nil {
		t.Fatalf("%v", err)
	}
	eps2, delta2 := onerun.UnlearningTarget(s.Epsilon, s.Delta)
	best, err := onerun.Epsilon(len(plan), len(in), len(in), 0.05, delta2)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if f.Measured > best || !strings.Contains(f.Detail, fmt.Sprintf("could show ε ≥ %.3g", best)) {
		t.Fatalf("one-run: ε ≥ %v, the run's best %v: %s", f.Measured, best, f.Detail)
	}
	if (f.Measured > eps2) != (f.Verdict == verdict.Fail) {
		t.Fatalf("one-run: %s with ε ≥ %v against 2ε = %v", f.Verdict, f.Measured, eps2)
	}
	if e, ok := estimate(f, "AUROC"); !ok || e.Value < 0.5 {
		t.Fatalf("one-run: convex-hull AUROC %v below ½", e.Value)
	}
}

// TestFailPointsLieAboveHalfArea is the theorem behind the consistency property's "a FAIL
// prints AUC ≥ ½": on held-out halves of at most 24 models a side (the property's 48), a
// rule whose held-out counts bound ε above 1 at 95 % (δ ≤ 1e-3) has TPR·(1 − FPR) ≥ ½,
// and every ROC through its point has at least that area. Checked over every count pair.
// (It does not hold at every size: with hundreds of models a rule with TPR 0.3 and FPR 0.05
// can bound ε above 1, and a bimodal statistic's AUC can then be below ½.)
func TestFailPointsLieAboveHalfArea(t *testing.T) {
	least, checked := math.Inf(1), 0
	for _, delta := range []float64{1e-3, 1e-5} {
		for np := 4; np <= 24; np++ {
			for nn := 4; nn <= 24; nn++ {
				for fp := 0; fp <= nn; fp++ {
					for fn := 0; fn <= np; fn++ {
						c := epsilon.Counts{TP: np - fn, Pos: np, FP: fp, Neg: nn}
						if epsilon.LowerBound(c, delta, 0.05) <= 1 {
							continue
						}
						checked++
						least = min(least, float64(np-fn)/float64(np)*(1-float64(fp)/float64(nn)))
					}
				}
			}
		}
	}
	if checked == 0 || least < 0.5 {
		t.Fatalf("%d failing count pairs, the least TPR·(1 − FPR) %v", checked, least)
	}
	t.Logf("%d count pairs bound ε above 1; the least TPR·(1 − FPR) among them is %.3f", checked, least)
}
