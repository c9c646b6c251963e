package audit

import (
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// VerifySamples audits models trained elsewhere against a spec's claim: unlearned and
// retrained are N × d samples, one published model a row (artifact.LoadSample reads them
// from disk). Without the method's state the evidence is the published models alone, so
// the claim requires the empirical checks (Claim.Required): the distinguishing game on the
// models, with its power against PowerAgainst × the claimed ε, and the estimates beside it.
// What the sample can support is said, not assumed: fewer than MinEmpiricalTrials models a
// side is an error naming how many the game needs.
func VerifySamples(unlearned, retrained *mat.Dense, s *Spec) (Claim, []Finding, error) {
	nu, _, err := paired(unlearned, retrained, "verify", "have %d parameters")
	if err != nil {
		return Claim{}, nil, err
	}
	if nu < MinEmpiricalTrials {
		return Claim{}, nil, fmt.Errorf("verify: %d model(s) a side; the distributional game needs at least %d a side (and, to catch a %g× violation with 80 %% power, many more: audit plan says how many). One model a side supports only per-example attacks, on per-example scores",
			nu, MinEmpiricalTrials, s.PowerAgainst)
	}
	claim := Claim{
		Method:    s.Method.Name() + " (models trained elsewhere)",
		Source:    "declared in the audit spec",
		Guarantee: "(ε, δ)-unlearning",
		Epsilon:   s.Epsilon, Delta: s.Delta,
		Relation: "the law of the published models after the deletions vs of models retrained without the deleted records",
		Assumptions: []string{
			"the unlearned and retrained models are independent runs of the declared procedure with fresh randomness",
			"the models given are all the runs made (none selected after the fact)",
		},
		Required: []Kind{Empirical},
	}
	results := make([]TrialResult, nu)
	for i := range nu {
		results[i] = TrialResult{Index: i, Unlearned: releaseOf(unlearned.RawRowView(i)), Retrained: releaseOf(retrained.RawRowView(i))}
	}
	f, err := EmpiricalRelease{Prefix: "verify", Epsilon: s.Epsilon, Delta: s.Delta, Confidence: s.Confidence,
		Seed: s.Seed, PowerAgainst: s.PowerAgainst}.Check(results)
	if err != nil {
		return Claim{}, nil, fmt.Errorf("verify: %w", err)
	}
	return claim, []Finding{f}, nil
}

// paired checks that two samples, one model a row, pair trial by trial: as many models of
// as many columns (what a column is, e.g. "have %d parameters", names it in the error).
func paired(unlearned, retrained *mat.Dense, op, columns string) (n, d int, err error) {
	nu, du := unlearned.Dims()
	nr, dr := retrained.Dims()
	if du != dr {
		return 0, 0, fmt.Errorf("%s: unlearned models "+columns+", retrained ones %d", op, du, dr)
	}
	if nu != nr {
		return 0, 0, fmt.Errorf("%s: %d unlearned and %d retrained models; trials pair them, so supply as many of each", op, nu, nr)
	}
	return nu, du, nil
}

func releaseOf(published []float64) reference.Release { return reference.Release{Published: published} }

// VerifyScores audits per-example scores — the route for models whose parameters are too
// many to compare (deep networks), as the NeurIPS 2023 unlearning competition collects
// them: unlearned and retrained are N × k matrices, one row per model, one column per
// example (a loss, logit or confidence on a forget-set or held-out example). Each example
// is a distinguishing game on its column (epsilon.Game.PerExample, Bonferroni over the k
// examples); the largest ε lower bound decides against the claim, and the power is that of
// one example's game at the corrected confidence.
func VerifyScores(unlearned, retrained *mat.Dense, s *Spec) (Claim, []Finding, error) {
	return verifyScores(unlearned, retrained, s, "score on example")
}

// verifyScores is VerifyScores with the plots' name of a column ("score on example").
func verifyScores(unlearned, retrained *mat.Dense, s *Spec, column string) (Claim, []Finding, error) {
	nu, ku, err := paired(unlearned, retrained, "verify", "score %d examples")
	if err != nil {
		return Claim{}, nil, err
	}
	if nu < MinEmpiricalTrials {
		return Claim{}, nil, fmt.Errorf("verify: scores of %d model(s) a side; each example's game needs at least %d a side", nu, MinEmpiricalTrials)
	}
	claim := Claim{
		Method: s.Method.Name() + " (models trained elsewhere, per-example scores)", Source: "declared in the audit spec",
		Guarantee: "(ε, δ)-unlearning", Epsilon: s.Epsilon, Delta: s.Delta,
		Relation: "the law of each example's score under unlearned models vs under models retrained without the deleted records",
		Assumptions: []string{
			"the models are independent runs with fresh randomness, none selected after the fact",
			"a score is a function of the published model (post-processing), so a bound on it is a bound on the models",
		},
		Required: []Kind{Empirical},
	}
	game := epsilon.Game{Delta: s.Delta, Confidence: s.Confidence, Strategy: epsilon.Split}
	pe, err := game.PerExample(unlearned, retrained)
	if err != nil {
		return Claim{}, nil, fmt.Errorf("verify: %w", err)
	}
	worst := 0
	for j, e := range pe.Examples {
		if e.Result.Epsilon > pe.Examples[worst].Result.Epsilon {
			worst = j
		}
	}
	best := pe.Examples[worst].Result
	f := Finding{
		Check: "verify/empirical/per-example-epsilon", Kind: Empirical,
		Title:    fmt.Sprintf("largest ε lower bound of the %d per-example games on the scores at δ = %.3g", ku, s.Delta),
		Measured: pe.Epsilon, Interval: &Interval{Lower: pe.Epsilon, Upper: math.Inf(1)},
		Bound: s.Epsilon, Comparison: "≤", Confidence: s.Confidence, Trials: nu,
		Detail: fmt.Sprintf("example %d decides (%d false positives, %d false negatives on the held-out half); each example's game at confidence %.4g (Bonferroni over %d); the games can show at most ε = %.3g with these models",
			worst, best.Counts.FP, best.Counts.Pos-best.Counts.TP, pe.PerExampleConfidence, ku, pe.Resolution),
	}
	spec := epsilon.PowerSpec{Claim: s.Epsilon, Factor: s.PowerAgainst, Power: PowerTarget, Delta: s.Delta, Conf: pe.PerExampleConfidence}
	if f.Power, err = powerOf(nu, spec); err != nil {
		return Claim{}, nil, fmt.Errorf("verify: %w", err)
	}
	decide(&f, spec)
	f.Scores = SummarizeScores(fmt.Sprintf("%s %d", column, worst), mat.Col(nil, worst, unlearned), mat.Col(nil, worst, retrained))
	return claim, []Finding{f}, nil
}
