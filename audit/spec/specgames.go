package spec

import (
	"context"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"gonum.org/v1/gonum/floats"
)

// The games and the claim a spec sets for verify's routes on models trained elsewhere.

// FamilyGame is the spec's family game.
func (s *Spec) FamilyGame(check string) checks.FamilyGame {
	return checks.FamilyGame{Check: check, Epsilon: s.Epsilon, Delta: s.Delta, Confidence: s.Confidence, PowerAgainst: s.PowerAgainst}
}

// RankCheck is the spec's rank check.
func (s *Spec) RankCheck(check string) checks.RankCheck {
	return checks.RankCheck{Check: check, Epsilon: s.Epsilon, Delta: s.Delta, Confidence: s.Confidence, Randomised: s.RandomisedRank, Seed: s.Seed, PowerAgainst: s.PowerAgainst}
}

// SavedClaim is the claim audited on models trained elsewhere: what the spec declares.
func (s *Spec) SavedClaim(what, relation string) verdict.Claim {
	return verdict.Claim{
		Method:    s.SubjectName() + " (" + what + ")",
		Source:    s.methodSource(),
		Guarantee: "(ε, δ)-unlearning",
		Epsilon:   s.Epsilon, Delta: s.Delta,
		Relation: relation,
		Assumptions: []string{
			"the unlearned and retrained models are independent runs of the declared procedure with fresh randomness: the data and the deleted records fixed, only the algorithm's randomness varying",
			"the models given are all the runs made (none selected after the fact)",
			"the statistics of the game were fixed before the models were seen (pre-registered: the toolkit's family, not chosen for these models)",
		},
		Required: []verdict.Kind{verdict.Empirical},
	}
}

// RankRoute is the rank check of the primary statistic, a mean over the deleted records,
// oriented so that lower means remembered: a loss as it is, a confidence negated.
func (s *Spec) RankRoute(ctx context.Context, mean epsilon.Statistic) (verdict.Finding, error) {
	if s.Scores == checks.LossScores {
		return s.RankCheck("verify/empirical/rank").Play(ctx, mean.Name, mean.Pos, mean.Neg)
	}
	return s.RankCheck("verify/empirical/rank").Play(ctx, "negated "+mean.Name, floats.ScaleTo(make([]float64, len(mean.Pos)), -1, mean.Pos), floats.ScaleTo(make([]float64, len(mean.Neg)), -1, mean.Neg))
}
