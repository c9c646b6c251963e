package props_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/props"
	"github.com/unlearnaudit/unlearnaudit/reference"
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
	if len(r.errors) > 0 || f.Verdict == audit.Fail {
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
