package estimate

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"pgregory.net/rapid"
)

// The Woodbury route of FisherDirection (dimension above the rows, no d × d matrix) gives
// the direction of the dense pooled Ledoit–Wolf solve. Both solve Σ̂u = Δ in float64, so
// their unit vectors agree to the conditioning of Σ̂: ‖û₁ − û₂‖ ≤ κ(Σ̂)·d·1e-14 (a backward-stable
// solve errs by κ·O(d)·ε with ε = 1.1e-16; the factor 100 covers the Gram route's own
// rounding).
func TestFisherLowRankMatchesDense(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		na := rapid.IntRange(1, 6).Draw(t, "na")
		nb := rapid.IntRange(1, 6).Draw(t, "nb")
		d := rapid.IntRange(na+nb+1, 40).Draw(t, "d")
		scale := []float64{1e-3, 1, 1e3}[rapid.IntRange(0, 2).Draw(t, "scale")]
		fill := func(n int, label string) *mat.Dense {
			m := mat.NewDense(n, d, nil)
			for i := range n {
				for j := range d {
					m.Set(i, j, scale*float64(rapid.IntRange(-20, 20).Draw(t, label))/10)
				}
			}
			return m
		}
		a, b := fill(na, "a"), fill(nb, "b")
		dense := fisherDense(a, b).RawVector().Data
		low := fisherLowRank(a, b)
		ga, _ := fitPair(a, b, Pooled)
		var eig mat.EigenSym
		if !eig.Factorize(ga.Cov, false) {
			t.Fatal("eigen-decomposition failed")
		}
		vals := eig.Values(nil)
		kappa := math.Inf(1)
		if vals[0] > 0 {
			kappa = vals[len(vals)-1] / vals[0]
		}
		nrm := floats.Norm(dense, 2)
		if nrm == 0 {
			if floats.Norm(low, 2) != 0 {
				t.Fatalf("dense direction is 0 (equal means), low-rank %v", low)
			}
			return
		}
		if math.IsInf(kappa, 1) {
			return // singular pooled covariance: both fall back to the mean difference, checked below
		}
		// FisherDirection keeps only the direction: compare unit vectors
		floats.Scale(1/nrm, dense)
		floats.Scale(1/floats.Norm(low, 2), low)
		diff := make([]float64, d)
		floats.SubTo(diff, dense, low)
		if rel, tol := floats.Norm(diff, 2), kappa*float64(d)*1e-14; rel > tol {
			t.Fatalf("low-rank direction differs from dense by %v relative (κ = %v, tolerance %v)", rel, kappa, tol)
		}
	})
}

// With no spread at all the shrunk covariance is 0, and both routes return the mean
// difference.
func TestFisherLowRankWithoutSpreadIsMeanDifference(t *testing.T) {
	a := mat.NewDense(2, 5, []float64{1, 2, 3, 4, 5, 1, 2, 3, 4, 5})
	b := mat.NewDense(2, 5, []float64{0, 2, 3, 4, 7, 0, 2, 3, 4, 7})
	want := []float64{1, 0, 0, 0, -2}
	if got := fisherLowRank(a, b); !floats.Equal(got, want) {
		t.Errorf("low-rank: %v, want %v", got, want)
	}
	if got := fisherDense(a, b).RawVector().Data; !floats.Equal(got, want) {
		t.Errorf("dense: %v, want %v", got, want)
	}
}
