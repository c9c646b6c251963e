package audit

import (
	"fmt"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/artifact"
	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/mia"
	"gonum.org/v1/gonum/mat"
)

// References are the user's reference (shadow) models' scores on the deleted records,
// for LiRA and U-LiRA (spec estimators-and-attacks §(e), §(g)): Scores is reference
// models × records, in the columns of the audited scores, and In marks, for each
// reference model and record, that the model trained on the record (for U-LiRA: trained
// on it and then unlearned it) rather than not. They must be other models than the ones
// audited: the statistic is fitted on them, and a statistic fitted on the audited models
// would not be a fixed function of each.
type References struct {
	Scores *mat.Dense
	In     [][]bool
}

// LoadReferences reads references from an .npz archive with two arrays: "in", the IN/OUT
// mask (1 or 0, float64: save it with mask.astype(np.float64)), and "scores", of the same
// shape. Errors name the file and what is wrong: a missing array, a shape that differs, a
// mask entry other than 0 or 1.
func LoadReferences(path string) (*References, error) {
	arrays, err := artifact.LoadNPZ(path)
	if err != nil {
		return nil, fmt.Errorf("load references: %w", err)
	}
	var mask, scores *artifact.Array
	for _, a := range arrays {
		switch a.Name[strings.LastIndexByte(a.Name, ':')+1:] {
		case "in":
			mask = a
		case "scores":
			scores = a
		}
	}
	if len(arrays) != 2 || mask == nil || scores == nil {
		return nil, fmt.Errorf("load references: %s: want two arrays, \"in\" (the IN/OUT mask) and \"scores\": np.savez(path, scores=S, **{\"in\": mask.astype(np.float64)})", path)
	}
	if mask.Rows() != scores.Rows() || mask.Cols() != scores.Cols() {
		return nil, fmt.Errorf("load references: %s: in is %d × %d, scores %d × %d; want one mask entry a score", path, mask.Rows(), mask.Cols(), scores.Rows(), scores.Cols())
	}
	r := &References{Scores: mat.NewDense(scores.Rows(), scores.Cols(), scores.Data), In: make([][]bool, mask.Rows())}
	for i := range mask.Rows() {
		r.In[i] = make([]bool, mask.Cols())
		for k, v := range mask.Row(i) {
			switch v {
			case 1:
				r.In[i][k] = true
			case 0:
			default:
				return nil, fmt.Errorf("load references: %s: in[%d][%d] is %v; want 1 (IN) or 0 (OUT)", path, i, k, v)
			}
		}
	}
	return r, nil
}

// uliraStatistic is the U-LiRA aggregate of every model: the sum over the deleted records
// of each record's LiRA log-likelihood ratio against the references (mia.LiRAWithReferences),
// on member-oriented scores (negated losses, or confidences). Higher means more like the
// IN references.
func uliraStatistic(refs *References, u, r *mat.Dense, kind ScoreKind) (epsilon.Statistic, error) {
	_, k := u.Dims()
	if _, rk := refs.Scores.Dims(); rk != k {
		return epsilon.Statistic{}, fmt.Errorf("references: scores of %d records; the audited scores have %d", rk, k)
	}
	sign := kind.memberSign()
	ref := mat.DenseCopyOf(refs.Scores)
	ref.Scale(sign, ref)
	fit, err := mia.FitReferences(ref, refs.In)
	if err != nil {
		return epsilon.Statistic{}, fmt.Errorf("references: %w", err)
	}
	agg := func(m *mat.Dense) ([]float64, error) {
		n, _ := m.Dims()
		out := make([]float64, n)
		row := make([]float64, k)
		for i := range n {
			for j := range k {
				row[j] = sign * m.At(i, j)
			}
			rr, err := fit.Ratios(row, nil)
			if err != nil {
				return nil, fmt.Errorf("references: %w", err)
			}
			out[i] = rr.Aggregate
		}
		return out, nil
	}
	pos, err := agg(u)
	if err != nil {
		return epsilon.Statistic{}, err
	}
	neg, err := agg(r)
	if err != nil {
		return epsilon.Statistic{}, err
	}
	return epsilon.Statistic{Name: "U-LiRA aggregate over the deleted records (the references' IN/OUT fits)", Pos: pos, Neg: neg}, nil
}
