package verify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
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
	Setup   audit.DemoSetup
	Audited audit.Audited
}

// NewRecipe builds the recipe of s on ds (the spec's data, read and preprocessed); ctx ends
// the method's setup (a signal during SAFE's is honoured). The spec must name its
// deletions and select exactly one variant of its method: a recipe is one training
// procedure.
func NewRecipe(ctx context.Context, s *spec.Spec, ds *reference.Dataset) (*Recipe, error) {
	if len(s.Deletes) == 0 {
		return nil, fmt.Errorf("recipe: deletes: none named; retraining without the deleted records needs their IDs")
	}
	if s.Intercept {
		return nil, fmt.Errorf("recipe: model.intercept: the toolkit's methods fit no intercept, so its retrains cannot stand in for these models; supply --retrained models")
	}
	if len(s.Variants) != 1 {
		var names []string
		for _, v := range audit.DemoVariantsOf(s.Method) {
			names = append(names, v.Name)
		}
		return nil, fmt.Errorf("recipe: method.variants: %d selected; a recipe is one training procedure, name one of %s", len(s.Variants), strings.Join(names, ", "))
	}
	setup, err := audit.NewDemoSetup(ds, audit.DemoConfig{Deletes: s.Deletes, Lambda: s.Lambda, Epsilon: s.Epsilon, Delta: s.Delta,
		Seed: s.Seed, Confidence: s.Confidence, PowerAgainst: s.PowerAgainst, DeletesOnly: true})
	var se *audit.SettingError
	if errors.As(err, &se) { // the settings are the spec's: name its field
		return nil, fmt.Errorf("recipe: %s: %s", audit.SpecField(se.Flag, se.Index), se.Msg)
	}
	if err != nil {
		return nil, fmt.Errorf("recipe: %w", err)
	}
	args := audit.DefaultArgs(audit.DemoParamsOf(s.Method))
	args.Merge(s.Params)
	got, err := audit.RunDemo(ctx, s.Method, setup, s.Variants, args)
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

// maxRecipeRetrains bounds the retrains the rank route asks for.
const maxRecipeRetrains = 100_000

// RankRetrains is how many retrains the rank route asks for to judge k models: twice the
// fewest with which a model below every retrain shows a violation (epsilon.RanksNeeded),
// so that the test catches more than the extreme; at least trials, and trials when no
// number of retrains can (δ too large for the confidence).
func RankRetrains(s *spec.Spec, k, trials int) int {
	need := epsilon.RanksNeeded(k, s.Epsilon, s.Delta, s.Confidence)
	if need == 0 {
		return trials
	}
	return min(max(2*need, trials), maxRecipeRetrains)
}

// VerifyAgainstRecipe audits models trained elsewhere with retrains from the spec's recipe
// instead of supplied ones, through VerifyModels with the recipe's data and deletions:
// N ≥ MinEmpiricalTrials models get the game over the family of statistics against N
// retrains; fewer, one included, the rank test of the deleted records' mean loss against
// RankRetrains retrains, which can FAIL a gross violation and never PASSes. It returns the
// retrains beside the findings.
func VerifyAgainstRecipe(ctx context.Context, unlearned *mat.Dense, r *Recipe, s *spec.Spec, workers int) (verdict.Claim, []verdict.Finding, *mat.Dense, error) {
	n, d := unlearned.Dims()
	m := n
	if n < checks.MinEmpiricalTrials {
		m = RankRetrains(s, n, s.Trials)
	}
	ret, err := r.Retrain(ctx, s.Seed, m, workers)
	if err != nil {
		return verdict.Claim{}, nil, nil, err
	}
	if d != ret.RawMatrix().Cols {
		return verdict.Claim{}, nil, nil, fmt.Errorf("verify: the models have %d parameters, the recipe's retrains %d (%s on %d features)", d, ret.RawMatrix().Cols, r.Audited.Subject.Name(), r.Setup.All.Dim())
	}
	rs := *s
	rs.Deletes = r.Setup.Deletions
	if rs.Attacks != nil && !rs.Attacks.Has(audit.MembershipAttack) && n < checks.MinEmpiricalTrials {
		rs.Attacks = append(slices.Clone(rs.Attacks), audit.MembershipAttack) // the rank route is on the deleted records' loss
	}
	c, fs, err := VerifyModels(ctx, unlearned, ret, r.Setup.All, &rs)
	if err != nil {
		return verdict.Claim{}, nil, nil, err
	}
	c.Assumptions = append(c.Assumptions, "the retrained models are the toolkit's retrains by the spec's recipe ("+r.Audited.Subject.Name()+"), so the claim is judged against that recipe, not against how the models were made")
	return c, fs, ret, nil
}
