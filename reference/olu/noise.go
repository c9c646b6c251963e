package olu

import (
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
)

// GammaStep is the Lipschitz coefficient of one projected gradient step
// x ↦ Π_K(x − η∇f(x)) for a twice-differentiable f whose Hessian's spectrum lies in
// [μ, β]: max(|1 − ημ|, |1 − ηβ|) (spec olu §3.2, the correction of the paper's
// Corollary 1). Below 1 it contracts; for convex f (μ = 0) and η ≤ 2/β it is 1.
func GammaStep(eta, mu, beta float64) float64 {
	return math.Max(math.Abs(1-eta*mu), math.Abs(1-eta*beta))
}

// GammaPaperSC is the paper's Corollary 1 coefficient (β/μ − 1)/(β/μ + 1), claimed for
// every η ≤ 1/(β + μ) but true only at η = 2/(β + μ) (spec olu §3.6, erratum 1).
func GammaPaperSC(beta, mu float64) float64 {
	r := beta / mu
	return (r - 1) / (r + 1)
}

// ContractionMode chooses how passive OLU sizes the contraction between the round a
// deleted function was used and the round its deletion is served.
type ContractionMode int

const (
	// PerStep is Γ(u, τ) = Π_{s=u+1}^{τ} GammaStep(η_s, μ, β): valid for every schedule
	// (the spec's correction, the default).
	PerStep ContractionMode = iota
	// PaperGamma is the paper's γ^{τ−u} with γ = GammaPaperSC(β, μ) when μ > 0, and 1 for
	// convex losses (μ = 0): Theorem 2's noise as printed, kept to audit it.
	PaperGamma
)

func (m ContractionMode) String() string {
	switch m {
	case PerStep:
		return "per-step product"
	case PaperGamma:
		return "paper's γ"
	}
	return fmt.Sprintf("ContractionMode(%d)", int(m))
}

// Contraction is Γ(u, τ) under mode for the step sizes etas (η_1 first).
func Contraction(mode ContractionMode, etas []float64, u, tau int, mu, beta float64) float64 {
	if mode == PaperGamma {
		if mu <= 0 {
			return 1
		}
		return fexp.Pow(GammaPaperSC(beta, mu), float64(tau-u))
	}
	g := 1.0
	for s := u + 1; s <= tau; s++ {
		g *= GammaStep(etas[s-1], mu, beta)
	}
	return g
}

// NoiseMultiplier is B(i, ω, ε) = √(ω i^ω / (2(ω − 1)ε)): request i's noise per unit of
// shift, so that the requests' Rényi costs α a_i²/(2σ_i²) = αε(ω−1)/(ω i^ω) sum to at most
// αε over any number of requests (Σ_i i^{−ω} ≤ ω/(ω−1)).
func NoiseMultiplier(i int, omega, epsilon float64) float64 {
	return math.Sqrt(omega * fexp.Pow(float64(i), omega) / (2 * (omega - 1) * epsilon))
}

// PassiveSigma is Algorithm 1's σ_i = B(i, ω, ε) · Γ · Δ_u: the shift a_i = Γ·Δ_u the
// deleted function can still cause at τ, times the noise per unit of shift.
func PassiveSigma(i int, omega, epsilon, contraction, deltaU float64) float64 {
	return NoiseMultiplier(i, omega, epsilon) * contraction * deltaU
}

// RDPSpent is what Theorem 1's accountant charges after i requests at order α:
// Σ_{j≤i} α a_j²/(2σ_j²) = αε(ω−1)/ω · H_ω(i), H_ω(i) = Σ_{j≤i} j^{−ω}; it stays below αε.
func RDPSpent(alpha, epsilon, omega float64, i int) float64 {
	h := 0.0
	for j := 1; j <= i; j++ {
		h += fexp.Pow(float64(j), -omega)
	}
	return alpha * epsilon * (omega - 1) / omega * h
}

// roundingFloor is the least shift a noise is sized for: 10⁻¹² of the state's scale. In
// exact arithmetic a descent with contraction 0 (β = μ at the step 2/(β + μ)) lands two
// runs on the same point and needs no noise; in floating point they differ by rounding,
// which zero noise would publish.
func roundingFloor(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return 1e-12 * (1 + m)
}
