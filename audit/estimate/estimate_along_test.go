package estimate

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// ProjectedAlong the fitted direction is Projected, to the bit; along another direction it
// is another estimate, and a direction of the wrong length is refused.
func TestProjectedAlongIsProjected(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	const n, d = 400, 5
	a, b := mat.NewDense(n, d, nil), mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			a.Set(i, j, r.NormFloat64()+0.1*float64(j))
			b.Set(i, j, r.NormFloat64())
		}
	}
	opt := Options{Alpha: 2, Covariance: Pooled, Seed: 3}
	want, err := Projected(a, b, opt)
	if err != nil {
		t.Fatal(err)
	}
	u := FisherDirection(a, b)
	for _, dir := range [][]float64{u, nil} {
		got, err := ProjectedAlong(a, b, dir, opt)
		if err != nil || got != want {
			t.Errorf("along %v: %+v (%v); Projected %+v", dir, got, err, want)
		}
	}
	other := []float64{1, 0, 0, 0, 0}
	if got, err := ProjectedAlong(a, b, other, opt); err != nil || got == want {
		t.Errorf("along the first axis: %+v (%v), the same as along the fitted direction", got, err)
	}
	if _, err := ProjectedAlong(a, b, u[:3], opt); err == nil {
		t.Error("a direction of 3 coordinates for 5 was accepted")
	}
}
