package checks

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
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
