package props

import (
	"math"

	"github.com/unlearnaudit/unlearnaudit/reference/sglu"
	"pgregory.net/rapid"
)

// SGLUProblem draws the constants of an SGLU bound (spec sglu §4 generator): L ∈ [0.05, 10],
// m = u·L with u log-uniform in [1e-4, 1], η = v/L with v ∈ [0.05, 1], M ∈ [0.01, 10],
// n ∈ [1, 4096] with b a random divisor of n, R log-uniform in [0.01, 1e3] or +Inf.
func SGLUProblem(t *rapid.T) sglu.Problem {
	L := scaled(t, 0.05, 10, "L")
	n := rapid.IntRange(1, 4096).Draw(t, "n")
	var divisors []int
	for b := 1; b <= n; b++ {
		if n%b == 0 {
			divisors = append(divisors, b)
		}
	}
	p := sglu.Problem{
		Smoothness:      L,
		StrongConvexity: L * logScaled(t, 1e-4, 1, "u"),
		StepSize:        scaled(t, 0.05, 1, "v") / L,
		Lipschitz:       scaled(t, 0.01, 10, "M"),
		N:               n,
		Batch:           rapid.SampledFrom(divisors).Draw(t, "b"),
		Radius:          math.Inf(1),
	}
	if rapid.Bool().Draw(t, "capped") {
		p.Radius = logScaled(t, 0.01, 1e3, "R")
	}
	return p
}

// QuadraticPNSGD is the exact oracle of spec sglu §4.1: per-sample losses
// f(x; d) = (a/2)‖x − d‖², no projection. PNSGD is then linear-Gaussian: a step on batch
// j maps the mean μ ↦ c·μ + ηa·d̄_j with c = 1 − ηa, and the covariance to c²Σ + 2ησ²I,
// which does not depend on the data; the stationary covariance is 2ησ²/(1 − c²)·I. Laws
// with equal covariance have W∞ = ‖Δμ‖ and D_α = (α/2)·ΔμᵀΣ⁻¹Δμ, so every bound of the
// paper can be compared with the exact divergence. The constants the bounds need are
// m = L = a, and M with ‖d‖ ≤ M/a (Remark 3.7: ‖∇f(x;d) − ∇f(x;d')‖ ≤ 2M).
type QuadraticPNSGD struct {
	A, Eta, Sigma float64
	Batch         int
}

// C is the contraction 1 − ηa.
func (q QuadraticPNSGD) C() float64 { return 1 - q.Eta*q.A }

// Problem is the sglu.Problem the bounds see, for n records and data-gradient bound M.
func (q QuadraticPNSGD) Problem(n int, M float64) sglu.Problem {
	return sglu.Problem{Smoothness: q.A, StrongConvexity: q.A, Lipschitz: M, StepSize: q.Eta, N: n, Batch: q.Batch, Radius: math.Inf(1)}
}

// epoch applies one epoch's mean map to mu in place; data are the records in slot order.
func (q QuadraticPNSGD) epoch(mu []float64, data [][]float64) {
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
func (q QuadraticPNSGD) StationaryMean(data [][]float64) []float64 {
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
func (q QuadraticPNSGD) Run(mu []float64, data [][]float64, K int) []float64 {
	out := append([]float64(nil), mu...)
	for range K {
		q.epoch(out, data)
	}
	return out
}

// StationaryVariance is the per-coordinate variance 2ησ²/(1 − c²) of the stationary law.
func (q QuadraticPNSGD) StationaryVariance() float64 {
	c := q.C()
	return 2 * q.Eta * q.Sigma * q.Sigma / (1 - c*c)
}

// Renyi is the exact D_α between two laws with the stationary covariance and means a
// distance dist apart: (α/2)·dist²/variance. Symmetric, so it is also d_α.
func (q QuadraticPNSGD) Renyi(alpha, dist float64) float64 {
	return alpha / 2 * dist * dist / q.StationaryVariance()
}
