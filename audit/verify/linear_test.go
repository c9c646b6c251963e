package verify_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/artifact"
	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/audit/verify"
	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// verifyFixtures are the scikit-learn models of cmd/audit/testdata/verify (make_models.py):
// L2-logistic regression with an intercept on the standardised breast-cancer data, the
// first 50 records deleted, and the models' logistic losses on them as NumPy computed them.
const verifyFixtures = "../../cmd/audit/testdata/verify"

func breastCancer(t *testing.T) *reference.Dataset {
	t.Helper()
	ds, err := reference.LoadSklearnCSV(filepath.Join(testenv.Datasets(t), "sklearn", "breast_cancer.csv"), reference.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	ds, _, err = ds.BinaryLabels(1).Preprocess([]string{"standardize"}) // as StandardScaler (population σ)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func ids(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i)
	}
	return out
}

// The losses the toolkit computes from scikit-learn's weights and the data equal those
// NumPy computed from the same weights (np.logaddexp(0, −margin)) to rounding: the
// intercept is read first, the labels ±1, the standardisation StandardScaler's. The
// tolerance is float64 rounding of 30-term dot products and a logarithm, relative 1e-12.
func TestLinearLossesMatchNumPy(t *testing.T) {
	ds := breastCancer(t)
	for _, side := range []string{"good", "broken", "retrained"} {
		models, _, err := artifact.LoadSample(filepath.Join(verifyFixtures, side), reference.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := verify.LinearLosses(models, ds, ids(50), true)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := artifact.LoadSample(filepath.Join(verifyFixtures, "scores_"+side+".npz"), reference.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if r, c := want.Dims(); r != 40 || c != 50 || !closeRel(got, want, 1e-12) {
			t.Errorf("%s: losses differ from NumPy's (%d × %d)", side, r, c)
		}
	}
	models, _, _ := artifact.LoadSample(filepath.Join(verifyFixtures, "good"), reference.Limits{})
	if _, err := verify.LinearLosses(models, ds, ids(3), false); err == nil || !strings.Contains(err.Error(), "31 parameters, the data 30 features (with no intercept, want 30)") {
		t.Errorf("an intercept read as a weight: %v", err)
	}
	if _, err := verify.LinearLosses(models, ds, []int64{100000}, true); err == nil || !strings.Contains(err.Error(), "record ID 100000 is not in the dataset") {
		t.Errorf("unknown record: %v", err)
	}
}

func closeRel(a, b *mat.Dense, tol float64) bool {
	r, c := a.Dims()
	for i := range r {
		for j := range c {
			x, y := a.At(i, j), b.At(i, j)
			if math.Abs(x-y) > tol*math.Max(math.Abs(y), 1e-300) {
				return false
			}
		}
	}
	return true
}

// Saved models get the spec's attacks in one game over the family: the parameter
// statistics and the deleted records' losses. Deleting records the broken models never
// forgot is caught, by the deleted records' loss with the data and by the parameters
// without; a membership attack without data is refused rather than dropped.
func TestVerifyModelsAttacks(t *testing.T) {
	ds := breastCancer(t)
	good, _, _ := artifact.LoadSample(filepath.Join(verifyFixtures, "good"), reference.Limits{})
	broken, _, _ := artifact.LoadSample(filepath.Join(verifyFixtures, "broken"), reference.Limits{})
	retrained, _, _ := artifact.LoadSample(filepath.Join(verifyFixtures, "retrained"), reference.Limits{})
	spec := func(attacks audit.Attacks) *spec.Spec {
		s, err := spec.ParseSpec(strings.NewReader(`{"method": {"name": "d2d"}, "model": {"intercept": true}, "claim": {"epsilon": 1, "delta": 1e-3}}`), "spec.json")
		if err != nil {
			t.Fatal(err)
		}
		s.Deletes, s.Attacks = ids(50), attacks
		return s
	}
	checks := func(fs []verdict.Finding) (out []string) {
		for _, f := range fs {
			out = append(out, f.Check+"="+string(f.Verdict))
		}
		return out
	}
	_, fs, err := verify.VerifyModels(context.Background(), broken, retrained, ds, spec(nil))
	if err != nil || strings.Join(checks(fs), " ") != "verify/empirical/epsilon-lower-bound=FAIL" || !strings.Contains(fs[0].Detail, "pre-registered") && !strings.Contains(fs[0].Title, "pre-registered") {
		t.Errorf("broken models, both attacks: %v %v", checks(fs), err)
	}
	var names []string
	for _, e := range fs[0].Estimates {
		names = append(names, e.Name)
	}
	if got := strings.Join(names, "; "); !strings.Contains(got, "AUC of the deciding statistic") || !strings.Contains(got, "TPR at FPR 0.001 of the deciding statistic") || fs[0].Scores == nil {
		t.Errorf("broken models: estimates %q and scores %v; want the deciding statistic's AUC, TPR at low FPR and histograms", got, fs[0].Scores)
	}
	_, fs, err = verify.VerifyModels(context.Background(), broken, retrained, ds, spec(audit.Attacks{audit.MembershipAttack}))
	if err != nil || len(fs) != 1 || fs[0].Verdict != verdict.Fail || !strings.Contains(fs[0].Detail, "over the deleted records") {
		t.Errorf("broken models, membership only: %v %v", checks(fs), err)
	}
	_, fs, err = verify.VerifyModels(context.Background(), good, retrained, ds, spec(audit.Attacks{audit.MembershipAttack}))
	if err != nil || len(fs) != 1 || fs[0].Verdict == verdict.Fail || fs[0].Power == nil {
		t.Errorf("good models, membership only: %v %v", checks(fs), err)
	}
	_, fs, err = verify.VerifyModels(context.Background(), good, retrained, nil, spec(nil))
	if err != nil || len(fs) != 1 || fs[0].Check != "verify/empirical/epsilon-lower-bound" {
		t.Errorf("no data, default attacks: the game alone: %v %v", checks(fs), err)
	}
	if _, _, err := verify.VerifyModels(context.Background(), good, retrained, nil, spec(audit.Attacks{audit.MembershipAttack})); err == nil || !strings.Contains(err.Error(), "membership needs the spec's data and deletes") {
		t.Errorf("membership without data: %v", err)
	}
}

// Per-example scores from linear models: two models [b, w₁, w₂] (intercept first, as
// scikit-learn's [intercept_, coef_]) scored on records 7 and 9.
func ExampleLinearLosses() {
	ds, err := reference.NewDataset([]int64{7, 8, 9}, mat.NewDense(3, 2, []float64{1, 0, 0, 1, -1, 1}), []float64{1, -1, -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	models := mat.NewDense(2, 3, []float64{
		0, 2, 0, // fits record 7 (margin 2) and 9 (margin 2)
		0.5, 0, 0, // a constant: margin ±0.5
	})
	losses, err := verify.LinearLosses(models, ds, []int64{7, 9}, true)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.4f\n", mat.Formatted(losses))
	// Output:
	// ⎡0.1269  0.1269⎤
	// ⎣0.4741  0.9741⎦
}
