package props_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/props"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/retrain"
)

// outputPerturbation is a simple certified unlearner: the exact minimiser of the data that
// remain, plus Gaussian noise of scale sigma from the trial's "publish" stream.
func outputPerturbation(ctx context.Context, remaining *reference.Dataset, s reference.Streams, sigma float64) ([]float64, error) {
	loss := reference.Logistic{Lambda: 0.1}
	res, err := retrain.Minimize(loss.Objective(remaining), math.Inf(1), retrain.Options{})
	if err != nil {
		return nil, err
	}
	noise := make([]float64, len(res.Theta))
	reference.FillNormal(noise, sigma, s.Rand("publish"))
	for j := range noise {
		res.Theta[j] += noise[j]
	}
	return res.Theta, nil
}

// reportLog collects what CheckUnlearner reports, as a *testing.T would.
type reportLog struct{ errors, logs []string }

func (r *reportLog) Helper() {}
func (r *reportLog) Logf(f string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(f, args...))
}
func (r *reportLog) Errorf(f string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(f, args...))
}

// A deliberately broken unlearner: it forgets to delete (it retrains on everything), and
// its noise is too small to hide the 20 records it keeps. CheckUnlearner's game shows the
// claim violated. In a test, pass t instead of the recorder.
func ExampleCheckUnlearner() {
	data, _ := reference.SyntheticClassification(100, 3, 7)
	var deletes []int64 // 20 records of the positive class: their removal moves θ* by 0.04
	for i := range data.Len() {
		if data.Label(i) > 0 && len(deletes) < 20 {
			deletes = append(deletes, data.ID(i))
		}
	}
	const sigma = 0.005
	broken := props.Unlearner{
		Name: "forgetful", Epsilon: 1, Delta: 1e-3,
		Unlearn: func(ctx context.Context, data *reference.Dataset, _ []int64, s reference.Streams) ([]float64, error) {
			return outputPerturbation(ctx, data, s, sigma) // the bug: the deletions are ignored
		},
		Retrain: func(ctx context.Context, remaining *reference.Dataset, s reference.Streams) ([]float64, error) {
			return outputPerturbation(ctx, remaining, s, sigma)
		},
	}
	var t reportLog
	props.CheckUnlearner(&t, broken, data, deletes, 200, 1)
	for _, e := range t.errors {
		fmt.Println(e[:strings.Index(e, " over ")])
	}
	// Output:
	// forgetful violates its (ε = 1, δ = 0.001) claim: ε lower bound of a distinguishing game on the published models at δ = 0.001 shows ε ≥ 3.1
}

// Models saved by another tool — here scikit-learn models written by NumPy
// (cmd/audit/testdata/verify/make_models.py), a folder of .npy files each — audited from
// `go test`: the broken sample ignored its deletions, and the game shows it. In a test,
// pass t instead of the recorder.
func ExampleCheckSaved() {
	dir := filepath.Join("..", "cmd", "audit", "testdata", "verify")
	var t reportLog
	f := props.CheckSaved(&t, "sklearn-logistic", filepath.Join(dir, "broken"), filepath.Join(dir, "retrained"), 1, 1e-3, 1)
	fmt.Println(f.Verdict, len(t.errors), "error")
	// Output:
	// FAIL 1 error
}
