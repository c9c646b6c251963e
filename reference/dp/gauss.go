package dp

import (
	"errors"
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
)

// GaussianSigma is the noise scale the Gaussian mechanism needs for (ε, δ)-DP at L2
// sensitivity Δ, in the zCDP form used by Descent-to-Delete (Neel et al. 2020, Lemma A.3,
// after Bun–Steinke 2016): σ = Δ / (√2·(√(ln(1/δ) + ε) − √(ln(1/δ)))). It is the exact
// inverse of GaussianEpsilon.
func GaussianSigma(sensitivity, epsilon, delta float64) float64 {
	l := math.Log(1 / delta)
	return sensitivity / (math.Sqrt2 * RootGap(l, epsilon))
}

// RootGap is √(ℓ + ε) − √ℓ for ℓ, ε ≥ 0, computed as ε/(√(ℓ + ε) + √ℓ): the difference
// as written cancels for ε ≪ ℓ (at ε = 1e-12 and ℓ = ln 10⁶ it is 3·10⁻⁴ too small, a
// σ too small in proportion, the unsafe direction; at 1e-300 it is 0), the quotient is
// within a few roundings of it.
func RootGap(ell, epsilon float64) float64 {
	return epsilon / (math.Sqrt(ell+epsilon) + math.Sqrt(ell))
}

// GaussianEpsilon is the ε that the Gaussian mechanism with noise σ and sensitivity Δ
// guarantees at δ in the zCDP form (Neel et al. 2020, Lemma A.3): ρ + 2√(ρ ln(1/δ)) with
// ρ = Δ²/(2σ²). σ = 0 with Δ > 0 gives +Inf; Δ = 0 gives 0.
func GaussianEpsilon(sensitivity, sigma, delta float64) float64 {
	return ZCDPToDP(GaussianRho(sensitivity, sigma), delta)
}

// GaussianRho is the zCDP parameter ρ = Δ²/(2σ²) of the Gaussian mechanism: its Rényi
// curve is D_α = α·ρ for every α > 1. Δ = 0 gives 0 even when σ = 0.
func GaussianRho(sensitivity, sigma float64) float64 {
	if sensitivity == 0 {
		return 0
	}
	r := sensitivity / sigma // the ratio first: Δ² underflows for Δ ≲ 1e-154
	return r * r / 2
}

// ZCDPToDP converts ρ-zCDP to (ε, δ)-DP with the simple bound ε = ρ + 2√(ρ ln(1/δ))
// (Bun–Steinke 2016, Prop. 1.3).
func ZCDPToDP(rho, delta float64) float64 {
	if rho == 0 {
		return 0
	}
	return rho + 2*math.Sqrt(rho*math.Log(1/delta))
}

// StdNormalCDF is Φ(x), accurate in both tails.
func StdNormalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// LogStdNormalCDF is ln Φ(x), finite for every finite x (asymptotic series below −37,
// where Φ underflows).
func LogStdNormalCDF(x float64) float64 {
	if x > -37 {
		return math.Log(StdNormalCDF(x))
	}
	x2 := x * x
	return -x2/2 - math.Log(-x) - 0.5*math.Log(2*math.Pi) + math.Log1p(-1/x2+3/(x2*x2))
}

// GaussianExactDelta is the exact privacy profile of the Gaussian mechanism (Balle–Wang
// 2018, Thm 8): the least δ for which N(μ, σ²I) and N(μ', σ²I) with ‖μ − μ'‖/σ = s are
// (ε, δ)-indistinguishable: Φ(s/2 − ε/s) − e^ε·Φ(−s/2 − ε/s).
func GaussianExactDelta(epsilon, s float64) float64 {
	switch {
	case s == 0:
		return 0
	case math.IsInf(s, 1):
		return 1
	}
	a := StdNormalCDF(s/2 - epsilon/s)
	b := fexp.Exp(epsilon + LogStdNormalCDF(-s/2-epsilon/s))
	return math.Max(0, a-b)
}

// MaxExactEpsilon is the largest ε GaussianExactEpsilon solves for.
const MaxExactEpsilon = 1e6

// GaussianExactEpsilon is the least ε ≥ 0 at which the Gaussian pair with normalised mean
// distance s is (ε, δ)-indistinguishable, by inverting GaussianExactDelta (which is
// decreasing in ε) to relative precision 1e-13. s = +Inf gives +Inf, and so does an ε
// above MaxExactEpsilon, which the search does not reach.
func GaussianExactEpsilon(s, delta float64) float64 {
	if s == 0 || GaussianExactDelta(0, s) <= delta {
		return 0
	}
	if math.IsInf(s, 1) || delta <= 0 {
		return math.Inf(1)
	}
	lo, hi := 0.0, 1.0
	for GaussianExactDelta(hi, s) > delta {
		lo, hi = hi, 2*hi
		if hi > MaxExactEpsilon {
			return math.Inf(1)
		}
	}
	for hi-lo > 1e-13*hi {
		mid := (lo + hi) / 2
		if GaussianExactDelta(mid, s) > delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// RenyiGaussianIsotropic is D_α(N(μ₁, σ₁²I_d) ‖ N(μ₂, σ₂²I_d)) for α > 0, α ≠ 1, where
// dist = ‖μ₁ − μ₂‖. It is +Inf where the divergence is infinite (α > 1 and
// α σ₂² + (1−α) σ₁² ≤ 0, or a degenerate σ), never NaN. With σ₁ = σ₂ = σ it is
// α·dist²/(2σ²), the Gaussian mechanism's Rényi curve.
func RenyiGaussianIsotropic(alpha, dist float64, d int, sigma1, sigma2 float64) float64 {
	if alpha <= 0 || alpha == 1 {
		panic(fmt.Sprintf("dp: Rényi order %v; want α > 0, α ≠ 1", alpha))
	}
	a, b := sigma1*sigma1, sigma2*sigma2
	if a == b {
		if dist == 0 {
			return 0
		}
		if a == 0 {
			return math.Inf(1)
		}
		return alpha * dist * dist / (2 * a)
	}
	if a == 0 || b == 0 {
		return math.Inf(1) // a point mass against a Gaussian, or the reverse
	}
	s := alpha*b + (1-alpha)*a
	if s <= 0 {
		return math.Inf(1)
	}
	// ln det Σ_α − (1−α) ln det Σ₁ − α ln det Σ₂, per dimension
	logTerm := math.Log(s) - (1-alpha)*math.Log(a) - alpha*math.Log(b)
	return alpha*dist*dist/(2*s) - float64(d)/(2*(alpha-1))*logTerm
}

// ErrBadDelta is returned for δ outside (0, 1).
var ErrBadDelta = errors.New("δ must be in (0, 1)")
