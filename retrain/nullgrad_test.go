package retrain

import (
	"math"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
)

// The case rapid found (TestD2DAdaptiveConvexStrong, seed 3300279529118199568): λ = 0 and
// a row with components of 1e-14 in three otherwise empty columns. Along them the gradient
// is ~1e-15 with no curvature, so f has no minimiser there, but it is flat to rounding: the
// minimiser of the other two coordinates (norm 0.97, inside R = 1.361) with those left at
// zero has ‖∇f‖ ≈ 1e-15, an answer. Searching μ down to 4e-15 pushed the flat directions
// out to the sphere and returned a point with residual 2.4e-4.
func TestMinimizeLeavesFlatDirectionsAlone(t *testing.T) {
	recs := []reference.Record{
		{ID: 0, X: []float64{0, 0, 0, 0, 0}, Y: -1},
		{ID: 1, X: []float64{0, 0, 0, 0, 0}, Y: -1},
		{ID: 2, X: []float64{0, 0, 0, 0.031, 0}, Y: -1},
		{ID: 3, X: []float64{0, 0, 0, 0, 0.08}, Y: -1},
		{ID: 4, X: []float64{-4.49573675331691e-15, 4.405086763159406e-14, -1.3766097702390643e-14, -0.029891303434750105, -0.074205862160423}, Y: -1},
	}
	ds, err := reference.FromRecords(5, recs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Minimize(reference.Logistic{}.Objective(ds), 1.361, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.OnBoundary || res.Residual > 1e-10 {
		t.Errorf("on the sphere %v, residual %.3g: want the interior minimiser, residual ≤ 1e-10", res.OnBoundary, res.Residual)
	}
	for j := range 3 {
		if math.Abs(res.Theta[j]) > 1e-6 {
			t.Errorf("θ[%d] = %.3g: a flat direction was moved", j, res.Theta[j])
		}
	}
	// the two live coordinates solve 0.031σ(0.031a) = 0.0299s, 0.08σ(0.08b) = 0.0742s with
	// s = σ(−0.0299a − 0.0742b); linearised, (a, b) ≈ (−0.03, −0.97)
	if math.Abs(res.Theta[4]+0.97) > 0.02 || math.Abs(res.Theta[3]) > 0.1 {
		t.Errorf("θ = %v: not the minimiser of the live coordinates", res.Theta)
	}
}
