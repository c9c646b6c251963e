package verify

import (
	"context"
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// VerifySamples audits models trained elsewhere against a spec's claim: unlearned and
// retrained are samples of models, one published model a row (artifact.LoadSample reads
// them from disk), of any sizes of at least MinEmpiricalTrials each. Without the method's
// state the evidence is the published models alone, so the claim requires the empirical
// check (Claim.Required): the distinguishing game over the parameter statistics
// (parameterStatistics: two directions and a spread, fitted on the selection half), with
// its power against PowerAgainst × the claimed ε. Fewer unlearned models need the data or
// per-record scores, whose primary statistic a rank test can use (VerifyModels,
// VerifyScores).
func VerifySamples(ctx context.Context, unlearned, retrained *mat.Dense, s *spec.Spec) (verdict.Claim, []verdict.Finding, error) {
	if _, _, err := sameColumns(unlearned, retrained, "have %d parameters"); err != nil {
		return verdict.Claim{}, nil, err
	}
	if nu, _ := unlearned.Dims(); nu < checks.MinEmpiricalTrials {
		return verdict.Claim{}, nil, fmt.Errorf("verify: %d unlearned model(s); the game on parameters needs at least %d a side. Fewer models are audited by the rank of their deleted records' mean loss among the retrains: give the spec's data and deletes, or per-record scores (--scores)",
			nu, checks.MinEmpiricalTrials)
	}
	if nr, _ := retrained.Dims(); nr < checks.MinEmpiricalTrials {
		return verdict.Claim{}, nil, fmt.Errorf("verify: %d retrained model(s); the game needs at least %d a side", nr, checks.MinEmpiricalTrials)
	}
	f, err := s.FamilyGame("verify/empirical/epsilon-lower-bound").Play(ctx, checks.ParameterStatistics(unlearned, retrained))
	if err != nil {
		return verdict.Claim{}, nil, fmt.Errorf("verify: %w", err)
	}
	return s.SavedClaim("models trained elsewhere", "the law of the published models after the deletions vs of models retrained without the deleted records"), []verdict.Finding{f}, nil
}

// paired checks that two samples, one model a row, pair trial by trial: as many models of
// as many columns (what a column is, e.g. "have %d parameters", names it in the error).
func paired(unlearned, retrained *mat.Dense, op, columns string) (n, d int, err error) {
	nu, du, err := sameColumns(unlearned, retrained, columns)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", op, err)
	}
	if nr, _ := retrained.Dims(); nu != nr {
		return 0, 0, fmt.Errorf("%s: %d unlearned and %d retrained models; trials pair them, so supply as many of each", op, nu, nr)
	}
	return nu, du, nil
}

// sameColumns checks that two samples have as many columns, and returns the first's
// dimensions.
func sameColumns(unlearned, retrained *mat.Dense, columns string) (n, d int, err error) {
	nu, du := unlearned.Dims()
	_, dr := retrained.Dims()
	if du != dr {
		return 0, 0, fmt.Errorf("verify: unlearned models "+columns+", retrained ones %d%s", du, dr, spec.TransposedHint(unlearned, retrained))
	}
	return nu, du, nil
}

// VerifyScores audits per-record scores — the route for models whose parameters are too
// many to compare (deep networks), as the NeurIPS 2023 unlearning competition collects
// them: unlearned and retrained are matrices of models × records, the same records in the
// same columns (a loss or a logit-scaled confidence on each deleted record; s.Scores says
// which). With MinEmpiricalTrials unlearned models or more, the game over the scores' mean
// and median per model decides; with fewer, down to one production model, the rank test
// of the mean (lower loss, or higher confidence, means remembered) among the retrains.
func VerifyScores(ctx context.Context, unlearned, retrained *mat.Dense, s *spec.Spec) (verdict.Claim, []verdict.Finding, error) {
	// the spec's deletes first: they say which side of a mismatched pair is transposed
	for _, side := range []struct {
		name string
		m    *mat.Dense
	}{{"--unlearned", unlearned}, {"--retrained", retrained}} {
		if err := s.CheckScoreColumns("verify:", side.name, side.m); err != nil {
			return verdict.Claim{}, nil, err
		}
	}
	if _, _, err := sameColumns(unlearned, retrained, "score %d records"); err != nil {
		return verdict.Claim{}, nil, err
	}
	stats := checks.RecordStatistics(s.Scores.String()+" over the deleted records", unlearned, retrained)
	claim := s.SavedClaim("per-record scores of models trained elsewhere", "the law of the deleted records' scores under unlearned models vs under models retrained without them")
	claim.Assumptions = append(claim.Assumptions, "a score is a function of the published model (post-processing), so a bound on it is a bound on the models")
	var (
		f   verdict.Finding
		err error
	)
	if nu, _ := unlearned.Dims(); nu < checks.MinEmpiricalTrials {
		f, err = s.RankRoute(ctx, stats[0])
		if err == nil {
			f.Detail += directionHint(stats[0], s.Scores)
		}
	} else {
		if nr, _ := retrained.Dims(); nr < checks.MinEmpiricalTrials {
			return verdict.Claim{}, nil, fmt.Errorf("verify: scores of %d retrained model(s); the game needs at least %d a side", nr, checks.MinEmpiricalTrials)
		}
		g := s.FamilyGame("verify/empirical/epsilon-lower-bound")
		g.Of = "the per-record scores"
		if s.References != nil {
			ul, err := checks.ULiRAStatistic(s.References, unlearned, retrained, s.Scores)
			if err != nil {
				return verdict.Claim{}, nil, fmt.Errorf("verify: %w", err)
			}
			stats = append(stats, ul)
			claim.Assumptions = append(claim.Assumptions, "the reference models are other runs than the audited ones, with the IN/OUT masks given")
		}
		f, err = g.Play(ctx, stats)
	}
	if err != nil {
		return verdict.Claim{}, nil, fmt.Errorf("verify: %w", err)
	}
	fs := []verdict.Finding{f}
	if s.References != nil { // how the references' deletions differ from the audited one
		_, k := unlearned.Dims()
		if _, rk := s.References.Scores.Dims(); rk != k {
			return verdict.Claim{}, nil, fmt.Errorf("verify: references: scores of %d records; the audited scores have %d", rk, k)
		}
		ref := s.References.AgainstDeletion(k)
		if nu, _ := unlearned.Dims(); nu < checks.MinEmpiricalTrials {
			ref.Detail += fmt.Sprintf("; not used here: %d unlearned model(s) are ranked by their mean score, which U-LiRA does not join (it joins the game, from %d models a side)", nu, checks.MinEmpiricalTrials)
		}
		fs = append(fs, ref)
	}
	return claim, fs, nil
}

// directionHint is what the rank finding adds when every unlearned model's mean score lies
// beyond every retrain's on the side of forgetting (a loss above all, a confidence below
// all): under the claim that is as likely as any other extreme, but it is also exactly what
// a leak looks like when the scores' kind is given the wrong way round (confidences read as
// losses), which the rank test, one-sided, cannot see. "" otherwise.
func directionHint(mean epsilon.Statistic, kind checks.ScoreKind) string {
	if len(mean.Pos) == 0 || len(mean.Neg) == 0 {
		return ""
	}
	// oriented so that higher means remembered (MemberSign): the unlearned models' highest
	// below the retrains' lowest
	sign := kind.MemberSign()
	top := max(sign*floats.Max(mean.Pos), sign*floats.Min(mean.Pos))
	bottom := min(sign*floats.Max(mean.Neg), sign*floats.Min(mean.Neg))
	if !(top < bottom) {
		return ""
	}
	if kind == checks.LossScores {
		return fmt.Sprintf("; every unlearned model's mean score lies above all %d retrains', the side of forgetting: if these scores are confidences (higher means remembered), not losses, set the spec's \"scores\" to \"confidence\" — read as losses, a leak looks like this", len(mean.Neg))
	}
	return fmt.Sprintf("; every unlearned model's mean score lies below all %d retrains', the side of forgetting: if these scores are losses (lower means remembered), not confidences, set the spec's \"scores\" to \"loss\" — read as confidences, a leak looks like this", len(mean.Neg))
}
