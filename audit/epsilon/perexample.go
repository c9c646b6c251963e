package epsilon

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ExampleBound is one example's game in a PerExample audit.
type ExampleBound struct {
	Example int
	Result  Result    // the ε lower bound and the rule that gave it
	GDP     GDPResult // the Gaussian-DP route on the same scores (an estimate)
}

// PerExampleResult holds every example's bound and the largest. Every bound holds at the
// game's confidence for all the examples at once.
type PerExampleResult struct {
	Examples []ExampleBound
	Epsilon  float64 // the largest ε lower bound over the examples
	// PerExampleConfidence is the level each example's game was played at:
	// 1 − (1 − confidence)/k for k examples (Bonferroni).
	PerExampleConfidence float64
	// Resolution is the largest ε any example's game could show with these trials.
	Resolution float64
}

// PerExample plays the game on every example — column j of a against column j of b, one
// row per model — with the false-alarm budget shared among the k examples (each at
// confidence 1 − (1 − c)/k), so every bound, and their maximum, holds at confidence c for
// all examples at once.
func (g Game) PerExample(a, b mat.Matrix) (PerExampleResult, error) {
	na, k := a.Dims()
	nb, kb := b.Dims()
	if k != kb || k == 0 {
		return PerExampleResult{}, fmt.Errorf("per-example game: %d and %d examples; want the same number, at least one", k, kb)
	}
	per := g
	per.Confidence = 1 - (1-g.conf())/float64(k)
	out := PerExampleResult{PerExampleConfidence: per.Confidence,
		Resolution: MaxCertifiable(min(na, nb), g.Delta, per.Confidence, g.Strategy)}
	for j := range k {
		colA, colB := mat.Col(nil, j, a), mat.Col(nil, j, b)
		res, err := per.LowerBound(colA, colB)
		if err != nil {
			return PerExampleResult{}, fmt.Errorf("example %d: %w", j, err)
		}
		gdp, err := per.GDP(colA, colB)
		if err != nil {
			return PerExampleResult{}, fmt.Errorf("example %d: %w", j, err)
		}
		out.Examples = append(out.Examples, ExampleBound{Example: j, Result: res, GDP: gdp})
		out.Epsilon = math.Max(out.Epsilon, res.Epsilon)
	}
	return out, nil
}
