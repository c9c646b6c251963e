package d2daudit

import (
	"math"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
)

// The bound checker for Descent-to-Delete: every formula of spec d2d §3 that the
// algorithm itself does not need, as a pure function citing its source (the ones it
// needs — γ, η, T, T_i, Δ, σ, radii — are in reference/d2d). Conventions follow the spec:
// natural logarithms, n the original dataset size with n_i ≥ n/2, γ^0 = 1 and γ = 0
// giving exact one-step convergence.

// pow is γ^k, exact 0 at γ = 0.
func pow(gamma, k float64) float64 {
	if gamma == 0 {
		return 0
	}
	return fexp.Exp(k * math.Log(gamma))
}

// GDDistanceBoundSC is Theorem 2.13: projected GD with η = 2/(M + m) on an m-strongly
// convex, M-smooth objective leaves ‖θ_T − θ*‖ ≤ γ^T‖θ_0 − θ*‖.
func GDDistanceBoundSC(gamma float64, T int, dist0 float64) float64 {
	return pow(gamma, float64(T)) * dist0
}

// GDGapBoundConvex is Theorem 2.14: GD with η = 1/M on a convex M-smooth objective has
// h(θ_T) − min h ≤ M‖θ_0 − θ*‖²/(2T).
func GDGapBoundConvex(M, dist0 float64, T int) float64 { return M * dist0 * dist0 / (2 * float64(T)) }

// SensitivitySC is Lemma 2.12: for L-Lipschitz, m-strongly convex losses, one update of a
// dataset of size n moves the minimiser by at most 2L/(mn).
func SensitivitySC(L, m float64, n int) float64 { return 2 * L / (m * float64(n)) }

// SensitivitySCTight is the factor-2 tighter bound for differentiable losses [spec EXT],
// L/(m·max(n, n')), attained by one-dimensional quadratics.
func SensitivitySCTight(L, m float64, nLarger int) float64 { return L / (m * float64(nLarger)) }

// GaussianRenyi is the Rényi curve of the Gaussian mechanism, α·Δ²/(2σ²).
func GaussianRenyi(alpha, sensitivity, sigma float64) float64 {
	return alpha * dp.GaussianRho(sensitivity, sigma)
}

// GaussianTailRadius is Lemma A.2: P[‖Z‖ ≥ σ√(2d)·ln(2d/β)] ≤ β for Z ~ N(0, σ²I_d) (valid
// for every d ≥ 1 and β ∈ (0, 1], but very loose).
func GaussianTailRadius(sigma float64, d int, beta float64) float64 {
	return sigma * math.Sqrt(2*float64(d)) * math.Log(2*float64(d)/beta)
}

// GaussianTailRadiusTight is the concentration bound σ(√d + √(2 ln(1/β))) [spec EXT]:
// ‖Z‖ is σ-Lipschitz in a standard normal, with mean at most σ√d.
func GaussianTailRadiusTight(sigma float64, d int, beta float64) float64 {
	return sigma * (math.Sqrt(float64(d)) + math.Sqrt(2*math.Log(1/beta)))
}

// GaussianPrivacyLossMeanVar is the law of the privacy loss ln(p/q)(X), X ~ P, of the
// Gaussian pair with s = Δ/σ [spec EXT]: normal with mean ρ = s²/2 and variance 2ρ.
func GaussianPrivacyLossMeanVar(sensitivity, sigma float64) (mean, variance float64) {
	rho := dp.GaussianRho(sensitivity, sigma)
	return rho, 2 * rho
}

// BestOfNCopies is Lemma A.4's count: with N ≥ ln(1/p)/ln 2 i.i.d. copies of a
// non-negative variable of mean μ, the smallest is below 2μ with probability ≥ 1 − p.
func BestOfNCopies(failProb float64) int { return int(math.Ceil(math.Log(1/failProb) / math.Ln2)) }

// ChernoffUpper is Lemma A.5: P[X ≥ (1+t)μ] ≤ exp(−μt²/(2+t)) for X ~ Bin(m, p), μ = mp.
func ChernoffUpper(mu, t float64) float64 { return fexp.Exp(-mu * t * t / (2 + t)) }

// AccuracySC is Theorem 3.1's accuracy: with probability ≥ 1 − β, at every round
// ‖θ̃_i − θ*_i‖ ≤ r = (4L/(mn))·γ^I/(1−γ^I) + σ√(2d)·ln(2d/β), and, when ∇f(θ*) = 0
// (interior optimum, f defined on ℝ^d; spec §3.4 FLAG), f(θ̃_i) − f* ≤ (M/2)r².
func AccuracySC(L, m, M float64, n, I, d int, eps, delta, beta float64) (radius, alpha float64) {
	p := d2d.Params{Constants: reference.Constants{Lipschitz: L, Smoothness: M, StrongConvexity: m}, N: n, Budget: I, Epsilon: eps, Delta: delta}
	r := p.SecretRadius() + GaussianTailRadius(p.SecretSigma(), d, beta)
	return r, M / 2 * r * r
}

// AccuracySCBigO is the shape of Theorem 3.1's accuracy with constant 1 (reports only):
// M L² γ^{2I} d ln(1/δ) ln²(d/β) / ((1−γ^I)² m² ε² n²).
func AccuracySCBigO(L, m, M float64, n, I, d int, eps, delta, beta float64) float64 {
	g := pow(d2d.Contraction(M, m), float64(I))
	l := math.Log(float64(d) / beta)
	return M * L * L * g * g * float64(d) * math.Log(1/delta) * l * l / ((1 - g) * (1 - g) * m * m * eps * eps * float64(n) * float64(n))
}

// AccuracyPerfect is Theorem 3.2's accuracy, with probability ≥ 1 − β − δ/2:
// r = γ^I/(1−γ^I)·(4L/(mn) + σ√(2d)) + σ√(2d)·ln(2d/β), α = (M/2)r².
func AccuracyPerfect(L, m, M float64, n, I, d int, eps, delta, beta float64) (radius, alpha float64) {
	p := d2d.Params{Constants: reference.Constants{Lipschitz: L, Smoothness: M, StrongConvexity: m}, N: n, Dim: d, Budget: I, Epsilon: eps, Delta: delta}
	sigma := p.PerfectSigma()
	r := p.PerfectRadius(sigma) + GaussianTailRadius(sigma, d, beta)
	return r, M / 2 * r * r
}

// AccuracyRegStrong is Theorem 3.4's accuracy with the corrected constants of spec §3.6:
// r = (4L'/(λn))·γ^I/(1−γ^I) + σ√(2d)·ln(2d/β) with L' = L + λD and γ = M/(M + 2λ), and
// f(θ̃) − min f ≤ (M/2)r² + λ·D·r + (λ/2)·D².
func AccuracyRegStrong(L, M, diam, lambda float64, n, I, d int, eps, delta, beta float64) (radius, alpha float64) {
	lg, _, _ := d2d.RegularizedConstants(L, M, lambda, diam)
	g := pow(d2d.RegGamma(M, lambda), float64(I))
	sigma := d2d.SigmaRegStrong(L, M, diam, lambda, n, I, eps, delta)
	r := 4*lg/(lambda*float64(n))*g/(1-g) + GaussianTailRadius(sigma, d, beta)
	return r, M/2*r*r + lambda*diam*r + lambda/2*diam*diam
}

// AccuracyRegStrongMainTerm is the leading term of Theorem 3.4's accuracy with the
// corrected regulariser, (M^{3/2}·L·D⁴·√(d ln(1/δ)) / (ε n I))^{2/5} (= m·D²).
func AccuracyRegStrongMainTerm(L, M, diam float64, d, n, I int, eps, delta float64) float64 {
	return fexp.Pow(fexp.Pow(M, 1.5)*L*fexp.Pow(diam, 4)*math.Sqrt(float64(d)*math.Log(1/delta))/(eps*float64(n)*float64(I)), 2.0/5)
}

// AccuracyRegWeak is Theorem 3.5 / Remark 3.6's accuracy: r = ρ_ξ + σ√(2d)·ln(2d/β), and
// f(θ̃) − min f ≤ (M/2)r² + λ·D·r + (λ/2)·D², with σ of the given reading.
func AccuracyRegWeak(L, M, diam, lambda float64, n, I, d int, eps, delta, beta, xi float64, r d2d.Reading) (radius, alpha float64) {
	sigma := d2d.SigmaRegWeak(L, M, diam, lambda, n, I, eps, delta, xi, r)
	rad := d2d.WeakRho(L, M, diam, lambda, n, I, xi) + GaussianTailRadius(sigma, d, beta)
	return rad, M/2*rad*rad + lambda*diam*rad + lambda/2*diam*diam
}

// AccuracyRegLipschitz bounds the convex variants' excess risk f(θ̃) − min_Θ f without the
// interior-minimiser step of Theorems 3.4 and 3.5 (spec d2d §3.4 FLAG), for f L-Lipschitz on
// all of ℝ^d (logistic and Huberised losses; θ̃ is not projected): f(θ̃) − f(θ*_reg) ≤ L·r,
// and g(θ*_reg) ≤ g(θ*) gives f(θ*_reg) − f(θ*) ≤ (λ/2)(‖θ*‖² − ‖θ*_reg‖²) ≤ (λ/2)R² on the
// ball of radius R. r is the radius of ‖θ̃ − θ*_reg‖ (AccuracyRegStrong, AccuracyRegWeak).
func AccuracyRegLipschitz(L, lambda, radius, r float64) float64 {
	return L*r + lambda/2*radius*radius
}

// Table1Row is a row of the paper's Table 1 (asymptotic summary).
type Table1Row int

const (
	Table1PGDSC Table1Row = iota
	Table1PGDSCPerfect
	Table1RegularizedConvex
	Table1PGDConvexWeak
	Table1Distributed
)

// Table1Accuracy is a row's accuracy shape with constants dropped (reports only); e^{−I}
// stands for γ^{2I} as the spec reads it.
func Table1Accuracy(row Table1Row, d, n int, eps, I, xi float64) float64 {
	fd, fn := float64(d), float64(n)
	switch row {
	case Table1PGDSC, Table1PGDSCPerfect:
		return fd * fexp.Exp(-I) / (eps * eps * fn * fn)
	case Table1RegularizedConvex:
		return fexp.Pow(math.Sqrt(fd)/(eps*fn*I), 2.0/5)
	case Table1PGDConvexWeak:
		return math.Sqrt(math.Sqrt(fd) / (eps * fn * math.Sqrt(I)))
	case Table1Distributed:
		return fd*fexp.Exp(-I*fexp.Pow(fn, (4-3*xi)/2))/(eps*eps*fn*fn) + fexp.Pow(fn, -xi)
	}
	return math.NaN()
}

// Table1UpdateIters is a row's iteration count at update i as Table 1 prints it (the
// perfect row's "log i · I" is flagged: Theorem 3.2 gives I + O(log log i)).
func Table1UpdateIters(row Table1Row, i int, I float64) float64 {
	switch row {
	case Table1PGDSC, Table1RegularizedConvex:
		return I
	case Table1PGDSCPerfect, Table1Distributed:
		return math.Log(float64(i)) * I
	case Table1PGDConvexWeak:
		return float64(i) * float64(i) * I
	}
	return math.NaN()
}

// Table1BaselineIters is the iterations retraining from scratch needs for the same
// accuracy (Table 1, last column).
func Table1BaselineIters(row Table1Row, d, n int, eps, I, xi float64) float64 {
	fd, fn := float64(d), float64(n)
	switch row {
	case Table1PGDSC, Table1PGDSCPerfect:
		return I + math.Log(eps*fn/math.Sqrt(fd))
	case Table1RegularizedConvex:
		return fexp.Pow(eps*fn*I/math.Sqrt(fd), 2.0/5)
	case Table1PGDConvexWeak:
		return math.Sqrt(eps * fn * math.Sqrt(I) / math.Sqrt(fd))
	case Table1Distributed:
		return math.Min(math.Log(fn), I*fexp.Pow(fn, (4-3*xi)/2)+math.Log(eps*fn/math.Sqrt(fd)))
	}
	return math.NaN()
}

// ZDWAvgSqError is Theorem 4.4 (Zhang–Duchi–Wainwright 2012, Cor. 2), quoted by the paper:
// E‖θ*_avg − θ*‖² ≤ 2L²/(m²B) + c·K²L²/(m⁴B²)·(H² ln d + L²G²/m²) + c2·K/B² + c3·K³/B³.
// The constants c, c2, c3 are unspecified in the source; the result serves report shapes.
func ZDWAvgSqError(L, m, H, G float64, B, K, d int, c, c2, c3 float64) float64 {
	fb, fk := float64(B), float64(K)
	return 2*L*L/(m*m*fb) + c*fk*fk*L*L/(m*m*m*m*fb*fb)*(H*H*math.Log(float64(d))+L*L*G*G/(m*m)) + c2*fk/(fb*fb) + c3*fk*fk*fk/(fb*fb*fb)
}

// DistAccuracyBigO is Theorem 4.5's accuracy shape with constant 1 (reports only), with
// the γ^{2a} of the squared-norm bound (the paper prints γ^a; spec §3.9.5 FLAG):
// M L² γ^{2a} d ln(1/δ) ln²(d/β)/(m²(1−γ)²ε²n²) + ln d/n^ξ + 1/n^{3ξ/2}.
func DistAccuracyBigO(L, m, M float64, n int, a, xi float64, d int, eps, delta, beta float64) float64 {
	gamma := d2d.Contraction(M, m)
	g := pow(gamma, a)
	l := math.Log(float64(d) / beta)
	fn := float64(n)
	return M*L*L*g*g*float64(d)*math.Log(1/delta)*l*l/(m*m*(1-gamma)*(1-gamma)*eps*eps*fn*fn) +
		math.Log(float64(d))/fexp.Pow(fn, xi) + 1/fexp.Pow(fn, 1.5*xi)
}

// RecursionStep is one round of the certified-radius recursion of spec d2d §3.11.
type RecursionStep struct {
	Contraction float64 // c_i = γ^{T_i}
	Sensitivity float64 // s_i, how far the round's update moves the minimiser
	StartError  float64 // e_i, extra error of the warm start (perfect mode: the realised ‖Z_{i−1}‖)
}

// CertifiedRadii runs r_i = c_i·(r_{i−1} + s_i + e_i) from r_0 (spec d2d §3.11): the
// certified distance of the unlearned model to the minimiser after each round. Every
// variant of D2D is an instance.
func CertifiedRadii(r0 float64, steps []RecursionStep) []float64 {
	out := make([]float64, len(steps))
	r := r0
	for i, s := range steps {
		r = s.Contraction * (r + s.Sensitivity + s.StartError)
		out[i] = r
	}
	return out
}

// CertifiedDeltas is the recursion for a D2D plan along an update sequence with the given
// dataset sizes n_0, n_1, …, n_k and update kinds: s_i = 2L/(m·n_{i−1}) for a deletion and
// 2L/(m·n_i) for an addition (Lemma 2.12 on the larger set), c_i = γ^{T_i}, r_0 from the
// learner's T(n_0); the certified gap to a retrain is Δ_i = q_i + r_i with q_i = γ^{T(n_i)}·D
// the retrain's own error. It is never above the plan's closed-form Δ for the secret-state
// and convex-strong modes (Assumption 2.6 holding).
func CertifiedDeltas(pl d2d.Plan, sizes []int, kinds []reference.UpdateKind) []float64 {
	p := pl.Params
	L := p.Lipschitz
	if pl.Mode.Convex() {
		L += pl.Reg * p.Diameter()
	}
	m := p.StrongConvexity
	if pl.Mode.Convex() {
		m = pl.Reg
	}
	diam := p.Diameter()
	steps := make([]RecursionStep, len(kinds))
	for i, k := range kinds {
		n := sizes[i]
		if k == reference.Add {
			n = sizes[i+1]
		}
		steps[i] = RecursionStep{Contraction: pow(pl.Gamma, float64(pl.UpdateIterations(i+1))), Sensitivity: 2 * L / (m * float64(n))}
	}
	r0 := pow(pl.Gamma, float64(pl.LearnIterations(sizes[0]))) * diam
	rs := CertifiedRadii(r0, steps)
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = pow(pl.Gamma, float64(pl.LearnIterations(sizes[i+1])))*diam + r
	}
	return out
}

// DistCorrectedDelta is the certified Δ after update i of distributed descent once the
// proof gap of Theorem 4.5 is accounted for (spec d2d §3.9.4 FLAG): partitions untouched in
// a round keep their earlier error, so the average radius is
// (4L/(mB))·γ^a/(1−γ^a)·(1 + Σ_{τ≤i} s_τ/(1 + 10τ ln(2τ/δ))), with s_τ at Lemma 4.3's
// bound (10B/n)·ln(2τ/δ) on the event of Fact F.1, plus the retrain's (4L/(mn))·γ^a
// (Eq. 24). With the fixed schedule the sum is at most (B/n)·π²/6 and the certified Δ is
// (4L/(mn))·γ^a/(1−γ^a)·(2 + π²/6) at every round.
func DistCorrectedDelta(pl d2d.DistPlan, i int) float64 {
	deltas := distCorrectedDeltas(pl, i)
	return deltas[len(deltas)-1]
}

// distCorrectedDeltas is DistCorrectedDelta for rounds 1..i, with a running sum.
func distCorrectedDeltas(pl d2d.DistPlan, i int) []float64 {
	p := pl.Params
	g := pow(pl.Gamma, pl.A)
	// 4L/(mn) is 2L/(m·(n/2)), to the bit; a declared floor takes n/2's place (spec d2d §1.4)
	lemma := 2 * p.Lipschitz / (p.StrongConvexity * p.Floor())
	unit, retrain := lemma*g/(1-g), lemma*g
	B, n := float64(pl.B), float64(p.N)
	out := make([]float64, i)
	sum := 0.0
	for tau := 1; tau <= i; tau++ {
		if p.Schedule == d2d.FixedSchedule {
			out[tau-1] = unit * (2 + math.Pi*math.Pi/6)
			continue
		}
		l := math.Log(2 * float64(tau) / p.Delta)
		sum += (10 * B / n * l) / (1 + 10*float64(tau)*l)
		out[tau-1] = retrain + unit*(n/B)*(1+sum)
	}
	return out
}

// DistCorrectedEpsilon is the ε the plan's σ certifies after update i under the corrected
// accounting, at δ/2 (Lemma A.3) — the other δ/2 covers Fact F.1 — and the first round at
// which it exceeds the claimed ε (0 if none up to i).
func DistCorrectedEpsilon(pl d2d.DistPlan, i int) (eps float64, firstExceeding int) {
	p := pl.Params
	for k, d := range distCorrectedDeltas(pl, i) {
		e := dp.GaussianEpsilon(d, pl.Sigma, p.Delta/2)
		if e > p.Epsilon*(1+1e-12) && firstExceeding == 0 {
			firstExceeding = k + 1
		}
		eps = e
	}
	return eps, firstExceeding
}
