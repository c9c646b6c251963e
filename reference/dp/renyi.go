package dp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// RenyiGaussian is the Rényi divergence D_α(N(μ₁, Σ₁) ‖ N(μ₂, Σ₂)) of order α > 0, α ≠ 1
// (Gil, Alajaji & Linder 2013):
//
//	D_α = (α/2)·Δᵀ Σ_α⁻¹ Δ − ln( det Σ_α / (det Σ₁^{1−α} det Σ₂^α) ) / (2(α−1)),
//
// with Δ = μ₁ − μ₂ and Σ_α = α Σ₂ + (1−α) Σ₁. It returns +Inf where the divergence is
// infinite — Σ_α not positive definite (possible only for α > 1) or a singular covariance
// — and never NaN.
func RenyiGaussian(alpha float64, mu1 []float64, cov1 mat.Symmetric, mu2 []float64, cov2 mat.Symmetric) float64 {
	if alpha <= 0 || alpha == 1 {
		panic(fmt.Sprintf("dp: Rényi order %v; want α > 0, α ≠ 1", alpha))
	}
	d := len(mu1)
	if len(mu2) != d || cov1.SymmetricDim() != d || cov2.SymmetricDim() != d {
		panic("dp: RenyiGaussian dimension mismatch")
	}
	var c1, c2, ca mat.Cholesky
	if !c1.Factorize(cov1) || !c2.Factorize(cov2) {
		return math.Inf(1)
	}
	sa := mat.NewSymDense(d, nil)
	sa.AddSym(scaledSym(alpha, cov2), scaledSym(1-alpha, cov1))
	if !ca.Factorize(sa) {
		return math.Inf(1)
	}
	diff := mat.NewVecDense(d, nil)
	diff.SubVec(mat.NewVecDense(d, append([]float64(nil), mu1...)), mat.NewVecDense(d, append([]float64(nil), mu2...)))
	var sol mat.VecDense
	if err := ca.SolveVecTo(&sol, diff); err != nil {
		return math.Inf(1)
	}
	quad := mat.Dot(diff, &sol)
	logTerm := ca.LogDet() - (1-alpha)*c1.LogDet() - alpha*c2.LogDet()
	v := alpha/2*quad - logTerm/(2*(alpha-1))
	if math.IsNaN(v) {
		return math.Inf(1)
	}
	return math.Max(0, v)
}

func scaledSym(c float64, a mat.Symmetric) *mat.SymDense {
	d := a.SymmetricDim()
	s := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			s.SetSym(i, j, c*a.At(i, j))
		}
	}
	return s
}

// KLGaussian is D_KL(N(μ₁, Σ₁) ‖ N(μ₂, Σ₂)), the α → 1 limit of RenyiGaussian:
// ½[tr(Σ₂⁻¹Σ₁) + Δᵀ Σ₂⁻¹ Δ − d + ln(det Σ₂/det Σ₁)]. +Inf when a covariance is singular.
func KLGaussian(mu1 []float64, cov1 mat.Symmetric, mu2 []float64, cov2 mat.Symmetric) float64 {
	d := len(mu1)
	var c1, c2 mat.Cholesky
	if !c1.Factorize(cov1) || !c2.Factorize(cov2) {
		return math.Inf(1)
	}
	var m mat.Dense
	if err := c2.SolveTo(&m, cov1); err != nil {
		return math.Inf(1)
	}
	diff := mat.NewVecDense(d, nil)
	diff.SubVec(mat.NewVecDense(d, append([]float64(nil), mu1...)), mat.NewVecDense(d, append([]float64(nil), mu2...)))
	var sol mat.VecDense
	if err := c2.SolveVecTo(&sol, diff); err != nil {
		return math.Inf(1)
	}
	v := 0.5 * (mat.Trace(&m) + mat.Dot(diff, &sol) - float64(d) + c2.LogDet() - c1.LogDet())
	return math.Max(0, v)
}
