package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/artifact"
	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/mia"
	"github.com/unlearnaudit/unlearnaudit/reference"
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
func LoadReferences(path string, lim reference.Limits) (*References, error) {
	arrays, err := artifact.LoadNPZ(path, lim)
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
func ULiRAStatistic(refs *References, u, r *mat.Dense, kind ScoreKind) (epsilon.Statistic, error) {
	_, k := u.Dims()
	if _, rk := refs.Scores.Dims(); rk != k {
		return epsilon.Statistic{}, fmt.Errorf("references: scores of %d records; the audited scores have %d", rk, k)
	}
	sign := kind.MemberSign()
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

// AgainstDeletion measures the references' IN/OUT masks against the audited deletion,
// which removes all k deleted records together: a reference matches it when it is IN on
// every record (trained on them all, then unlearned them together, as the unlearned
// models did) or OUT on every one (never trained on them, as the retrains). References
// built by random halves, IN on about k/2 of the records each, follow another law — that
// of a deletion of k/2 records — so U-LiRA's per-record fits describe another deletion
// than the audited one and its aggregate may misjudge the audited models. The game's ε
// bound stays valid (the statistic is fixed before the audited models are seen); its
// power is what suffers. The finding is a Measurement (it never decides a verdict):
// Measured is the share of references that match, against 1.
func (r *References) AgainstDeletion(k int) verdict.Finding {
	n := len(r.In)
	var allIn, allOut int
	var mixed []int
	for _, row := range r.In {
		in := 0
		for _, v := range row {
			if v {
				in++
			}
		}
		switch in {
		case k:
			allIn++
		case 0:
			allOut++
		default:
			mixed = append(mixed, in)
		}
	}
	f := verdict.Finding{Check: "verify/measurement/references", Kind: verdict.Measurement, Verdict: verdict.Inconclusive,
		Title:    fmt.Sprintf("the reference models' IN/OUT sets against the audited deletion (all %d deleted records together): the share that match it", k),
		Measured: float64(allIn+allOut) / float64(n), Bound: 1, Comparison: "≥", Confidence: 1, Trials: n}
	f.Detail = fmt.Sprintf("%d reference models: %d IN on all %d records (trained on them, then unlearned them together, as the audited models), %d OUT on all (never trained on them, as the retrains), %d mixed",
		n, allIn, k, allOut, len(mixed))
	if len(mixed) > 0 {
		slices.Sort(mixed)
		f.Detail += fmt.Sprintf(", IN on %d to %d of the %d records (median %d): their IN law is that of a deletion of about %d records, not of the audited %d together, so U-LiRA's fits describe another deletion and its aggregate may misjudge the audited models (the game's bound stays valid; its power suffers). Build references as the audit deletes: each trained on the full data, then half unlearn all %d deleted records (IN on all) and half are retrained without them (OUT on all)",
			mixed[0], mixed[len(mixed)-1], k, mixed[len(mixed)/2], mixed[len(mixed)/2], k, k)
	} else if allIn == 0 || allOut == 0 {
		f.Detail += "; every reference is on one side, so U-LiRA has no fit of the other"
	} else {
		f.Detail += ": the references follow the audited deletion"
	}
	return f
}
