package d2d

import (
	"errors"
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
)

// Params are the declared inputs of a D2D certificate (spec d2d §2.5). Constants are
// per-example, on Θ = {‖θ‖ ≤ Radius}; their names follow the toolkit, not the paper
// (the paper's L, M, m are Lipschitz, Smoothness, StrongConvexity).
type Params struct {
	reference.Constants
	Radius  float64 // Θ is the ball of this radius; its diameter is 2·Radius
	N       int     // n, the size of the initial dataset
	NFloor  int     // guaranteed lower bound on every n_i; 0 means the paper's n/2 (Assumption 2.6)
	Dim     int     // d, the parameter dimension (perfect mode needs it)
	Budget  int     // I, the iteration budget per update
	Epsilon float64 // ε
	Delta   float64 // δ

	// The convex variants (Theorems 3.4, 3.5, Remark 3.6), where Constants describe a
	// convex f (StrongConvexity may be 0) and the algorithm adds its own ridge term:
	Xi            float64 // ξ ≥ 1 of the weak variant; 0 means 1
	Exponent      Reading // Theorem 3.4's regulariser exponent: Corrected 2/5 (default) or AsPrinted 4/5
	SigmaConstant Reading // the weak variant's σ constant: Corrected 4√2·c_ξ (default) or AsPrinted 2√2
}

// xi is ξ with its default.
func (p Params) xi() float64 {
	if p.Xi == 0 {
		return 1
	}
	return p.Xi
}

// validateConvex checks the hypotheses of Theorems 3.4 and 3.5: f convex, L-Lipschitz and
// M-smooth (M > 0), Θ a ball around 0, and the common ranges.
func (p Params) validateConvex(weak bool) error {
	var errs []error
	check := func(ok bool, field, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
		}
	}
	check(p.Smoothness > 0 && !math.IsInf(p.Smoothness, 0), "smoothness", "M = %v; want 0 < M < ∞", p.Smoothness)
	check(p.StrongConvexity >= 0, "strong-convexity", "m = %v; f must be convex (m ≥ 0)", p.StrongConvexity)
	check(p.Lipschitz > 0 && !math.IsInf(p.Lipschitz, 0), "lipschitz", "L = %v; want 0 < L < ∞", p.Lipschitz)
	check(p.Radius > 0 && !math.IsInf(p.Radius, 0), "radius", "R = %v; want 0 < R < ∞ (Θ must be a ball around 0)", p.Radius)
	check(p.N >= 1, "n", "n = %d; want n ≥ 1", p.N)
	check(p.NFloor >= 0 && p.NFloor <= p.N, "n-floor", "n_floor = %d; want 0 (meaning n/2) or 1 ≤ n_floor ≤ n", p.NFloor)
	check(p.Budget >= 1, "iterations", "I = %d; want I ≥ 1", p.Budget)
	check(p.Epsilon > 0 && !math.IsInf(p.Epsilon, 0), "epsilon", "ε = %v; want 0 < ε < ∞", p.Epsilon)
	check(p.Delta > 0 && p.Delta < 1, "delta", "δ = %v; want 0 < δ < 1", p.Delta)
	check(p.Dim >= 1, "dimension", "d = %d; the regulariser depends on d ≥ 1", p.Dim)
	if weak {
		check(p.xi() >= 1, "xi", "ξ = %v; Remark 3.6 needs ξ ≥ 1", p.xi())
	}
	return errors.Join(errs...)
}

// Validate checks the hypotheses every D2D theorem shares (spec d2d §3: m > 0, M ≥ m,
// δ ∈ (0,1), ε > 0, n ≥ 1, I ≥ 1, L > 0, R > 0) and names the offending field.
func (p Params) Validate() error {
	var errs []error
	check := func(ok bool, field, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
		}
	}
	check(p.StrongConvexity > 0 && !math.IsInf(p.StrongConvexity, 0), "strong-convexity", "m = %v; the theorems need m > 0", p.StrongConvexity)
	check(p.Smoothness >= p.StrongConvexity && !math.IsInf(p.Smoothness, 0), "smoothness", "M = %v; want finite M ≥ m = %v", p.Smoothness, p.StrongConvexity)
	check(p.Lipschitz > 0 && !math.IsInf(p.Lipschitz, 0), "lipschitz", "L = %v; want 0 < L < ∞", p.Lipschitz)
	check(p.Radius > 0 && !math.IsInf(p.Radius, 0), "radius", "R = %v; want 0 < R < ∞", p.Radius)
	check(p.N >= 1, "n", "n = %d; want n ≥ 1", p.N)
	check(p.NFloor >= 0 && p.NFloor <= p.N, "n-floor", "n_floor = %d; want 0 (meaning n/2) or 1 ≤ n_floor ≤ n", p.NFloor)
	check(p.Budget >= 1, "iterations", "I = %d; want I ≥ 1", p.Budget)
	check(p.Epsilon > 0 && !math.IsInf(p.Epsilon, 0), "epsilon", "ε = %v; want 0 < ε < ∞", p.Epsilon)
	check(p.Delta > 0 && p.Delta < 1, "delta", "δ = %v; want 0 < δ < 1", p.Delta)
	check(p.Dim >= 0, "dimension", "d = %d; want d ≥ 1", p.Dim)
	return errors.Join(errs...)
}

// Floor is the size every n_i is assumed to keep: NFloor, or n/2 (Assumption 2.6).
func (p Params) Floor() float64 {
	if p.NFloor > 0 {
		return float64(p.NFloor)
	}
	return float64(p.N) / 2
}

// Diameter is the diameter of Θ, 2R.
func (p Params) Diameter() float64 { return 2 * p.Radius }

// Contraction is γ = (M − m)/(M + m), the factor by which one projected GD step with
// η = 2/(M + m) contracts the distance to the minimiser (Neel et al. 2020, Thm 2.13).
func Contraction(smoothness, strongConvexity float64) float64 {
	return (smoothness - strongConvexity) / (smoothness + strongConvexity)
}

// StepSize is η = 2/(M + m) (Thm 2.13).
func StepSize(smoothness, strongConvexity float64) float64 {
	return 2 / (smoothness + strongConvexity)
}

// powGamma is γ^k, exact 0 for γ = 0 (then GD is exact in one step).
func powGamma(gamma, k float64) float64 {
	if gamma == 0 {
		return 0
	}
	return fexp.Exp(k * math.Log(gamma))
}

// ratio is γ^I/(1 − γ^I).
func ratio(gamma float64, budget int) float64 {
	g := powGamma(gamma, float64(budget))
	return g / (1 - g)
}

// Gamma is γ for these constants.
func (p Params) Gamma() float64 { return Contraction(p.Smoothness, p.StrongConvexity) }

// StepSize is η for these constants.
func (p Params) StepSize() float64 { return StepSize(p.Smoothness, p.StrongConvexity) }

// LearnIterations is the learner's iteration count on a dataset of size n
// (Thm 3.1/3.2: T ≥ I + ln(Diam·m·n/(2L))/ln(1/γ)), rounded up and never below I:
// it makes the learner's output within (2L/(mn))·γ^I of the minimiser.
func (p Params) LearnIterations(n int) int {
	extra := math.Log(p.Diameter()*p.StrongConvexity*float64(n)/(2*p.Lipschitz)) / math.Log(1/p.Gamma())
	return int(math.Ceil(float64(p.Budget) + math.Max(0, extra)))
}

// LearnRadius bounds the learner's distance to the minimiser on a dataset of size n:
// ‖A(𝒟) − θ*‖ ≤ (2L/(m n))·γ^I (Thm 3.1, Eq. 2).
func (p Params) LearnRadius(n int) float64 {
	return 2 * p.Lipschitz / (p.StrongConvexity * float64(n)) * powGamma(p.Gamma(), float64(p.Budget))
}

// SecretRadius bounds the secret-state unlearner's distance to the minimiser at every
// round i ≥ 1: ‖θ̂_i − θ*_i‖ ≤ (4L/(mn))·γ^I/(1 − γ^I) (Thm 3.1, Eq. 3; 4L/(mn) is
// 2L/(m·n_floor) with n_floor = n/2).
func (p Params) SecretRadius() float64 {
	return 2 * p.Lipschitz / (p.StrongConvexity * p.Floor()) * ratio(p.Gamma(), p.Budget)
}

// SecretSensitivity is Δ = (8L/(mn))·γ^I/(1 − γ^I), the bound on ‖A(𝒟_i) − θ̂_i‖ that the
// Gaussian mechanism is calibrated to (Thm 3.1).
func (p Params) SecretSensitivity() float64 {
	return 4 * p.Lipschitz / (p.StrongConvexity * p.Floor()) * ratio(p.Gamma(), p.Budget)
}

// SecretSigma is the publishing noise of Thm 3.1:
// σ = 4√2·L·γ^I / (m n (1 − γ^I)(√(ln(1/δ)+ε) − √(ln(1/δ)))), i.e. GaussianSigma(Δ, ε, δ).
func (p Params) SecretSigma() float64 {
	return dp.GaussianSigma(p.SecretSensitivity(), p.Epsilon, p.Delta)
}

// PerfectMinBudget is the least I Thm 3.2 allows:
// I_min = ln(√(2d) / ((1−γ)(√(2 ln(2/δ)+ε) − √(2 ln(2/δ))))) / ln(1/γ), rounded up, ≥ 1.
func (p Params) PerfectMinBudget() int {
	gamma := p.Gamma()
	l2 := math.Log(2 / p.Delta)
	den := math.Sqrt(2*l2+p.Epsilon) - math.Sqrt(2*l2)
	v := math.Log(math.Sqrt(2*float64(p.Dim))/((1-gamma)*den)) / math.Log(1/gamma)
	return max(1, int(math.Ceil(v)))
}

// PerfectUpdateIterations is T_i = I + ln(ln(4 d i/δ))/ln(1/γ) of Thm 3.2, rounded up: the
// extra iterations cancel the ln(4di/δ) factor of the noise-norm union bound.
func (p Params) PerfectUpdateIterations(i int) int {
	extra := math.Log(math.Log(4*float64(p.Dim)*float64(i)/p.Delta)) / math.Log(1/p.Gamma())
	return int(math.Ceil(float64(p.Budget) + math.Max(0, extra)))
}

// PerfectSigma is the publishing noise of Thm 3.2:
// σ = 8Lγ^I / ((1−γ^I) m n (√(2 ln(2/δ)+3ε) − √(2 ln(2/δ)+2ε))).
func (p Params) PerfectSigma() float64 {
	l2 := math.Log(2 / p.Delta)
	den := math.Sqrt(2*l2+3*p.Epsilon) - math.Sqrt(2*l2+2*p.Epsilon)
	return 4 * p.Lipschitz / (p.StrongConvexity * p.Floor()) * ratio(p.Gamma(), p.Budget) / den
}

// PerfectRadius bounds ‖μ'_i − θ*_i‖ for the perfect unlearner with probability ≥ 1 − δ/2
// over the earlier noises: γ^I/(1−γ^I)·(4L/(mn) + σ√(2d)) (Thm 3.2, Eq. 13).
func (p Params) PerfectRadius(sigma float64) float64 {
	return ratio(p.Gamma(), p.Budget) * (2*p.Lipschitz/(p.StrongConvexity*p.Floor()) + sigma*math.Sqrt(2*float64(p.Dim)))
}

// PerfectSensitivity returns two readings of the mean gap Δ in the proof of Thm 3.2
// (spec d2d §3.5). asPrinted = 2γ^I/(1−γ^I)·(4L/(mn) + σ√(2d)) is the proof's final step;
// with it the stated σ does not certify ε (FLAG). tight = (4L/(mn))γ^I +
// γ^I/(1−γ^I)·(4L/(mn) + σ√(2d)) follows from the same inequalities and does.
func (p Params) PerfectSensitivity(sigma float64) (tight, asPrinted float64) {
	g := powGamma(p.Gamma(), float64(p.Budget))
	s := 2 * p.Lipschitz / (p.StrongConvexity * p.Floor())
	r := p.PerfectRadius(sigma)
	return s*g + r, 2 * r
}

// PerfectCertifiedEpsilon is the ε the Gaussian mechanism certifies at δ/2 for the
// perfect-mode gap Δ (Lemma A.3); Lemma A.1 then gives (ε, δ).
func (p Params) PerfectCertifiedEpsilon(sensitivity, sigma float64) float64 {
	return dp.GaussianEpsilon(sensitivity, sigma, p.Delta/2)
}
