package estimate

import (
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Gaussian is a fitted normal law.
type Gaussian struct {
	Mean []float64
	Cov  *mat.SymDense
	// Shrinkage is the Ledoit–Wolf weight ρ ∈ [0, 1] of the scaled identity in
	// Cov = (1−ρ)·S + ρ·(tr S/d)·I.
	Shrinkage float64
}

// FitGaussian fits the mean and a Ledoit–Wolf shrunk covariance (Ledoit & Wolf 2004, the
// estimator of scikit-learn's ledoit_wolf) to the rows of x. The shrinkage toward the
// scaled identity makes the covariance well conditioned, and invertible, even when the
// dimension is close to or above the number of rows; with isotropic data it shrinks almost
// fully, so the fit is then nearly σ̂²I.
func FitGaussian(x mat.Matrix) Gaussian {
	n, d := x.Dims()
	if n < 2 {
		panic(fmt.Sprintf("estimate: Gaussian fit needs at least 2 rows, got %d", n))
	}
	c := mat.NewDense(n, d, nil)
	c.Copy(x)
	return fitCentring(c)
}

// fitCentring is FitGaussian of the rows of c, which it centres in place (callers that
// built c for the fit save FitGaussian's copy).
func fitCentring(c *mat.Dense) Gaussian {
	n, d := c.Dims()
	mean := make([]float64, d)
	for i := range n {
		for j, v := range c.RawRowView(i) {
			mean[j] += v / float64(n)
		}
	}
	var sumFourth float64 // Σ_k ‖x_k‖⁴ of the centred rows
	for i := range n {
		row := c.RawRowView(i)
		var sq float64
		for j := range row {
			row[j] -= mean[j]
			sq += row[j] * row[j]
		}
		sumFourth += sq * sq
	}
	s := mat.NewSymDense(d, nil)
	if math.IsInf(sumFourth, 0) || math.IsNaN(sumFourth) {
		blas64.Syrk(blas.Trans, 1/float64(n), c.RawMatrix(), 0, s.RawSymmetric())
	} else {
		syrkByRows(s, c, 1/float64(n)) // every entry finite
	}
	var trace float64
	for i := range d {
		trace += s.At(i, i)
	}
	mu := trace / float64(d)
	// ‖S − μI‖²_F/d term by term beside ‖S‖²_F, not as ‖S‖²_F/d − μ²: that difference
	// cancels where S is near μI (at d = 1 always), leaving only its rounding, which decided
	// ρ (0 or 1 by the sign of a rounding error: 1 on arm64, whose fused multiply–adds round
	// it otherwise)
	var frob2, delta2 float64
	for i := range d {
		for j := range d {
			v := s.At(i, j)
			frob2 += v * v
			if i == j {
				v -= mu
			}
			delta2 += v * v
		}
	}
	delta2 /= float64(d)
	beta2 := (sumFourth/float64(n) - frob2) / float64(n*d) // (1/n²)Σ‖x_k x_kᵀ − S‖²_F/d
	rho := 0.0
	if delta2 > 0 {
		rho = math.Max(0, math.Min(beta2, delta2)/delta2)
	}
	for i := range d {
		for j := i; j < d; j++ {
			v := (1 - rho) * s.At(i, j)
			if i == j {
				v += rho * mu
			}
			s.SetSym(i, j, v)
		}
	}
	return Gaussian{Mean: mean, Cov: s, Shrinkage: rho}
}

// RenyiGaussFit is D_α between Ledoit–Wolf Gaussian fits of the rows of a and of b: the
// plug-in estimate that is exact in the limit when both laws are Gaussian.
func RenyiGaussFit(alpha float64, a, b mat.Matrix) float64 {
	ga, gb := FitGaussian(a), FitGaussian(b)
	return dp.RenyiGaussian(alpha, ga.Mean, ga.Cov, gb.Mean, gb.Cov)
}

// univariate fits mean and (population) variance.
func univariate(x []float64) (mean, variance float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		variance += (v - mean) * (v - mean)
	}
	return mean, variance / float64(len(x))
}

// renyi1D is D_α between univariate Gaussian fits of a and b, with separate variances or
// one pooled variance.
func renyi1D(alpha float64, a, b []float64, model Covariance) float64 {
	ma, va := univariate(a)
	mb, vb := univariate(b)
	if model == Pooled {
		va = (va*float64(len(a)) + vb*float64(len(b))) / float64(len(a)+len(b))
		vb = va
	}
	return dp.RenyiGaussianIsotropic(alpha, math.Abs(ma-mb), 1, math.Sqrt(va), math.Sqrt(vb))
}

// syrkByRows sets the upper triangle of s to alpha·cᵀc for a c whose entries are all
// finite, with the arithmetic of blas64.Syrk(blas.Trans, alpha, c, 0, s) to the bit but
// in one call per row of s. gonum's Dsyrk fills row i of s by one axpy per row l of c,
// s_ij += (alpha·c_li)·c_lj for l = 0, 1, … (skipping a zero alpha·c_li); its Dgemv with
// the transpose of c's columns i… and c's column i as x does the same products, rounded
// the same way, added in the same order, but in one call per row i. Not skipping a zero
// multiplier adds ±0, which changes nothing when every c_lj is finite (a sum that starts
// at +0 is never −0). The fit's covariance is the bootstrap's costliest step at dimension
// 100; TestSyrkByRowsIsGonumsSyrk checks it to the bit.
func syrkByRows(s *mat.SymDense, c *mat.Dense, alpha float64) {
	cr, sr := c.RawMatrix(), s.RawSymmetric()
	n, d := cr.Rows, cr.Cols
	for i := range d {
		cols := blas64.General{Rows: n, Cols: d - i, Stride: cr.Stride, Data: cr.Data[i:]}
		x := blas64.Vector{N: n, Inc: cr.Stride, Data: cr.Data[i:]}
		y := blas64.Vector{N: d - i, Inc: 1, Data: sr.Data[i*sr.Stride+i:]}
		blas64.Gemv(blas.Trans, alpha, cols, x, 0, y)
	}
}
