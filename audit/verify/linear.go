package verify

import (
	"context"
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/mia"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// LinearLosses computes per-example scores from linear models and the data: the logistic
// loss log(1 + exp(−y·(b + wᵀx))) of every model on every record of ids, models ×
// records. A model is a row of models, [b, w…] when intercept is set (scikit-learn's
// intercept_ then coef_), else w. The losses are the data fit alone, without the L2 term:
// mia's loss score, computed for all models at once (mia.Scores), on the records with a
// constant first feature when the models carry an intercept.
func LinearLosses(models *mat.Dense, ds *reference.Dataset, ids []int64, intercept bool) (*mat.Dense, error) {
	sub, err := linearRecords(models, ds, ids, intercept)
	if err != nil {
		return nil, err
	}
	n, _ := models.Dims()
	out := mat.NewDense(n, len(ids), nil)
	mia.Scores(out, mia.Loss, reference.Logistic{}, models, sub)
	return out, nil
}

// linearRecords are the records of ids as linear models see them: with a constant first
// feature when the models carry an intercept. The models' width must fit the data's.
func linearRecords(models *mat.Dense, ds *reference.Dataset, ids []int64, intercept bool) (*reference.Dataset, error) {
	_, d := models.Dims()
	off := 0
	if intercept {
		off = 1
	}
	if d != ds.Dim()+off {
		what := "no intercept"
		if intercept {
			what = "the intercept first"
		}
		return nil, fmt.Errorf("linear losses: the models have %d parameters, the data %d features (with %s, want %d)", d, ds.Dim(), what, ds.Dim()+off)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("linear losses: no records named")
	}
	sub, err := ds.Subset(ids)
	if err != nil {
		return nil, fmt.Errorf("linear losses: %w", err)
	}
	if !intercept {
		return sub, nil
	}
	x := mat.NewDense(len(ids), d, nil)
	for i := range len(ids) {
		row := x.RawRowView(i)
		row[0] = 1
		copy(row[1:], sub.Record(i).X)
	}
	if sub, err = reference.NewDataset(sub.IDs(), x, sub.Labels()); err != nil {
		return nil, fmt.Errorf("linear losses: %w", err)
	}
	return sub, nil
}

// VerifyModels audits saved linear models against retrained ones. Without data (ds nil)
// it is VerifySamples. With the data and the spec's deletions it plays one game over the
// whole family: the parameter statistics (attack "game"), and (attack "membership") the
// deleted records' mean and median logistic loss and mean logit-scaled confidence,
// computed from the weights and the data, and the projection on their summed loss
// gradient at the retrained mean. One game at the whole confidence: two games each at it
// would fail honest pairs twice as often. Fewer unlearned models than the game needs —
// one production model included — are ranked among the retrains by the deleted records'
// mean loss (RankCheck), which can FAIL and never PASSes.
func VerifyModels(ctx context.Context, unlearned, retrained *mat.Dense, ds *reference.Dataset, s *spec.Spec) (verdict.Claim, []verdict.Finding, error) {
	membership := ds != nil && len(s.Deletes) > 0 && s.Attacks.Has(audit.MembershipAttack)
	if s.Attacks != nil && s.Attacks.Has(audit.MembershipAttack) && !membership {
		return verdict.Claim{}, nil, fmt.Errorf("verify: attacks: membership needs the spec's data and deletes, to compute the deleted records' losses from the weights")
	}
	if !membership {
		if !s.Attacks.Has(audit.GameAttack) {
			return verdict.Claim{}, nil, fmt.Errorf("verify: attacks: none of %v can run on saved models", s.Attacks)
		}
		return VerifySamples(ctx, unlearned, retrained, s)
	}
	if _, _, err := sameColumns(unlearned, retrained, "have %d parameters"); err != nil {
		return verdict.Claim{}, nil, err
	}
	deleted, err := linearRecords(unlearned, ds, s.Deletes, s.Intercept)
	if err != nil {
		return verdict.Claim{}, nil, fmt.Errorf("verify: %w", err)
	}
	lu, cu := checks.LinearScores(unlearned, deleted)
	lr, cr := checks.LinearScores(retrained, deleted)
	claim := s.SavedClaim("models trained elsewhere", "the law of the published models after the deletions vs of models retrained without the deleted records")
	claim.Assumptions = append(claim.Assumptions, "the spec's data, preprocessed as declared, are the rows the models were trained on: a deleted record's loss is computed from them")
	losses := checks.RecordStatistics("logistic loss over the deleted records", lu, lr)
	nu, _ := unlearned.Dims()
	nr, _ := retrained.Dims()
	if nu < checks.MinEmpiricalTrials {
		f, err := s.RankRoute(ctx, losses[0])
		if err != nil {
			return verdict.Claim{}, nil, fmt.Errorf("verify: %w", err)
		}
		return claim, []verdict.Finding{f}, nil
	}
	if nr < checks.MinEmpiricalTrials {
		return verdict.Claim{}, nil, fmt.Errorf("verify: %d retrained model(s); the game needs at least %d a side", nr, checks.MinEmpiricalTrials)
	}
	var stats []epsilon.Statistic
	if s.Attacks.Has(audit.GameAttack) {
		stats = checks.ParameterStatistics(unlearned, retrained)
	}
	stats = append(stats, losses...)
	stats = append(stats, checks.RecordStatistics("logit-scaled confidence over the deleted records", cu, cr)[0],
		checks.GradientStatistic(unlearned, retrained, deleted))
	f, err := s.FamilyGame("verify/empirical/epsilon-lower-bound").Play(ctx, stats)
	if err != nil {
		return verdict.Claim{}, nil, fmt.Errorf("verify: %w", err)
	}
	f.Detail += "; losses and confidences computed from the weights and the spec's data, preprocessed as declared"
	return claim, []verdict.Finding{f}, nil
}
