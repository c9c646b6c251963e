package verify

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/artifact"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/mia"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// The record sets utility is measured on: the deleted records, the records kept, and
// records from the same population that no model trained on.
var UtilitySets = []string{"forget", "retain", "test"}

// UtilitySides are the two sides of an audit whose utility is measured.
var UtilitySides = []string{"unlearned", "retrained"}

// The per-record values utility is measured from: a loss, or 1 for a correct prediction
// and 0 for a wrong one, whose mean is the accuracy.
const (
	UtilityLoss    = "loss"
	UtilityCorrect = "correct"
)

// UtilityInput is one side's per-record values on one set: models × records, one model a
// row, the side's models in the audit's order.
type UtilityInput struct {
	Side, Set, Values string // Values is UtilityLoss or UtilityCorrect
	M                 *mat.Dense
}

// Name is the input's name as LoadUtility reads it: side_set_values.
func (u UtilityInput) Name() string { return u.Side + "_" + u.Set + "_" + u.Values }

// MeasureUtility computes the utility rows of the inputs, in the order set, measure (loss,
// then accuracy), side. nUnlearned and nRetrained, when positive, are the models audited
// on each side: a side's inputs must score that many models (the same models, in order),
// and each side's inputs must agree with one another. A correct value other than 0 or 1,
// a non-finite loss, or an input given twice is refused, naming it.
func MeasureUtility(source string, inputs []UtilityInput, nUnlearned, nRetrained int) (*verdict.Utility, error) {
	if len(inputs) == 0 {
		return nil, fmt.Errorf("utility: no per-record values")
	}
	models := map[string]int{"unlearned": nUnlearned, "retrained": nRetrained}
	first := map[string]string{} // the input that set a side's model count
	seen := map[string]bool{}
	u := &verdict.Utility{Source: source}
	for _, in := range inputs {
		if !slices.Contains(UtilitySides, in.Side) || !slices.Contains(UtilitySets, in.Set) || (in.Values != UtilityLoss && in.Values != UtilityCorrect) {
			return nil, fmt.Errorf("utility: %s: want SIDE_SET_loss or SIDE_SET_correct with SIDE %s and SET %s", clip.Quote(in.Name()), strings.Join(UtilitySides, " or "), strings.Join(UtilitySets, ", "))
		}
		if seen[in.Name()] {
			return nil, fmt.Errorf("utility: %s given twice", in.Name())
		}
		seen[in.Name()] = true
		n, k := in.M.Dims()
		if want := models[in.Side]; want > 0 && n != want {
			what := fmt.Sprintf("the %s models audited", in.Side)
			if f, ok := first[in.Side]; ok {
				what = f
			}
			return nil, fmt.Errorf("utility: %s scores %d models; %s are %d: want the same models, one a row, in the same order", in.Name(), n, what, want)
		}
		if models[in.Side] <= 0 {
			models[in.Side] = n
			first[in.Side] = in.Name()
		}
		means := make([]float64, n)
		for i := range n {
			var s float64
			for j, v := range in.M.RawRowView(i) {
				switch {
				case in.Values == UtilityCorrect && v != 0 && v != 1:
					return nil, fmt.Errorf("utility: %s: model %d, record %d is %v; want 1 (correct) or 0 (wrong)", in.Name(), i, j, v)
				case math.IsNaN(v) || math.IsInf(v, 0):
					return nil, fmt.Errorf("utility: %s: model %d, record %d is %v; want a finite loss", in.Name(), i, j, v)
				}
				s += v
			}
			means[i] = s / float64(k)
		}
		row := verdict.UtilityRow{Set: in.Set, Measure: "loss", Side: in.Side, Models: n, Records: k}
		if in.Values == UtilityCorrect {
			row.Measure = "accuracy"
		}
		row.Mean, row.SD = meanSD(means)
		u.Rows = append(u.Rows, row)
	}
	slices.SortFunc(u.Rows, func(a, b verdict.UtilityRow) int {
		return cmp.Or(cmp.Compare(slices.Index(UtilitySets, a.Set), slices.Index(UtilitySets, b.Set)),
			cmp.Compare(a.Measure, b.Measure)*-1, // loss before accuracy
			cmp.Compare(slices.Index(UtilitySides, a.Side), slices.Index(UtilitySides, b.Side)))
	})
	return u, nil
}

// meanSD is the mean of xs and their standard deviation with n − 1 (0 for one value).
func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

// LoadUtility reads per-record values from an .npz archive whose arrays are named
// SIDE_SET_loss or SIDE_SET_correct (unlearned_forget_loss, retrained_test_correct, …),
// each models × records (a 1-D array is one model): any subset of the twelve.
func LoadUtility(path string, lim reference.Limits) ([]UtilityInput, error) {
	arrays, err := artifact.LoadNPZ(path, lim)
	if err != nil {
		return nil, fmt.Errorf("load utility: %w", err)
	}
	var out []UtilityInput
	for _, a := range arrays {
		name := a.Name[strings.LastIndexByte(a.Name, ':')+1:]
		parts := strings.Split(name, "_")
		if len(parts) != 3 {
			return nil, fmt.Errorf("load utility: %s: array %s: want names SIDE_SET_loss or SIDE_SET_correct (np.savez(path, unlearned_forget_loss=L, unlearned_forget_correct=C, …))", path, clip.Quote(name))
		}
		out = append(out, UtilityInput{Side: parts[0], Set: parts[1], Values: parts[2], M: mat.NewDense(a.Rows(), a.Cols(), a.Data)})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("load utility: %s: no arrays", path)
	}
	return out, nil
}

// LinearUtility computes per-record values of linear models from the data: on the forget
// set (the deleted records, ids) and the retain set (every other record of ds), each
// model's logistic loss and whether it classifies the record correctly (the sign of its
// margin, as scikit-learn predicts: the positive class when b + wᵀx > 0, else the
// negative). The data hold no test set; its values come from a utility file.
func LinearUtility(unlearned, retrained *mat.Dense, ds *reference.Dataset, deletes []int64, intercept bool) ([]UtilityInput, error) {
	del := map[int64]bool{}
	for _, id := range deletes {
		del[id] = true
	}
	var retain []int64
	for i := range ds.Len() {
		if !del[ds.ID(i)] {
			retain = append(retain, ds.ID(i))
		}
	}
	var out []UtilityInput
	for _, side := range []struct {
		name   string
		models *mat.Dense
	}{{"unlearned", unlearned}, {"retrained", retrained}} {
		if side.models == nil {
			continue
		}
		for _, set := range []struct {
			name string
			ids  []int64
		}{{"forget", deletes}, {"retain", retain}} {
			sub, err := linearRecords(side.models, ds, set.ids, intercept)
			if err != nil {
				return nil, fmt.Errorf("utility: %s models on the %s set: %w", side.name, set.name, err)
			}
			n, _ := side.models.Dims()
			loss := mat.NewDense(n, len(set.ids), nil)
			mia.Scores(loss, mia.Loss, reference.Logistic{}, side.models, sub)
			correct := mat.NewDense(n, len(set.ids), nil)
			mia.Scores(correct, mia.Confidence, reference.Logistic{}, side.models, sub) // y·margin
			y := sub.Labels()
			for i := range n {
				row := correct.RawRowView(i)
				for j, t := range row {
					// predicted +1 when the margin is positive, else −1: correct when the
					// label agrees (y·margin > 0, or a margin of 0 on a negative record)
					margin := t * y[j]
					row[j] = 0
					if (margin > 0) == (y[j] > 0) {
						row[j] = 1
					}
				}
			}
			out = append(out, UtilityInput{Side: side.name, Set: set.name, Values: UtilityLoss, M: loss},
				UtilityInput{Side: side.name, Set: set.name, Values: UtilityCorrect, M: correct})
		}
	}
	return out, nil
}
