package verify_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"

	_ "github.com/unlearnaudit/unlearnaudit/audit/methods" // the recipes run the registered methods
	"github.com/unlearnaudit/unlearnaudit/audit/spec"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/audit/verify"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/retrain"
	"gonum.org/v1/gonum/mat"
)

// recipeFixture is the synthetic demo data, a spec deleting its most influential record
// and two others with D2D's one-shot variant, and the recipe built from them.
func recipeFixture(t *testing.T, variant string) (*spec.Spec, *verify.Recipe) {
	t.Helper()
	ds, err := reference.SyntheticClassification(1000, 20, 1)
	if err != nil {
		t.Fatal(err)
	}
	loss := reference.Logistic{Lambda: 0.05}
	opt, err := retrain.Minimize(loss.Objective(ds), reference.MinimiserRadius(loss, ds), retrain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	row, _ := loss.Objective(ds).MostInfluential(opt.Theta)
	text := fmt.Sprintf(`{"method": {"name": "d2d", "variants": [%q]}, "model": {"lambda": 0.05}, "deletes": [%d, 3, 4],
		"claim": {"epsilon": 1, "delta": 1e-3}, "trials": 60}`, variant, ds.ID(row))
	s, err := spec.ParseSpec(strings.NewReader(text), "spec.json")
	if err != nil {
		t.Fatal(err)
	}
	r, err := verify.NewRecipe(t.Context(), s, ds)
	if err != nil {
		t.Fatal(err)
	}
	return s, r
}

// sample publishes n models of a subject (the real unlearner or a control) on a seed of
// their own: the "models trained elsewhere".
func sample(t *testing.T, sub trials.Subject, n int) *mat.Dense {
	t.Helper()
	var out *mat.Dense
	for i := range n {
		rel, err := sub.Unlearned(context.Background(), reference.Streams{Seed: 424242, Trial: i})
		if err != nil {
			t.Fatal(err)
		}
		if out == nil {
			out = mat.NewDense(n, len(rel.Published), nil)
		}
		out.SetRow(i, rel.Published)
	}
	return out
}

func controlSubject(t *testing.T, r *verify.Recipe, name string) trials.Subject {
	t.Helper()
	for _, c := range r.Audited.Controls {
		if c.Name == name {
			return c.Audited.Subject
		}
	}
	t.Fatalf("no control %q", name)
	return nil
}

// Retraining by the recipe stands in for supplied retrained models: models of the real
// unlearner are not failed by the distributional game nor by the membership attack on the
// deleted records' losses that joins it (each has false-failure probability
// 1 − confidence = 5 %, at most 10 % together, and the seeds are fixed), models with a
// tenth of the noise are failed. One model gets the rank test of the deleted records' mean
// loss among RankRetrains retrains: a model of the real unlearner is INCONCLUSIVE — one
// model never passes — and a model trained elsewhere with the deletions ignored, no noise
// and a hundredth of the regularisation (it fits every record, the deleted ones included,
// better than any retrain) is failed, its p at most 1/(M + 1).
func TestVerifyAgainstRecipe(t *testing.T) {
	s, r := recipeFixture(t, "perfect")
	ctx := context.Background()
	good, weak := sample(t, r.Audited.Subject, 60), sample(t, controlSubject(t, r, "weak-noise"), 60)
	overfit := reference.Logistic{Lambda: s.Lambda / 100}
	all, err := retrain.Minimize(overfit.Objective(r.Setup.All), reference.MinimiserRadius(overfit, r.Setup.All), retrain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		models *mat.Dense
		want   verdict.Verdict
	}{
		{"real unlearner, 60 models", good, ""},
		{"a tenth of the noise, 60 models", weak, verdict.Fail},
		{"real unlearner, one model", mat.DenseCopyOf(good.Slice(0, 1, 0, good.RawMatrix().Cols)), verdict.Inconclusive},
		{"noiseless, deletion ignored, λ/100, one model", mat.NewDense(1, len(all.Theta), all.Theta), verdict.Fail},
	} {
		claim, fs, ret, err := verify.VerifyAgainstRecipe(ctx, c.models, r, s, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want := []string{"verify/empirical/epsilon-lower-bound"}
		if c.models.RawMatrix().Rows == 1 {
			want = []string{"verify/empirical/rank"}
		}
		var got []string
		for _, f := range fs {
			got = append(got, f.Check)
		}
		if !slices.Equal(got, want) || claim.Required[0] != verdict.Empirical {
			t.Fatalf("%s: findings %v, want %v; required %v", c.name, got, want, claim.Required)
		}
		f := fs[0]
		t.Logf("%s: %s %s measured %.4g bound %.4g (%d retrains): %s", c.name, f.Verdict, f.Check, f.Measured, f.Bound, ret.RawMatrix().Rows, f.Detail)
		if m := ret.RawMatrix().Rows; f.Trials == 1 && m != verify.RankRetrains(s, 1, s.Trials) {
			t.Errorf("%s: %d retrains, want RankRetrains", c.name, m)
		}
		if c.want == verdict.Fail && f.Trials == 1 {
			// the model is below every retrain: p = U/(M+1) for the tie-breaker U
			if m := ret.RawMatrix().Rows; f.Measured > 1/float64(m+1) {
				t.Errorf("%s: p = %g, want at most 1/(M+1) = %g", c.name, f.Measured, 1/float64(m+1))
			}
		}
		switch v := verdict.Decide(claim, fs); {
		case c.want == "" && v == verdict.Fail:
			t.Errorf("%s: FAIL for the real unlearner", c.name)
		case c.want != "" && v != c.want:
			t.Errorf("%s: %s, want %s", c.name, v, c.want)
		}
	}
}

// The recipe is one procedure with its deletions named, and retrains of one seed are the
// same for any number of workers.
func TestRecipeRefusalsAndDeterminism(t *testing.T) {
	ds, _ := reference.SyntheticClassification(200, 5, 1)
	for text, want := range map[string]string{
		`{"method": {"name": "d2d", "variants": ["perfect"]}}`:                                    "deletes: none named",
		`{"method": {"name": "d2d", "variants": ["perfect", "strongly-convex"]}, "deletes": [1]}`: "method.variants: 2 selected",
		`{"method": {"name": "d2d", "variants": ["perfect"]}, "deletes": [5000]}`:                 "record ID 5000 is not in the dataset",
	} {
		s, err := spec.ParseSpec(strings.NewReader(text), "spec.json")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := verify.NewRecipe(t.Context(), s, ds); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", text, err, want)
		}
	}
	s, r := recipeFixture(t, "perfect")
	a, err := r.Retrain(context.Background(), s.Seed, 6, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := r.Retrain(context.Background(), s.Seed, 6, 3)
	if !mat.Equal(a, b) {
		t.Error("retrains differ between 1 and 3 workers")
	}
	if mat.EqualApprox(a.Slice(0, 1, 0, 20), a.Slice(1, 2, 0, 20), 1e-12) {
		t.Error("two retrains are equal: no fresh randomness")
	}
}

// NewRecipe's context reaches the method's setup: SAFE's (which trains its original
// model) stops on a context already cancelled and says so, instead of running to its end.
func TestNewRecipeHonoursItsContext(t *testing.T) {
	ds, err := reference.SyntheticClassification(400, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	text := `{"method": {"name": "safe", "variants": ["safe"]}, "model": {"lambda": 0.05}, "deletes": [3, 4],
		"claim": {"epsilon": 1, "delta": 1e-3}, "trials": 60}`
	s, err := spec.ParseSpec(strings.NewReader(text), "spec.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verify.NewRecipe(t.Context(), s, ds); err != nil {
		t.Fatalf("the recipe with a live context: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := verify.NewRecipe(ctx, s, ds); !errors.Is(err, context.Canceled) {
		t.Errorf("the recipe with a cancelled context: %v; want context.Canceled", err)
	}
}
