package verify

import (
	"math"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// Each utility measurement against a hand computation: losses [1 2 3] and [3 4 5] have
// model means 2 and 4, so mean 3 and standard deviation √2; correctness [1 0 1] and
// [0 0 1] has accuracies 2/3 and 1/3, so mean ½ and standard deviation √(1/18). Rows come
// in the order set, loss before accuracy, side. Planted by hand: the standard deviation
// with n in the denominator (1, not √2) and the rows unsorted each fail it.
func TestMeasureUtilityByHand(t *testing.T) {
	in := []UtilityInput{
		{Side: "retrained", Set: "test", Values: UtilityLoss, M: mat.NewDense(1, 2, []float64{0.5, 1.5})},
		{Side: "unlearned", Set: "forget", Values: UtilityCorrect, M: mat.NewDense(2, 3, []float64{1, 0, 1, 0, 0, 1})},
		{Side: "unlearned", Set: "forget", Values: UtilityLoss, M: mat.NewDense(2, 3, []float64{1, 2, 3, 3, 4, 5})},
	}
	u, err := MeasureUtility("by hand", in, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []verdict.UtilityRow{
		{Set: "forget", Measure: "loss", Side: "unlearned", Models: 2, Records: 3, Mean: 3, SD: math.Sqrt2},
		{Set: "forget", Measure: "accuracy", Side: "unlearned", Models: 2, Records: 3, Mean: 0.5, SD: math.Sqrt(1.0 / 18)},
		{Set: "test", Measure: "loss", Side: "retrained", Models: 1, Records: 2, Mean: 1, SD: 0},
	}
	if len(u.Rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(u.Rows), len(want), u.Rows)
	}
	for i, r := range u.Rows {
		w := want[i]
		if r.Set != w.Set || r.Measure != w.Measure || r.Side != w.Side || r.Models != w.Models || r.Records != w.Records ||
			math.Abs(r.Mean-w.Mean) > 1e-15 || math.Abs(r.SD-w.SD) > 1e-15 {
			t.Errorf("row %d: %+v, want %+v", i, r, w)
		}
	}
}

// Values that cannot be what they say are refused, naming the array, model and record.
func TestMeasureUtilityRefuses(t *testing.T) {
	for _, c := range []struct {
		in   UtilityInput
		n    int
		want string
	}{
		{UtilityInput{Side: "unlearned", Set: "retain", Values: UtilityCorrect, M: mat.NewDense(1, 2, []float64{1, 0.5})}, 0, "unlearned_retain_correct: model 0, record 1 is 0.5; want 1 (correct) or 0"},
		{UtilityInput{Side: "unlearned", Set: "retain", Values: UtilityLoss, M: mat.NewDense(1, 2, []float64{1, math.NaN()})}, 0, "model 0, record 1 is NaN; want a finite loss"},
		{UtilityInput{Side: "unlearned", Set: "retain", Values: UtilityLoss, M: mat.NewDense(2, 2, nil)}, 3, "unlearned_retain_loss scores 2 models; the unlearned models audited are 3"},
		{UtilityInput{Side: "unlearned", Set: "holdout", Values: UtilityLoss, M: mat.NewDense(2, 2, nil)}, 0, `"unlearned_holdout_loss": want SIDE_SET_loss`},
	} {
		if _, err := MeasureUtility("x", []UtilityInput{c.in}, c.n, 0); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.in.Name(), err, c.want)
		}
	}
	two := UtilityInput{Side: "retrained", Set: "test", Values: UtilityLoss, M: mat.NewDense(1, 1, nil)}
	if _, err := MeasureUtility("x", []UtilityInput{two, two}, 0, 0); err == nil || !strings.Contains(err.Error(), "retrained_test_loss given twice") {
		t.Errorf("twice: %v", err)
	}
}

// Linear models' utility from the data, by hand: records x = (1, 0), (0, 1), (1, 1) with
// labels +1, −1, −1, record 10 deleted. Model w = (1, −1) has margins 1, −1, 0: every
// record correct (a margin of 0 predicts the negative class, as scikit-learn does), losses
// ln(1 + e⁻¹) on the forget set and ln(1 + e⁻¹), ln 2 on the retain set. Model w = (−1, 0)
// has margins −1, 0, −1: the forget record wrong, the retain records right. Planted by
// hand: a margin of 0 counted as the positive class fails the retain accuracy.
func TestLinearUtilityByHand(t *testing.T) {
	ds, err := reference.NewDataset([]int64{10, 11, 12}, mat.NewDense(3, 2, []float64{1, 0, 0, 1, 1, 1}), []float64{1, -1, -1})
	if err != nil {
		t.Fatal(err)
	}
	un := mat.NewDense(1, 2, []float64{1, -1})
	re := mat.NewDense(1, 2, []float64{-1, 0})
	in, err := LinearUtility(un, re, ds, []int64{10}, false)
	if err != nil {
		t.Fatal(err)
	}
	u, err := MeasureUtility("data", in, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	l1 := math.Log1p(math.Exp(-1))
	want := map[string]float64{
		"forget loss unlearned": l1, "forget loss retrained": math.Log1p(math.E),
		"forget accuracy unlearned": 1, "forget accuracy retrained": 0,
		"retain loss unlearned": (l1 + math.Ln2) / 2, "retain loss retrained": (math.Ln2 + l1) / 2,
		"retain accuracy unlearned": 1, "retain accuracy retrained": 1,
	}
	if len(u.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(u.Rows), len(want))
	}
	for _, r := range u.Rows {
		key := r.Set + " " + r.Measure + " " + r.Side
		if w, ok := want[key]; !ok || math.Abs(r.Mean-w) > 1e-15 {
			t.Errorf("%s = %v, want %v", key, r.Mean, w)
		}
	}
}
