package d2d

import (
	"math"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
)

// Reading selects between a formula as the paper prints it and as the spec corrects it.
type Reading int

const (
	// Corrected is the spec's derivation (the default).
	Corrected Reading = iota
	// AsPrinted is the paper's formula, kept so an audit can show the difference.
	AsPrinted
)

func (r Reading) String() string {
	if r == AsPrinted {
		return "as printed"
	}
	return "corrected"
}

// ellDen returns ℓ = ln(1/δ) and den(ε, ℓ) = √(ℓ + ε) − √ℓ.
func ellDen(eps, delta float64) (ell, den float64) {
	ell = math.Log(1 / delta)
	return ell, dp.RootGap(ell, eps)
}

// RegLambdaStrong is the ridge weight of Theorem 3.4 (convex f, strong unlearning), with the
// exponent the spec derives (d2d §3.6 FLAG): m = (L·M^{3/2}·√(d ln(1/δ)) / (D ε n I))^{2/5},
// which balances M³L²dℓ/(m⁴ε²n²I²) against mD². The paper prints the exponent 4/5 (see
// RegLambdaStrongAsPrinted), with which the accuracy would grow like n^{6/5}.
func RegLambdaStrong(L, M, diam float64, d, n, I int, eps, delta float64) float64 {
	return fexp.Pow(regBase(L, M, diam, d, n, I, eps, delta), 2.0/5)
}

// RegLambdaStrongAsPrinted is Theorem 3.4's ridge weight with the printed exponent 4/5, for
// reports only.
func RegLambdaStrongAsPrinted(L, M, diam float64, d, n, I int, eps, delta float64) float64 {
	return fexp.Pow(regBase(L, M, diam, d, n, I, eps, delta), 4.0/5)
}

func regBase(L, M, diam float64, d, n, I int, eps, delta float64) float64 {
	ell, _ := ellDen(eps, delta)
	return L * fexp.Pow(M, 1.5) * math.Sqrt(float64(d)*ell) / (diam * eps * float64(n) * float64(I))
}

// RegLambdaWeak is the ridge weight of Theorem 3.5 (ξ = 1) and Remark 3.6 (ξ ≥ 1), convex f,
// weak unlearning: m = (L²·M^{(1+ξ)/ξ}·d ln(1/δ) / (D² ε² n² I^{1/ξ}))^{ξ/(3ξ+1)}; at ξ = 1
// this is √(L M √(dℓ) / (D ε n √I)).
func RegLambdaWeak(L, M, diam float64, d, n, I int, eps, delta, xi float64) float64 {
	ell, _ := ellDen(eps, delta)
	base := L * L * fexp.Pow(M, (1+xi)/xi) * float64(d) * ell /
		(diam * diam * eps * eps * float64(n) * float64(n) * fexp.Pow(float64(I), 1/xi))
	return fexp.Pow(base, xi/(3*xi+1))
}

// RegGamma is the contraction of GD on g = f + (λ/2)‖θ‖² with η = 2/(M + 2λ):
// ((M+λ) − λ)/((M+λ) + λ) = M/(M + 2λ) (Theorem 2.13 applied to g).
func RegGamma(M, lambda float64) float64 { return M / (M + 2*lambda) }

// RegularizedConstants are the constants of g_z = f_z + (λ/2)‖θ‖² on a ball containing 0
// with diameter D (Claim 3.3): Lipschitz L + λD, strong convexity λ, smoothness M + λ.
func RegularizedConstants(L, M, lambda, diam float64) (Lg, mg, Mg float64) {
	return L + lambda*diam, lambda, M + lambda
}

// WeakIterations is T_i = ⌈i^{2ξ}·I⌉ (Theorem 3.5: ξ = 1; Remark 3.6).
func WeakIterations(i, I int, xi float64) int {
	return int(math.Ceil(fexp.Pow(float64(i), 2*xi) * float64(I)))
}

// WeakTightFactor is c_ξ = (2√2)^{−1/ξ}·ξ^{−1/(2ξ)}: Fact E.1 in its tight AM–GM form,
// γ^{T'} ≤ √(M/(mT'))/(2√2), applied to ξT' gives γ^{T'} ≤ c_ξ·(M/(mT'))^{1/(2ξ)}.
func WeakTightFactor(xi float64) float64 {
	return fexp.Pow(2*math.Sqrt2, -1/xi) * fexp.Pow(xi, -1/(2*xi))
}

// WeakSigmaConstant is the constant in front of M^{1/(2ξ)}L'/(m(mI)^{1/(2ξ)} n den) in the
// weak variant's σ: 2√2 as printed (Theorem 3.5, Remark 3.6), 4√2·c_ξ as the written proof
// needs with the tight Fact E.1 (spec d2d §3.7 FLAG). The printed constant suffices exactly
// when ξ ≤ 2.
func WeakSigmaConstant(xi float64, r Reading) float64 {
	if r == AsPrinted {
		return 2 * math.Sqrt2
	}
	return 4 * math.Sqrt2 * WeakTightFactor(xi)
}

// WeakRho is ρ_ξ = (4L'/(m n))·(M/(m I))^{1/(2ξ)}, the bound the proof of Theorem 3.5
// (Eq. 19; Remark 3.6) puts on both the retrain's and the unlearner's distance to the
// regularised minimiser, with L' = L + mD and Fact E.2 as printed.
func WeakRho(L, M, diam, lambda float64, n, I int, xi float64) float64 {
	lg, _, _ := RegularizedConstants(L, M, lambda, diam)
	return 4 * lg / (lambda * float64(n)) * fexp.Pow(M/(lambda*float64(I)), 1/(2*xi))
}

// SigmaRegStrong is Theorem 3.4's σ: Theorem 3.1 applied to g,
// 4√2·(L + mD)·γ^I / (m n (1 − γ^I) den(ε, ℓ)) with γ = M/(M + 2m).
func SigmaRegStrong(L, M, diam, lambda float64, n, I int, eps, delta float64) float64 {
	lg, _, _ := RegularizedConstants(L, M, lambda, diam)
	return dp.GaussianSigma(8*lg/(lambda*float64(n))*ratio(RegGamma(M, lambda), I), eps, delta)
}

// SigmaRegWeak is the weak variant's σ,
// C·M^{1/(2ξ)}·(L + mD) / (m (mI)^{1/(2ξ)} n den(ε, ℓ)) with C = WeakSigmaConstant(ξ, r).
func SigmaRegWeak(L, M, diam, lambda float64, n, I int, eps, delta, xi float64, r Reading) float64 {
	_, den := ellDen(eps, delta)
	return WeakSigmaConstant(xi, r) * WeakRho(L, M, diam, lambda, n, I, xi) / 4 / den
}
