package audit

import (
	"fmt"

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
	nu, du := unlearned.Dims()
	nr, dr := retrained.Dims()
	if du != dr {
		return Claim{}, nil, fmt.Errorf("verify: unlearned models have %d parameters, retrained ones %d", du, dr)
	}
	if nu != nr {
		return Claim{}, nil, fmt.Errorf("verify: %d unlearned and %d retrained models; the game pairs trials, so supply as many of each", nu, nr)
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

func releaseOf(published []float64) reference.Release { return reference.Release{Published: published} }
