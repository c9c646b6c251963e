package props_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/artifact"
	"github.com/unlearnaudit/unlearnaudit/audit/verify"
	"github.com/unlearnaudit/unlearnaudit/props"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

func positives(data *reference.Dataset, k int) []int64 {
	var out []int64
	for i := range data.Len() {
		if data.Label(i) > 0 && len(out) < k {
			out = append(out, data.ID(i))
		}
	}
	return out
}

// A correct unlearner — it retrains on the remaining data, so both sides share one law —
// is never shown to violate its claim: the game FAILs a correct method with probability at
// most 0.05 (confidence 0.95), and on this seed it does not. It may lack the power to PASS.
func TestCheckUnlearnerAcceptsACorrectMethod(t *testing.T) {
	data, _ := reference.SyntheticClassification(100, 3, 7)
	deletes := positives(data, 20)
	correct := props.Unlearner{Name: "retrain-and-noise", Epsilon: 1, Delta: 1e-3,
		Unlearn: func(ctx context.Context, data *reference.Dataset, del []int64, s reference.Streams) ([]float64, error) {
			rem, err := data.Without(del...)
			if err != nil {
				return nil, err
			}
			return outputPerturbation(ctx, rem, s, 0.005)
		},
		Retrain: func(ctx context.Context, remaining *reference.Dataset, s reference.Streams) ([]float64, error) {
			return outputPerturbation(ctx, remaining, s, 0.005)
		},
	}
	var r reportLog
	f := props.CheckUnlearner(&r, correct, data, deletes, 200, 1)
	if len(r.errors) > 0 || f.Verdict == verdict.Fail {
		t.Fatalf("a correct unlearner was failed: %v (%s)", r.errors, f.Verdict)
	}
}

// A method that takes randomness from anywhere but the streams it is given cannot be
// audited (its trials do not re-run); CheckUnlearner says so before running any.
func TestCheckUnlearnerRefusesIrreproducibleMethods(t *testing.T) {
	data, _ := reference.SyntheticClassification(50, 3, 7)
	global := rand.New(rand.NewPCG(1, 2))
	bad := props.Unlearner{Name: "global-rng", Epsilon: 1, Delta: 1e-3,
		Unlearn: func(ctx context.Context, data *reference.Dataset, _ []int64, s reference.Streams) ([]float64, error) {
			return []float64{global.NormFloat64()}, nil
		},
		Retrain: func(ctx context.Context, _ *reference.Dataset, s reference.Streams) ([]float64, error) {
			return []float64{global.NormFloat64()}, nil
		},
	}
	var r reportLog
	props.CheckUnlearner(&r, bad, data, positives(data, 2), 16, 1)
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "different models from the same streams") {
		t.Fatalf("errors %v; want the reproducibility refusal", r.errors)
	}
}

// One production model against reference retrains (CheckSavedScores, the rank test of the
// deleted records' mean loss): the PyTorch MLP that forgot nothing (bench/detection) is
// failed with one model against 64 retrains, an honest one is not and is never passed.
func TestCheckSavedScoresOneModel(t *testing.T) {
	dir := filepath.Join("..", "bench", "detection", "testdata", "torch_mlp")
	one := t.TempDir()
	for _, sample := range []string{"fake", "honest"} {
		m, _, err := artifact.LoadSample(filepath.Join(dir, "deleted_"+sample+".npy"), reference.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(one, sample+".csv")
		row := make([]string, m.RawMatrix().Cols)
		for j := range row {
			row[j] = strconv.FormatFloat(m.At(0, j), 'g', -1, 64)
		}
		if err := os.WriteFile(path, []byte(strings.Join(row, ",")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var r reportLog
		f := props.CheckSavedScores(&r, sample, path, filepath.Join(dir, "deleted_retrained.npy"), 1, 1e-3, 1)
		t.Logf("%s: %s p = %.4g against %.4g", sample, f.Verdict, f.Measured, f.Bound)
		if sample == "fake" && (f.Verdict != verdict.Fail || len(r.errors) != 1) || sample == "honest" && (f.Verdict != verdict.Inconclusive || len(r.errors) != 0) {
			t.Errorf("%s model: %s, errors %v", sample, f.Verdict, r.errors)
		}
	}
}

// CheckSaved on models on disk: the correct scikit-learn sample is not failed (its game's
// false-failure probability is 5 %; the fixture is one fixed draw that does not), the
// broken one is; unreadable or unpaired samples fail the test naming what is wrong; and a
// SavedSubject refuses a trial past its models instead of reusing one.
func TestCheckSaved(t *testing.T) {
	dir := filepath.Join("..", "cmd", "audit", "testdata", "verify")
	var good reportLog
	if f := props.CheckSaved(&good, "good", filepath.Join(dir, "good"), filepath.Join(dir, "retrained"), 1, 1e-3, 1); f.Verdict == verdict.Fail || len(good.errors) > 0 || f.Trials != 40 {
		t.Errorf("correct sample: %s over %d trials, errors %v", f.Verdict, f.Trials, good.errors)
	}
	var broken reportLog
	if f := props.CheckSaved(&broken, "broken", filepath.Join(dir, "broken"), filepath.Join(dir, "retrained"), 1, 1e-3, 1); f.Verdict != verdict.Fail || len(broken.errors) != 1 {
		t.Errorf("broken sample: %s, errors %v", f.Verdict, broken.errors)
	}
	for _, c := range []struct{ unlearned, want string }{
		{filepath.Join(dir, "missing"), "unlearned models"},
		{filepath.Join(dir, "scores_good.npz"), "parameters"}, // 40 × 50 scores against 40 × 31 models
	} {
		var r reportLog
		props.CheckSaved(&r, "bad", c.unlearned, filepath.Join(dir, "retrained"), 1, 1e-3, 1)
		if len(r.errors) != 1 || !strings.Contains(r.errors[0], c.want) {
			t.Errorf("%s: errors %v, want one naming %q", c.unlearned, r.errors, c.want)
		}
	}
	s, err := verify.NewSavedSubject("s", verdict.Claim{}, mat.NewDense(2, 1, []float64{1, 2}), mat.NewDense(2, 1, []float64{3, 4}))

	if err != nil {
		t.Fatal(err)
	}
	if rel, err := s.Retrained(context.Background(), reference.Streams{Trial: 1}); err != nil || rel.Published[0] != 4 {
		t.Errorf("trial 1 retrained: %v, %v", rel.Published, err)
	}
	if _, err := s.Unlearned(context.Background(), reference.Streams{Trial: 2}); err == nil || !strings.Contains(err.Error(), "trial 2 of 2 saved models") {
		t.Errorf("trial past the saved models: %v", err)
	}
	if _, err := verify.NewSavedSubject("s", verdict.Claim{}, mat.NewDense(2, 1, nil), mat.NewDense(3, 1, nil)); err == nil {
		t.Error("unpaired samples accepted")
	}
}

// An INCONCLUSIVE game is logged with the models a side that would decide, and does not
// fail the test; with FailInconclusive it fails it, saying so. The correct sample's 40
// models a side are too few to PASS at ε = 1 (the game has no power against 2×).
func TestCheckSavedInconclusiveIsLoggedOrFailed(t *testing.T) {
	dir := filepath.Join("..", "cmd", "audit", "testdata", "verify")
	u, r := filepath.Join(dir, "good"), filepath.Join(dir, "retrained")
	var logged reportLog
	f := props.CheckSaved(&logged, "good", u, r, 1, 1e-3, 1)
	if f.Verdict != verdict.Inconclusive {
		t.Fatalf("the fixture's verdict is %s; the test needs an INCONCLUSIVE one", f.Verdict)
	}
	if len(logged.errors) != 0 || len(logged.logs) != 1 || !strings.Contains(logged.logs[0], "INCONCLUSIVE (not a pass: about "+strconv.Itoa(f.TrialsNeeded)+" models a side would decide)") {
		t.Errorf("without the option: errors %q, logs %q", logged.errors, logged.logs)
	}
	var failed reportLog
	props.CheckSaved(&failed, "good", u, r, 1, 1e-3, 1, props.FailInconclusive())
	if len(failed.errors) != 1 || !strings.Contains(failed.errors[0], "INCONCLUSIVE") || !strings.Contains(failed.errors[0], "FailInconclusive") || len(failed.logs) != 0 {
		t.Errorf("with FailInconclusive: errors %q, logs %q", failed.errors, failed.logs)
	}
}
