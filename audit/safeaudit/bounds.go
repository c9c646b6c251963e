package safeaudit

import (
	"math"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"github.com/unlearnaudit/unlearnaudit/reference/safe"
	"gonum.org/v1/gonum/floats"
)

// Gamma is Theorem 2's step γ = √W/(K√T).
func Gamma(W, K float64, T int) float64 { return safe.Gamma(W, K, T) }

// Thm1Bound is Theorem 1 as printed (spec safe §3.3): |R̃_t(w) − R_t(w)| ≤ C·m_t/|D_t|^{3/2},
// with C the number of classes and m_t the records deleted so far. It has no λ, yet the
// gap it bounds is λ times a sum of divergences: it cannot hold for every λ.
func Thm1Bound(classes, deleted, remaining int) float64 {
	return float64(classes) * float64(deleted) / fexp.Pow(float64(remaining), 1.5)
}

// Thm1BoundConsistent is the proof's own steps redone with Eq. 16's normalisation of the
// forgetting term (spec [DERIVED]): λ·c/√|D_t|, c an unspecified constant (it hides
// 1/min(probabilities)); with c = 1 it is a scale to compare the measured gap with.
func Thm1BoundConsistent(lambda, c float64, remaining int) float64 {
	return lambda * c / math.Sqrt(float64(remaining))
}

// Thm2iBoundPaperPrinted is Theorem 2(i)'s per-round bound as the proof prints it:
// 4.5·K·U·W^{1.5}·√T + U·√W/(K·√T).
func Thm2iBoundPaperPrinted(U, W, K float64, T int) float64 {
	t := math.Sqrt(float64(T))
	return 4.5*K*U*fexp.Pow(W, 1.5)*t + U*math.Sqrt(W)/(K*t)
}

// Thm2iBoundPaperAlgebra is the proof's last expression worked out, (U/(2γ))·(9W² + γ²):
// the printed second term lacks its ½.
func Thm2iBoundPaperAlgebra(U, W, K float64, T int) float64 {
	g := Gamma(W, K, T)
	return U / (2 * g) * (9*W*W + g*g)
}

// Thm2iBoundConservative replaces the proof's γ² by 4γ², the square's bound for a
// difference of two unit vectors scaled by γ (spec [DERIVED]): (U/(2γ))·(9W² + 4γ²).
func Thm2iBoundConservative(U, W, K float64, T int) float64 {
	g := Gamma(W, K, T)
	return U / (2 * g) * (9*W*W + 4*g*g)
}

// TrivialPerRoundBound is what U-Lipschitzness on the W-ball gives at once:
// R_t(w_t) − R_t(w_t*) ≤ U·‖w_t − w_t*‖ ≤ 2UW. Theorem 2(i)'s bound exceeds it whenever
// 2.25·K·√(W·T) > 1.
func TrivialPerRoundBound(U, W float64) float64 { return 2 * U * W }

// PathLength is V_T = Σ_{t=1}^{T} ‖w_t* − w_{t−1}*‖, the retrained optima's variation
// (wStars[0] is w₀*).
func PathLength(wStars [][]float64) float64 {
	v := 0.0
	for t := 1; t < len(wStars); t++ {
		v += floats.Distance(wStars[t], wStars[t-1], 2)
	}
	return v
}

// Thm2iiBoundPaper is Theorem 2(ii)'s dynamic-regret bound as the proof ends:
// U·V_T/2 + T·U·γ/2 + 9·U·W²/(2γ).
func Thm2iiBoundPaper(U, W, K, VT float64, T int) float64 {
	g := Gamma(W, K, T)
	return U*VT/2 + float64(T)*U*g/2 + 9*U*W*W/(2*g)
}

// Thm2iiBoundConservative carries the proof's own telescoping with the constants it
// drops (spec [DERIVED]): 2·U·V_T + 2·T·U·γ + 13·U·W²/(2γ). Its first step is still
// unjustified, and the noise terms are dropped (the rate holds only at φ = 0): a
// reference value, not a proven bound.
func Thm2iiBoundConservative(U, W, K, VT float64, T int) float64 {
	g := Gamma(W, K, T)
	return 2*U*VT + 2*float64(T)*U*g + 13*U*W*W/(2*g)
}

// TrivialRegretBound is T rounds of the trivial per-round bound, 2·U·W·T.
func TrivialRegretBound(U, W float64, T int) float64 { return 2 * U * W * float64(T) }

// RegretVacuousBelow is the horizon below which the paper's regret bound with V_T = 0
// exceeds the trivial one: T·U·γ/2 + 9UW²/(2γ) ≤ 2UWT exactly when
// T ≥ (1/(2K) + 4.5·K·W)²/(4W) — about (2.25K)²W, the spec's rule of thumb, when K·W is
// not small (K = 2.5, W = 10: 317.5).
func RegretVacuousBelow(W, K float64) float64 {
	a := 1/(2*K) + 4.5*K*W
	return a * a / (4 * W)
}

// NoiseScalePaper is Theorem 2(iii)'s φ_t = W·√(2 ln(1.25/δ))/ε: the classic Gaussian
// mechanism's σ for an L2 sensitivity of W (meaningful for ε ≤ 1 only).
func NoiseScalePaper(W, eps, delta float64) float64 {
	return W * math.Sqrt(2*math.Log(1.25/delta)) / eps
}

// SensitivityNeeded is what the release's shift can reach, ‖w₀ − w_t*‖ + γ ≤ 2W + γ, where
// Theorem 2(iii) charges W.
func SensitivityNeeded(W, gamma float64) float64 { return 2*W + gamma }

// MeanShift is Δ_t = ‖w₀ − γ·g/‖g‖ − w_t*‖: the distance between the means of SAFE's
// noised release and the noised retrain (Definition 1 as the spec fixes it).
func MeanShift(w0, g, wStar []float64, gamma float64) float64 {
	n := floats.Norm(g, 2)
	s := 0.0
	for j := range w0 {
		v := w0[j] - wStar[j]
		if n > 0 {
			v -= gamma * g[j] / n
		}
		s += v * v
	}
	return math.Sqrt(s)
}

// GaussRenyi is D_α of two Gaussians N(μ₁, σ²I), N(μ₂, σ²I) with ‖μ₁ − μ₂‖ = Δ: αΔ²/(2σ²).
func GaussRenyi(alpha, delta, sigma float64) float64 {
	return alpha * delta * delta / (2 * sigma * sigma)
}

// GaussEpsClassic is the classic mechanism's ε at shift Δ and σ: Δ·√(2 ln(1.25/δ))/σ
// (a valid certificate only where it is at most 1).
func GaussEpsClassic(delta, sigma, dlt float64) float64 {
	return delta * math.Sqrt(2*math.Log(1.25/dlt)) / sigma
}

// GaussDeltaAnalytic is the exact δ(ε) of the Gaussian pair at shift Δ and σ (Balle and
// Wang 2018): Φ(Δ/(2σ) − εσ/Δ) − e^ε·Φ(−Δ/(2σ) − εσ/Δ).
func GaussDeltaAnalytic(eps, delta, sigma float64) float64 {
	if sigma == 0 {
		if delta == 0 {
			return 0
		}
		return 1
	}
	return dp.GaussianExactDelta(eps, delta/sigma)
}
