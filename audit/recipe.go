package audit

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/internal/par"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// A Recipe is a spec's training procedure on its data: the toolkit's own implementation
// of the declared method and variant, serving exactly the spec's deletions on all of the
// data. Its subject's Retrained publishes what retraining without the deleted records
// gives, which is what `audit verify` compares models trained elsewhere with when no
// retrained models are supplied.
type Recipe struct {
	Setup   DemoSetup
	Audited Audited
}

// NewRecipe builds the recipe of s on ds (the spec's data, read and preprocessed). The
// spec must name its deletions and select exactly one variant of its method: a recipe is
// one training procedure.
func NewRecipe(s *Spec, ds *reference.Dataset) (*Recipe, error) {
	if len(s.Deletes) == 0 {
		return nil, fmt.Errorf("recipe: deletes: none named; retraining without the deleted records needs their IDs")
	}
	if s.Intercept {
		return nil, fmt.Errorf("recipe: model.intercept: the toolkit's methods fit no intercept, so its retrains cannot stand in for these models; supply --retrained models")
	}
	if len(s.Variants) != 1 {
		var names []string
		for _, v := range s.Method.DemoVariants() {
			names = append(names, v.Name)
		}
		return nil, fmt.Errorf("recipe: method.variants: %d selected; a recipe is one training procedure, name one of %s", len(s.Variants), strings.Join(names, ", "))
	}
	setup, err := NewDemoSetup(ds, DemoConfig{Deletes: s.Deletes, Lambda: s.Lambda, Epsilon: s.Epsilon, Delta: s.Delta,
		Seed: s.Seed, Confidence: s.Confidence, PowerAgainst: s.PowerAgainst, DeletesOnly: true})
	if err != nil {
		return nil, fmt.Errorf("recipe: %w", err)
	}
	args := DefaultArgs(s.Method.DemoParams())
	args.Merge(s.Params)
	got, err := s.Method.Demo(setup, s.Variants, args)
	if err != nil {
		return nil, fmt.Errorf("recipe: %s: %w", s.Method.Name(), err)
	}
	if len(got) != 1 {
		return nil, fmt.Errorf("recipe: %s gave %d subjects for variant %s, want 1", s.Method.Name(), len(got), s.Variants[0])
	}
	return &Recipe{Setup: setup, Audited: got[0]}, nil
}

// retrainSeedSalt keeps a recipe's retrains apart from every trial's streams: verify's
// retrains are fresh runs, not the retrained side of some audit's trials.
const retrainSeedSalt = 0x7265747261696e // "retrain"

// Retrain publishes n models retrained from scratch without the deleted records, on
// workers goroutines (0: one per core); model i draws its randomness from trial i of a
// seed derived from seed, so the sample is the same for any number of workers.
func (r *Recipe) Retrain(ctx context.Context, seed uint64, n, workers int) (*mat.Dense, error) {
	if n < 1 {
		return nil, fmt.Errorf("recipe: retrain %d models; want at least 1", n)
	}
	rows := make([][]float64, n)
	sub := r.Audited.Subject
	err := par.Do(ctx, n, workers, func(i int) error {
		rel, err := sub.Retrained(ctx, reference.Streams{Seed: seed ^ retrainSeedSalt, Trial: i})
		if err != nil {
			return fmt.Errorf("recipe: retrain %d of %s: %w", i, sub.Name(), err)
		}
		rows[i] = rel.Published
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := mat.NewDense(n, len(rows[0]), nil)
	for i, row := range rows {
		if len(row) != len(rows[0]) {
			return nil, fmt.Errorf("recipe: retrain %d has %d parameters, retrain 0 has %d", i, len(row), len(rows[0]))
		}
		out.SetRow(i, row)
	}
	return out, nil
}

// maxRecipeRetrains bounds the retrains the one-model check asks for.
const maxRecipeRetrains = 100_000

// OneModelRetrains is how many retrains the one-model check needs to be able to show a
// violation at all: its smallest p-value, 1/(M+1), must reach the rejection threshold
// (OneModelThreshold). At least trials; 0 when no number of retrains can (δ too large for
// the confidence and the number of deleted records).
func OneModelRetrains(s *Spec, deleted, trials int) int {
	t := OneModelThreshold(s, deleted)
	if t <= 0 {
		return 0
	}
	m := int(math.Ceil(4 / t)) // twice the least (two-sided: 2/(M+1) ≤ t), so the check catches more than the extreme
	return min(max(m, trials), maxRecipeRetrains)
}

// OneModelThreshold is the p-value at or below which the one-model check rejects the
// claim: under (ε, δ)-unlearning a rank p-value of the published model's score among
// independent retrains has P(p ≤ t) ≤ e^ε·t + δ (the event is post-processing of the
// published model, and P(p ≤ t) ≤ t for a retrain), so with k deleted records and
// Bonferroni, t = ((1 − confidence)/k − δ)/e^ε keeps the false-failure probability below
// 1 − confidence. It is ≤ 0 when δ alone exceeds the per-record level.
func OneModelThreshold(s *Spec, deleted int) float64 {
	return ((1-s.Confidence)/float64(deleted) - s.Delta) / math.Exp(s.Epsilon)
}

// VerifyOneModel is what one published model supports: a per-example attack on each
// deleted record. The score is the model's loss on the record, ranked among the losses of
// the M retrained models on it, two-sided: p = 2·min(1 + #{retrains at or below},
// 1 + #{retrains at or above})/(M+1), small when the model fits the deleted record better
// than retraining does (it remembers it) or worse than any retrain would (it is not what
// the recipe gives). A p at or below OneModelThreshold shows a violation (FAIL); anything
// else is INCONCLUSIVE, never PASS: one model cannot bound the law it was drawn from, and
// the finding says so.
func VerifyOneModel(model []float64, retrained *mat.Dense, r *Recipe, s *Spec) (Claim, []Finding, error) {
	m, d := retrained.Dims()
	if len(model) != d {
		return Claim{}, nil, fmt.Errorf("verify: the model has %d parameters, the recipe's retrains %d (%s on %d features)", len(model), d, r.Audited.Subject.Name(), r.Setup.All.Dim())
	}
	all, deleted := r.Setup.All, r.Setup.Deletions
	k := len(deleted)
	t := OneModelThreshold(s, k)
	loss := reference.Logistic{Lambda: r.Setup.Lambda}
	worst, p, worstScore, worstBelow := -1, math.Inf(1), 0.0, 0
	losses, worstLosses := make([]float64, m), make([]float64, m) // the retrains' losses on a record, and on the deciding one
	for j, id := range deleted {
		row, ok := all.Lookup(id)
		if !ok {
			return Claim{}, nil, fmt.Errorf("verify: deleted record %d is not in the data", id)
		}
		rec := all.Record(row)
		score := loss.ExampleLoss(model, rec.X, rec.Y)
		below, above := 0, 0
		for i := range m {
			r := loss.ExampleLoss(retrained.RawRowView(i), rec.X, rec.Y)
			losses[i] = r
			switch {
			case r < score:
				below++
			case r > score:
				above++
			default:
				below++
				above++
			}
		}
		// the model itself counts on both sides, so ties never make p small
		pj := math.Min(1, 2*float64(1+min(below, above))/float64(m+1))
		if pj < p {
			worst, p, worstScore, worstBelow = j, pj, score, below
			losses, worstLosses = worstLosses, losses
		}
	}
	claim := Claim{
		Method: s.Method.Name() + " (one model trained elsewhere)", Source: "declared in the audit spec",
		Guarantee: "(ε, δ)-unlearning", Epsilon: s.Epsilon, Delta: s.Delta,
		Relation: "the law of the published model after the deletions vs of models retrained without the deleted records",
		Assumptions: []string{
			"the model was trained and unlearned by the spec's recipe (" + r.Audited.Subject.Name() + "), which the toolkit retrains",
			"the model was not selected among several runs after the fact",
		},
		Required: []Kind{Empirical},
	}
	f := Finding{
		Check: "verify/empirical/one-model-membership", Kind: Empirical,
		Title:    fmt.Sprintf("per-example attack on the %d deleted records: two-sided rank p-value of the model's loss among %d retrains", k, m),
		Measured: p, Bound: t, Comparison: ">", Confidence: s.Confidence, Trials: 1,
		Detail: fmt.Sprintf("record %d decides (loss %.4g; %d of %d retrains fit it better); under the claim P(p ≤ t) ≤ e^ε·t + δ, so p ≤ %.3g for any of the %d records shows a violation at confidence %.3g",
			deleted[worst], worstScore, worstBelow, m, t, k, s.Confidence),
	}
	switch {
	case t > 0 && p <= t:
		f.Verdict = Fail
	default:
		f.Verdict = Inconclusive
		f.TrialsNeeded = MinEmpiricalTrials
		f.Detail += fmt.Sprintf("; one model supports only this per-example attack, which can show a gross violation but never that the claim holds: supply at least %d independently unlearned models (and as many retrained) for the distributional game and its power", MinEmpiricalTrials)
		if t <= 0 {
			f.Detail += fmt.Sprintf("; at δ = %.3g and confidence %.3g over %d records no p-value can show a violation", s.Delta, s.Confidence, k)
		}
	}
	f.Scores = SummarizeScores(fmt.Sprintf("loss on deleted record %d", deleted[worst]), []float64{worstScore}, worstLosses)
	return claim, []Finding{f}, nil
}

// VerifyAgainstRecipe audits models trained elsewhere with retrains from the spec's recipe
// instead of supplied ones. One model gets the per-example attack (VerifyOneModel) against
// OneModelRetrains retrains; N ≥ MinEmpiricalTrials models get the distributional game
// (VerifySamples) against N retrains; anything between is refused, saying what would do.
// It returns the retrains beside the findings.
func VerifyAgainstRecipe(ctx context.Context, unlearned *mat.Dense, r *Recipe, s *Spec, workers int) (Claim, []Finding, *mat.Dense, error) {
	n, _ := unlearned.Dims()
	switch {
	case n == 1:
		m := OneModelRetrains(s, len(r.Setup.Deletions), s.Trials)
		if m == 0 {
			m = s.Trials
		}
		ret, err := r.Retrain(ctx, s.Seed, m, workers)
		if err != nil {
			return Claim{}, nil, nil, err
		}
		c, fs, err := VerifyOneModel(unlearned.RawRowView(0), ret, r, s)
		return c, fs, ret, err
	case n < MinEmpiricalTrials:
		return Claim{}, nil, nil, fmt.Errorf("verify: %d models; one model supports the per-example attack, the distributional game needs at least %d independently unlearned ones", n, MinEmpiricalTrials)
	}
	ret, err := r.Retrain(ctx, s.Seed, n, workers)
	if err != nil {
		return Claim{}, nil, nil, err
	}
	if _, d := unlearned.Dims(); d != ret.RawMatrix().Cols {
		return Claim{}, nil, nil, fmt.Errorf("verify: the models have %d parameters, the recipe's retrains %d (%s on %d features)", d, ret.RawMatrix().Cols, r.Audited.Subject.Name(), r.Setup.All.Dim())
	}
	c, fs, err := VerifyModels(unlearned, ret, r.Setup.All, s)
	if err != nil {
		return Claim{}, nil, nil, err
	}
	c.Assumptions = append(c.Assumptions, "the retrained models are the toolkit's retrains by the spec's recipe ("+r.Audited.Subject.Name()+"), so the claim is judged against that recipe, not against how the models were made")
	return c, fs, ret, nil
}
