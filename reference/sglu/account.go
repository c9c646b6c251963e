package sglu

import (
	"errors"
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
)

// PABIMode selects the factor of Lemma 3.4 (privacy amplification by iteration).
type PABIMode int

const (
	// PaperPABI is Lemma 3.4 as printed: c^{2N} (1/N when c = 1).
	PaperPABI PABIMode = iota
	// ExactShiftPABI is the optimal shift allocation, (1−c²)·c^{2N}/(1−c^{2N}) (1/N when
	// c = 1): never larger, equal at N = 1. The official code uses it for sequential
	// requests after the first (spec sglu §2.3, §3.1).
	ExactShiftPABI
)

func (m PABIMode) String() string {
	if m == ExactShiftPABI {
		return "exact-shift"
	}
	return "paper"
}

// Variance selects the noise variance plugged into Lemma 3.4.
type Variance int

const (
	// PaperVariance plugs s² = ησ² (denominator 2ησ²), as Appendix D does. The injected
	// noise has variance 2ησ², so every bound is conservative by exactly 2× (spec sglu
	// §3.1 FLAG); the paper's numbers need this convention.
	PaperVariance Variance = iota
	// TrueVariance plugs the injected s² = 2ησ² (denominator 4ησ²).
	TrueVariance
)

func (v Variance) String() string {
	if v == TrueVariance {
		return "true (2ησ²)"
	}
	return "paper (ησ²)"
}

// Denominator is 2s² for the convention: 2ησ² (paper) or 4ησ² (true variance).
func (v Variance) Denominator(eta, sigma float64) float64 {
	if v == TrueVariance {
		return 4 * eta * sigma * sigma
	}
	return 2 * eta * sigma * sigma
}

// logC is log c = log(1 − ηm), accurate for tiny ηm.
func logC(eta, m float64) float64 { return math.Log1p(-eta * m) }

// PowC is c^x = (1 − ηm)^x, computed as exp(x·log1p(−ηm)).
func PowC(eta, m, x float64) float64 {
	if x == 0 {
		return 1
	}
	return fexp.Exp(x * logC(eta, m))
}

// oneMinusPowC is 1 − c^x without cancellation.
func oneMinusPowC(eta, m, x float64) float64 { return -math.Expm1(x * logC(eta, m)) }

// PABIFactor is Lemma 3.4's factor after N noisy contractive steps with contraction c
// (c = 1 − ηm). N must be ≥ 1: with no noisy step, two laws at W∞ distance Z can be
// arbitrarily far apart in Rényi divergence, so N < 1 gives +Inf (spec sglu §3.1 FLAG).
func PABIFactor(eta, m, N float64, mode PABIMode) float64 {
	if !(N >= 1) {
		return math.Inf(1)
	}
	if eta*m == 0 {
		return 1 / N
	}
	if mode == ExactShiftPABI { // (1−c²)·c^{2N}/(1−c^{2N}), with 1−c² = ηm(2−ηm)
		return eta * m * (2 - eta*m) * PowC(eta, m, 2*N) / oneMinusPowC(eta, m, 2*N)
	}
	return PowC(eta, m, 2*N)
}

// ZB is Corollary 3.8's W∞ bound between the stationary laws of adjacent datasets under
// the same cyclic batches: min(2ηM/(b(1 − c^{n/b})), 2R). Pass R = +Inf for no cap (the
// official code). For m = 0 it is 2R (no contraction).
func ZB(eta, M, m float64, n, b int, R float64) float64 {
	per := float64(n) / float64(b)
	if eta*m == 0 {
		return 2 * R
	}
	return math.Min(2*eta*M/(float64(b)*oneMinusPowC(eta, m, per)), 2*R)
}

// Problem holds the constants every SGLU bound needs. Smoothness, Lipschitz and
// StrongConvexity are the paper's L, M and m (the paper writes L for smoothness and M
// for the Lipschitz constant of the per-sample data gradient, Remark 3.7).
type Problem struct {
	Smoothness, Lipschitz, StrongConvexity float64
	StepSize                               float64 // η ≤ 1/Smoothness
	N, Batch                               int     // n and b, with b | n
	Radius                                 float64 // R; +Inf for no projection
}

// Validate checks the hypotheses the bounds share: η ≤ 1/L, 0 ≤ m ≤ L, b | n, M > 0.
func (p Problem) Validate() error {
	var errs []error
	check := func(ok bool, field, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
		}
	}
	check(p.Smoothness > 0 && !math.IsInf(p.Smoothness, 0), "smoothness", "L = %v; want 0 < L < ∞", p.Smoothness)
	check(p.StrongConvexity >= 0 && p.StrongConvexity <= p.Smoothness, "strong-convexity", "m = %v; want 0 ≤ m ≤ L = %v", p.StrongConvexity, p.Smoothness)
	check(p.Lipschitz > 0 && !math.IsInf(p.Lipschitz, 0), "lipschitz", "M = %v; want 0 < M < ∞", p.Lipschitz)
	check(p.StepSize > 0 && p.StepSize <= 1/p.Smoothness*(1+1e-12), "eta", "η = %v; want 0 < η ≤ 1/L = %v", p.StepSize, 1/p.Smoothness)
	check(p.N >= 1, "n", "n = %d; want n ≥ 1", p.N)
	check(p.Batch >= 1 && p.N%max(p.Batch, 1) == 0, "batch", "b = %d; want b ≥ 1 dividing n = %d (drop the remainder, as the paper does)", p.Batch, p.N)
	check(p.Radius > 0, "radius", "R = %v; want R > 0 (+Inf for no projection)", p.Radius)
	return errors.Join(errs...)
}

// C is the contraction factor c = 1 − ηm of one noisy step.
func (p Problem) C() float64 { return 1 - p.StepSize*p.StrongConvexity }

// StepsPerEpoch is n/b.
func (p Problem) StepsPerEpoch() int { return p.N / p.Batch }

// ZB is Corollary 3.8's Z_B for the problem.
func (p Problem) ZB() float64 {
	return ZB(p.StepSize, p.Lipschitz, p.StrongConvexity, p.N, p.Batch, p.Radius)
}

// Epsilon is the Rényi bound α·Z²·PABIFactor(c, K·n/b)/(2s²) of unlearning K epochs from
// a law at W∞ distance Z of the target's stationary law (Corollary 3.8 with Z = Z_B;
// Theorem 3.11 with Z = Z^(s); Corollary 3.12 with Z = Z_S). K < 1 gives +Inf.
func (p Problem) Epsilon(alpha, sigma, Z float64, K int, mode PABIMode, v Variance) float64 {
	if K < 1 {
		return math.Inf(1)
	}
	return alpha * Z * Z * PABIFactor(p.StepSize, p.StrongConvexity, float64(K*p.StepsPerEpoch()), mode) / v.Denominator(p.StepSize, sigma)
}

// AlphaRange bounds the Rényi orders the conversion may use. The official code searches
// [2, 1e5] for the convergent bounds and [2, 1e4] for Theorem 3.2; outside the range the
// objective is evaluated at the nearer end (spec sglu §2.6). The zero AlphaRange means
// DefaultAlphas.
type AlphaRange struct{ Min, Max float64 }

// DefaultAlphas is the code's range for the convergent bounds; NonConvergentAlphas for
// Theorem 3.2.
var (
	DefaultAlphas       = AlphaRange{2, 1e5}
	NonConvergentAlphas = AlphaRange{2, 1e4}
	// Unbounded lets α range over (1, ∞).
	Unbounded = AlphaRange{1, math.Inf(1)}
)

// OrDefault is r, or DefaultAlphas for the zero range.
func (r AlphaRange) OrDefault() AlphaRange {
	if r == (AlphaRange{}) {
		return DefaultAlphas
	}
	return r
}

func (r AlphaRange) clamp(a float64) float64 { return math.Min(math.Max(a, r.Min), r.Max) }

// BestEpsilonLinear converts a bound linear in α, ε(α) = A·α, to (ϵ, δ) with Mironov's
// conversion ϵ = ε(α) + log(1/δ)/(α−1), at the optimal α* = 1 + √(ℓ/A) (ℓ = log(1/δ))
// clamped into the range, where the objective, convex in α−1, is then evaluated.
// Unclamped, ϵ* = A + 2√(Aℓ).
func BestEpsilonLinear(A, delta float64, r AlphaRange) (eps, alpha float64) {
	r = r.OrDefault()
	l := math.Log(1 / delta)
	if A == 0 {
		alpha = r.Max
		switch {
		case alpha <= 1: // no order above 1 to convert at
			return math.Inf(1), alpha
		case math.IsInf(alpha, 1):
			return 0, alpha
		}
		return l / (alpha - 1), alpha
	}
	star := 1 + math.Sqrt(l/A)
	if alpha = r.clamp(star); alpha == star {
		// The closed form stays finite when A is so small that α* overflows.
		return A + 2*math.Sqrt(A*l), alpha
	}
	if alpha <= 1 {
		return math.Inf(1), alpha
	}
	return A*alpha + l/(alpha-1), alpha
}

// BestEpsilonWeakTriangle converts Theorem 3.2's bound ε(α) = B·α(α−½)/(α−1) to (ϵ, δ):
// α* = 1 + √((B/2 + ℓ)/B), unclamped ϵ* = 3B/2 + 2√(B(B/2 + ℓ)).
func BestEpsilonWeakTriangle(B, delta float64, r AlphaRange) (eps, alpha float64) {
	r = r.OrDefault()
	l := math.Log(1 / delta)
	f := func(a float64) float64 { return B*a*(a-0.5)/(a-1) + l/(a-1) }
	if B == 0 {
		alpha = r.Max
		switch {
		case alpha <= 1:
			return math.Inf(1), alpha
		case math.IsInf(alpha, 1):
			return 0, alpha
		}
		return f(alpha), alpha
	}
	star := 1 + math.Sqrt((B/2+l)/B)
	if alpha = r.clamp(star); alpha == star {
		return 1.5*B + 2*math.Sqrt(B*(B/2+l)), alpha
	}
	if alpha <= 1 {
		return math.Inf(1), alpha
	}
	return f(alpha), alpha
}

// MaxLinearCoefficient is the largest A for which a bound ε(α) = A·α converts to at most
// target at δ (unclamped α): A_max = (√(ℓ + ϵ̂) − √ℓ)².
func MaxLinearCoefficient(target, delta float64) float64 {
	l := math.Log(1 / delta)
	d := math.Sqrt(l+target) - math.Sqrt(l)
	return d * d
}

// ErrInfeasible is wrapped when no K (or no σ in the search range) meets a target.
var ErrInfeasible = errors.New("target unreachable")

// MaxEpochs bounds the least-K searches.
const MaxEpochs = 1 << 20

// LeastK is the least K ≥ 1 whose bound, converted at δ over the α range, is at most the
// target, for unlearning from W∞ distance Z (Corollary 3.8 with Z = Z_B; the sequential
// driver passes Z^(s)). The converted ϵ is non-increasing in K, so the search doubles
// then bisects.
func (p Problem) LeastK(target, delta, sigma, Z float64, mode PABIMode, v Variance, r AlphaRange) (int, error) {
	ok := func(K int) bool {
		eps, _ := BestEpsilonLinear(p.Epsilon(1, sigma, Z, K, mode, v), delta, r)
		return eps <= target
	}
	return LeastEpochs(ok, fmt.Sprintf("ϵ̂ = %v at δ = %v with σ = %v", target, delta, sigma))
}

// LeastEpochs finds the least K in [1, MaxEpochs] with ok(K), for ok monotone (false
// then true), by doubling and bisection; what names the target in the error.
func LeastEpochs(ok func(K int) bool, what string) (int, error) {
	if ok(1) {
		return 1, nil
	}
	hi := 2
	for !ok(hi) {
		if hi >= MaxEpochs {
			return 0, fmt.Errorf("no K ≤ %d meets %s: %w", MaxEpochs, what, ErrInfeasible)
		}
		hi *= 2
	}
	lo := hi / 2 // fails
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// LeastKClosedForm is the convergent least K in closed form (spec sglu §2.6), for the
// paper PABI factor and an unclamped α: K = max(1, ⌈log(A_max/A0)/(2(n/b)·log c)⌉) with
// A0 = Z²/(2s²). A cross-check of LeastK.
func (p Problem) LeastKClosedForm(target, delta, sigma, Z float64, v Variance) int {
	a0 := Z * Z / v.Denominator(p.StepSize, sigma)
	amax := MaxLinearCoefficient(target, delta)
	if a0 <= amax {
		return 1
	}
	k := math.Log(amax/a0) / (2 * float64(p.StepsPerEpoch()) * logC(p.StepSize, p.StrongConvexity))
	return max(1, int(math.Ceil(k)))
}

// NextZ is Theorem 3.11's recursion: after a request that ran K epochs from distance Z,
// the next request starts from min(c^{K·n/b}·Z + Z_B, 2R).
func (p Problem) NextZ(Z float64, K int) float64 { return p.nextZ(Z, K, p.ZB()) }

// nextZ is the recursion with a request's own W∞ step (Z_B, or Z_S for S records).
func (p Problem) nextZ(Z float64, K int, step float64) float64 {
	return math.Min(PowC(p.StepSize, p.StrongConvexity, float64(K*p.StepsPerEpoch()))*Z+step, 2*p.Radius)
}

// SequentialZ is Z^(1..S) of Theorem 3.11 for the epochs K_1..K_S of S requests: Z^(1) =
// Z_B and Z^(s+1) = min(c^{K_s n/b}·Z^(s) + Z_B, 2R). The printed appendix algorithms use
// Z_B for every request, which is unsound from the second on (spec sglu §2.3 FLAG).
func (p Problem) SequentialZ(Ks []int) []float64 {
	out := make([]float64, len(Ks))
	z := p.ZB()
	for s, k := range Ks {
		out[s] = z
		z = p.NextZ(z, k)
	}
	return out
}

// Accountant is the sequential unlearning driver of spec sglu §2.3: for each request it
// finds the least K meeting the target at the current W∞ distance Z^(s), then advances
// Z by Theorem 3.11. Mixed uses the paper PABI factor for the first request and the
// exact-shift one after, as the official code does (the §4.6 golden lists need it). The
// zero Alphas is DefaultAlphas.
//
// PerRequest > 1 serves requests of that many records each: the W∞ step of a request is
// then Corollary 3.12's worst-case Z_S instead of Z_B, at the start and in the recursion
// (spec sglu §2.4, an extension the paper does not state; its proof is Theorem 3.11's
// with Lemma 3.5 replaced by Corollary 3.12).
type Accountant struct {
	Problem
	Target, Delta, Sigma float64
	Mode                 PABIMode
	Mixed                bool
	Variance             Variance
	Alphas               AlphaRange
	PerRequest           int // records per request; 0 means 1

	z        float64
	requests int
}

// Validate checks the problem and the accountant's own fields.
func (a *Accountant) Validate() error {
	errs := []error{a.Problem.Validate()}
	if !(a.Target > 0) || math.IsInf(a.Target, 0) {
		errs = append(errs, fmt.Errorf("target: ϵ̂ = %v; want 0 < ϵ̂ < ∞", a.Target))
	}
	if !(a.Delta > 0 && a.Delta < 1) {
		errs = append(errs, fmt.Errorf("delta: δ = %v; want 0 < δ < 1", a.Delta))
	}
	if !(a.Sigma > 0) || math.IsInf(a.Sigma, 0) {
		errs = append(errs, fmt.Errorf("sigma: σ = %v; want 0 < σ < ∞", a.Sigma))
	}
	if r := a.Alphas.OrDefault(); !(r.Min >= 1 && r.Max > 1 && r.Max >= r.Min) {
		errs = append(errs, fmt.Errorf("alphas: [%v, %v]; want 1 ≤ min ≤ max, max > 1", r.Min, r.Max))
	}
	if a.PerRequest < 0 || a.PerRequest > a.N {
		errs = append(errs, fmt.Errorf("per-request: S = %d; want 0 ≤ S ≤ n = %d", a.PerRequest, a.N))
	}
	return errors.Join(errs...)
}

// Next returns the epochs for the next request and the converted ϵ they certify, and
// advances the recursion.
func (a *Accountant) Next() (K int, eps float64, err error) {
	if a.requests == 0 {
		if err := a.Validate(); err != nil {
			return 0, 0, fmt.Errorf("sglu accountant: %w", err)
		}
		a.z = a.step()
	}
	mode := a.Mode
	if a.Mixed {
		mode = PaperPABI
		if a.requests > 0 {
			mode = ExactShiftPABI
		}
	}
	K, err = a.LeastK(a.Target, a.Delta, a.Sigma, a.z, mode, a.Variance, a.Alphas)
	if err != nil {
		return 0, 0, fmt.Errorf("sglu accountant, request %d: %w", a.requests+1, err)
	}
	eps, _ = BestEpsilonLinear(a.Epsilon(1, a.Sigma, a.z, K, mode, a.Variance), a.Delta, a.Alphas)
	a.z = a.nextZ(a.z, K, a.step())
	a.requests++
	return K, eps, nil
}

// step is a request's own W∞ step: Z_B, or Z_S for requests of S records.
func (a *Accountant) step() float64 {
	if a.PerRequest > 1 {
		return a.ZBatchWorstCase(a.PerRequest)
	}
	return a.ZB()
}

// Z is the W∞ distance the next request starts from (Z_B, or Z_S, before the first).
func (a *Accountant) Z() float64 {
	if a.requests == 0 {
		return a.step()
	}
	return a.z
}
