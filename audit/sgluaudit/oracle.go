package sgluaudit

import (
	"math"

	"github.com/unlearnaudit/unlearnaudit/reference/sglu"
)

// QuadraticOracle is the exact oracle of spec sglu §4.1: per-sample losses
// f(x; d) = (a/2)‖x − d‖², no projection. PNSGD is then linear-Gaussian: a step on batch
// j maps the mean μ ↦ c·μ + ηa·d̄_j with c = 1 − ηa, and the covariance to c²Σ + 2ησ²I,
// which does not depend on the data; the stationary covariance is 2ησ²/(1 − c²)·I. Laws
// with equal covariance have W∞ = ‖Δμ‖ and D_α = (α/2)·ΔμᵀΣ⁻¹Δμ, so every bound of the
// paper can be compared with the exact divergence. The constants the bounds need are
// m = L = a, and M with ‖d‖ ≤ M/a (Remark 3.7: ‖∇f(x;d) − ∇f(x;d')‖ ≤ 2M).
type QuadraticOracle struct {
	A, Eta, Sigma float64
	Batch         int
}

// C is the contraction 1 − ηa.
func (q QuadraticOracle) C() float64 { return 1 - q.Eta*q.A }

// Problem is the sglu.Problem the bounds see, for n records and data-gradient bound M.
func (q QuadraticOracle) Problem(n int, M float64) sglu.Problem {
	return sglu.Problem{Smoothness: q.A, StrongConvexity: q.A, Lipschitz: M, StepSize: q.Eta, N: n, Batch: q.Batch, Radius: math.Inf(1)}
}

// epoch applies one epoch's mean map to mu in place; data are the records in slot order.
func (q QuadraticOracle) epoch(mu []float64, data [][]float64) {
	c := q.C()
	for j := 0; j < len(data); j += q.Batch {
		for i := range mu {
			var mean float64
			for _, d := range data[j : j+q.Batch] {
				mean += d[i]
			}
			mu[i] = c*mu[i] + q.Eta*q.A*mean/float64(q.Batch)
		}
	}
}

// StationaryMean is the epoch-start mean of the stationary law ν_{D|B}: the fixed point
// μ = c^{n/b}μ + Σ_j c^{n/b−j−1}ηa·d̄_j, i.e. one epoch from 0 divided by 1 − c^{n/b}.
func (q QuadraticOracle) StationaryMean(data [][]float64) []float64 {
	mu := make([]float64, len(data[0]))
	q.epoch(mu, data)
	per := float64(len(data) / q.Batch)
	scale := 1 / -math.Expm1(per*math.Log1p(-q.Eta*q.A))
	for i := range mu {
		mu[i] *= scale
	}
	return mu
}

// Run returns the mean after K epochs on data from mean mu.
func (q QuadraticOracle) Run(mu []float64, data [][]float64, K int) []float64 {
	out := append([]float64(nil), mu...)
	for range K {
		q.epoch(out, data)
	}
	return out
}

// StationaryVariance is the per-coordinate variance 2ησ²/(1 − c²) of the stationary law.
func (q QuadraticOracle) StationaryVariance() float64 {
	c := q.C()
	return 2 * q.Eta * q.Sigma * q.Sigma / (1 - c*c)
}

// Renyi is the exact D_α between two laws with the stationary covariance and means a
// distance dist apart: (α/2)·dist²/variance. Symmetric, so it is also d_α.
func (q QuadraticOracle) Renyi(alpha, dist float64) float64 {
	return alpha / 2 * dist * dist / q.StationaryVariance()
}
