package verify

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"gonum.org/v1/gonum/mat"
)

// The red team's scores: 40 unlearned models scoring 1e308 on each of 50 records, 40
// retrained ones near 1. The scores route decides (the sides are far apart) instead of
// panicking.
func TestVerifyScoresOf1e308(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	u, r := mat.NewDense(40, 50, nil), mat.NewDense(40, 50, nil)
	for i := range 40 {
		for j := range 50 {
			u.Set(i, j, 1e308)
			r.Set(i, j, 1+0.2*rng.NormFloat64())
		}
	}
	s := &spec.Spec{Epsilon: 1, Delta: 1e-5, Confidence: 0.95, PowerAgainst: 2, Seed: 1}
	_, fs, err := VerifyScores(context.Background(), u, r, s)
	if err != nil {
		t.Fatal(err)
	}
	if fs[0].Verdict != verdict.Fail {
		t.Errorf("1e308 against 1: %s (%s)", fs[0].Verdict, fs[0].Detail)
	}
}
