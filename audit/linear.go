package audit

import (
	"fmt"

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
	n, d := models.Dims()
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
	if intercept {
		x := mat.NewDense(len(ids), d, nil)
		for i := range len(ids) {
			row := x.RawRowView(i)
			row[0] = 1
			copy(row[1:], sub.Record(i).X)
		}
		if sub, err = reference.NewDataset(sub.IDs(), x, sub.Labels()); err != nil {
			return nil, fmt.Errorf("linear losses: %w", err)
		}
	}
	out := mat.NewDense(n, len(ids), nil)
	mia.Scores(out, mia.Loss, reference.Logistic{}, models, sub)
	return out, nil
}

// VerifyModels audits saved linear models against retrained ones with the spec's attacks:
// the distinguishing game on the parameters (VerifySamples) and, when data are given and
// the spec names its deletions, the membership attack on the deleted records, a per-record
// game on their losses computed from the weights and the data (LinearLosses, VerifyScores).
// Both decide the verdict: without the method's state they are the evidence.
func VerifyModels(unlearned, retrained *mat.Dense, ds *reference.Dataset, s *Spec) (Claim, []Finding, error) {
	membership := ds != nil && len(s.Deletes) > 0 && s.Attacks.Has(MembershipAttack)
	if s.Attacks != nil && s.Attacks.Has(MembershipAttack) && !membership {
		return Claim{}, nil, fmt.Errorf("verify: attacks: membership needs the spec's data and deletes, to compute the deleted records' losses from the weights")
	}
	var (
		claim Claim
		fs    []Finding
	)
	if s.Attacks.Has(GameAttack) {
		c, f, err := VerifySamples(unlearned, retrained, s)
		if err != nil {
			return Claim{}, nil, err
		}
		claim, fs = c, f
	}
	if membership {
		lu, err := LinearLosses(unlearned, ds, s.Deletes, s.Intercept)
		if err != nil {
			return Claim{}, nil, fmt.Errorf("verify: unlearned models: %w", err)
		}
		lr, err := LinearLosses(retrained, ds, s.Deletes, s.Intercept)
		if err != nil {
			return Claim{}, nil, fmt.Errorf("verify: retrained models: %w", err)
		}
		c, f, err := verifyScores(lu, lr, s, "loss of example")
		if err != nil {
			return Claim{}, nil, err
		}
		m := f[0]
		m.Check = "verify/empirical/membership"
		m.Title = fmt.Sprintf("membership of the %d deleted records: largest ε lower bound of the per-record games on their logistic losses at δ = %.3g", len(s.Deletes), s.Delta)
		m.Detail = "losses computed from the weights and the spec's data, preprocessed as declared; " + m.Detail
		if len(fs) == 0 {
			claim = c
		}
		claim.Assumptions = append(claim.Assumptions, "the spec's data, preprocessed as declared, are the rows the models were trained on: a deleted record's loss is computed from them")
		fs = append(fs, m)
	}
	if len(fs) == 0 {
		return Claim{}, nil, fmt.Errorf("verify: attacks: none of %v can run on saved models", s.Attacks)
	}
	return claim, fs, nil
}
