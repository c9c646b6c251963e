package props_test

import (
	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"path/filepath"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/props"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
)

// realRun serves delete, add, delete on real data and checks every round against exact
// retraining with props.CheckD2DRun, in both modes.
func realRun(t *testing.T, ds *reference.Dataset) {
	t.Helper()
	held, err := ds.Sample(1, reference.Stream(1, 0, "held"))
	if err != nil {
		t.Fatal(err)
	}
	d0, _ := ds.Without(held.ID(0))
	updates := []reference.Update{reference.DeleteID(d0.ID(3)), reference.AddRecord(held.Record(0)), reference.DeleteID(d0.ID(10))}
	loss := reference.Logistic{Lambda: 0.05}
	radius := reference.MinimiserRadius(loss, ds) // contains every unconstrained minimiser
	for _, mode := range []d2d.Mode{d2d.SecretState, d2d.Perfect} {
		p := d2d.Params{Constants: loss.Constants(ds, radius), Radius: radius, N: d0.Len(), Dim: d0.Dim(), Budget: 10, Epsilon: 1, Delta: 1e-6}
		if mode == d2d.Perfect {
			p.Budget = max(p.Budget, p.PerfectMinBudget())
		}
		plan, err := d2d.NewPlan(mode, p)
		if err != nil {
			t.Fatal(err)
		}
		props.CheckD2DRun(t, plan, loss, d0, updates)
	}
}

func TestD2DOnBreastCancer(t *testing.T) {
	ds, err := reference.LoadSklearnCSV(filepath.Join(testenv.Datasets(t), "sklearn", "breast_cancer.csv"), reference.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	realRun(t, ds.BinaryLabels(1).Standardize().NormalizeRows())
}

func TestD2DOnMNIST3vs8(t *testing.T) {
	images := filepath.Join(testenv.Datasets(t), "mnist-t10k", "t10k-images-idx3-ubyte.gz")
	ds, err := reference.LoadIDX(images, reference.DefaultLabelsPath(images), reference.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := ds.SelectClasses(3, 8)
	if err != nil {
		t.Fatal(err)
	}
	realRun(t, pair.Scale(1.0/255).NormalizeRows())
}
