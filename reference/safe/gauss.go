package safe

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// CovarianceUpdate is how a class's covariance follows a deletion.
type CovarianceUpdate int

const (
	// FixedEq23 is the exact downdate of the unbiased covariance (spec safe §2.1 step 3,
	// the [FIX] of Eq. 23): ((n−1)S − (m−1)S̃ − (m·n/n')·δμδμᵀ)/(n' − 1).
	FixedEq23 CovarianceUpdate = iota
	// PrintedEq23 is the paper's Eq. 23 as printed, ((n'−1)/(n−1))·S − S̃ +
	// n(n−n')/(n'(n−1))·δμδμᵀ: wrong (the ratio inverted, S̃ unscaled, the correction's
	// sign and denominator), kept so that an audit can show the difference.
	PrintedEq23
)

func (c CovarianceUpdate) String() string {
	if c == PrintedEq23 {
		return "printed Eq. 23"
	}
	return "exact downdate (fixed Eq. 23)"
}

// gaussian is one class's statistics of the standardised projected features: the count,
// the mean and the unbiased covariance (dividing by n − 1; zero for n ≤ 1).
type gaussian struct {
	n    int
	mean []float64
	cov  *mat.SymDense
}

func newGaussian(zs [][]float64, k int) gaussian {
	g := gaussian{n: len(zs), mean: make([]float64, k), cov: mat.NewSymDense(k, nil)}
	if g.n == 0 {
		return g
	}
	for _, z := range zs {
		for j, v := range z {
			g.mean[j] += v
		}
	}
	for j := range g.mean {
		g.mean[j] /= float64(g.n)
	}
	if g.n > 1 {
		for a := range k {
			for b := a; b < k; b++ {
				s := 0.0
				for _, z := range zs {
					s += (z[a] - g.mean[a]) * (z[b] - g.mean[b])
				}
				g.cov.SetSym(a, b, s/float64(g.n-1))
			}
		}
	}
	return g
}

func (g gaussian) clone() gaussian {
	c := gaussian{n: g.n, mean: append([]float64(nil), g.mean...), cov: mat.NewSymDense(g.cov.SymmetricDim(), nil)}
	c.cov.CopySym(g.cov)
	return c
}

// remove downdates g for the deleted points zs of its class (Eq. 22 for the mean; the
// covariance by rule). Removing every point leaves n = 0, and one point left a zero
// covariance.
func (g *gaussian) remove(zs [][]float64, rule CovarianceUpdate) {
	m := len(zs)
	if m == 0 {
		return
	}
	k := len(g.mean)
	del := newGaussian(zs, k) // μ̃, S̃ (S̃ = 0 for m = 1)
	n, n2 := float64(g.n), float64(g.n-m)
	if g.n-m <= 0 {
		g.n = 0
		clear(g.mean)
		g.cov.Zero()
		return
	}
	dmu := make([]float64, k)
	for j := range k {
		dmu[j] = g.mean[j] - del.mean[j]
	}
	newMean := make([]float64, k)
	for j := range k {
		newMean[j] = (n*g.mean[j] - float64(m)*del.mean[j]) / n2
	}
	next := mat.NewSymDense(k, nil)
	switch {
	case rule == PrintedEq23 && g.n > 1 && g.n-m > 0:
		c := n * (n - n2) / (n2 * (n - 1))
		for a := range k {
			for b := a; b < k; b++ {
				next.SetSym(a, b, (n2-1)/(n-1)*g.cov.At(a, b)-del.cov.At(a, b)+c*dmu[a]*dmu[b])
			}
		}
	case g.n-m > 1:
		c := float64(m) * n / n2
		for a := range k {
			for b := a; b < k; b++ {
				next.SetSym(a, b, ((n-1)*g.cov.At(a, b)-float64(m-1)*del.cov.At(a, b)-c*dmu[a]*dmu[b])/(n2-1))
			}
		}
	}
	g.n, g.mean, g.cov = g.n-m, newMean, next
}

// density evaluates log N(z | μ, Σ) for one class, with a ridge ρI added to Σ where it is
// singular (too few points, or numerically) — the spec's degenerate cases.
type density struct {
	mean   []float64
	chol   mat.Cholesky
	logDet float64
	ridged bool
}

// newDensity factorises g's covariance, adding ridge·I when g has no more points than
// dimensions or the factorisation fails.
func newDensity(g gaussian, ridge float64) (*density, error) {
	k := len(g.mean)
	d := &density{mean: append([]float64(nil), g.mean...)}
	s := mat.NewSymDense(k, nil)
	s.CopySym(g.cov)
	if g.n <= k {
		d.ridged = true
		for j := range k {
			s.SetSym(j, j, s.At(j, j)+ridge)
		}
	}
	if !d.chol.Factorize(s) {
		if d.ridged {
			return nil, fmt.Errorf("the covariance of %d points with ridge %g is not positive definite", g.n, ridge)
		}
		d.ridged = true
		for j := range k {
			s.SetSym(j, j, s.At(j, j)+ridge)
		}
		if !d.chol.Factorize(s) {
			return nil, fmt.Errorf("the covariance of %d points with ridge %g is not positive definite", g.n, ridge)
		}
	}
	d.logDet = d.chol.LogDet()
	return d, nil
}

// logPDF is log N(z | μ, Σ) = −½[k·log 2π + log det Σ + (z − μ)ᵀΣ⁻¹(z − μ)].
func (d *density) logPDF(z []float64) float64 {
	k := len(z)
	diff := mat.NewVecDense(k, nil)
	for j := range k {
		diff.SetVec(j, z[j]-d.mean[j])
	}
	var sol mat.VecDense
	if err := d.chol.SolveVecTo(&sol, diff); err != nil {
		return math.NaN()
	}
	return -0.5 * (float64(k)*math.Log(2*math.Pi) + d.logDet + mat.Dot(diff, &sol))
}
