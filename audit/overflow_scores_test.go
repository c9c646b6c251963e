package audit

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// finiteMean is the plain mean where the sum does not overflow, and the true mean where
// it does.
func TestFiniteMean(t *testing.T) {
	if m := finiteMean([]float64{1e308, 1e308, 1e308}); m != 1e308 {
		t.Errorf("mean of 1e308 ×3: %v", m)
	}
	if m := finiteMean([]float64{math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64, -math.MaxFloat64}); m != 0 {
		t.Errorf("mean of ±Max: %v", m)
	}
	xs := []float64{0.1, 0.2, 0.3}
	if m := finiteMean(xs); m != stat.Mean(xs, nil) {
		t.Errorf("ordinary mean: %v", m)
	}
}

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
	s := &Spec{Epsilon: 1, Delta: 1e-5, Confidence: 0.95, PowerAgainst: 2, Seed: 1}
	_, fs, err := VerifyScores(context.Background(), u, r, s)
	if err != nil {
		t.Fatal(err)
	}
	if fs[0].Verdict != Fail {
		t.Errorf("1e308 against 1: %s (%s)", fs[0].Verdict, fs[0].Detail)
	}
}

// A statistic that overflows all the same (a projection of parameters of ±1e308) is
// refused by name, side and model, not played.
func TestNonFiniteStatisticRefused(t *testing.T) {
	u, r := make([]float64, 40), make([]float64, 40)
	for i := range u {
		u[i], r[i] = float64(i), float64(i)
	}
	u[7] = math.Inf(1)
	g := FamilyGame{Check: "c", Epsilon: 1, Delta: 1e-5}
	_, err := g.Play(context.Background(), []epsilon.Statistic{{Name: "projection", Pos: u, Neg: r}})
	var ne *NonFiniteError
	if !errors.As(err, &ne) || ne.Side != "unlearned" || ne.Model != 7 || ne.Statistic != "projection" {
		t.Fatalf("Play: %v; want a NonFiniteError naming unlearned model 7", err)
	}
	_, err = RankCheck{Check: "c", Epsilon: 1, Delta: 1e-5}.Play(context.Background(), "mean", []float64{1}, append(r[:10:10], math.NaN()))
	if !errors.As(err, &ne) || ne.Side != "retrained" || ne.Model != 10 {
		t.Fatalf("rank Play: %v; want a NonFiniteError naming retrained model 10", err)
	}
}
