package olu

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
)

// Phase1Data chooses the functions Algorithm 2's first descent phase runs on.
type Phase1Data int

const (
	// AllSeen is the paper's: every function seen so far, the deleted ones included; the
	// noise then pays for the distance between the two minimisers (2iL/(μτ)).
	AllSeen Phase1Data = iota
	// RetainedOnly runs both phases on the functions kept. Then, under Theorem 6's
	// schedule hypothesis, the real and the reference run apply the same descent map at
	// every request and differ only by what the online steps carried in, so the shift is
	// γ_GD^{I₁+I₂}·Γ(u, τ)·η_u L — derived here, not the paper's.
	RetainedOnly
)

func (p Phase1Data) String() string {
	if p == RetainedOnly {
		return "retained only"
	}
	return "all seen"
}

// ActiveNoise chooses how Algorithm 2 sizes its noise.
type ActiveNoise int

const (
	// ShiftNoise is B(i, ω, ε)·a_i with the shift a_i of spec olu §3.4 [FIX]: valid for any
	// iteration counts and any diameter (the default).
	ShiftNoise ActiveNoise = iota
	// Eq40Noise is the paper's Eq. 40 as printed, γ^{I₂}·B(i, ω, ε)·L(6i + Lγ^{τ−u}η_u)/(τμ):
	// it drops a 1/D (valid only for D ≥ 1) and uses the paper's γ for the online steps.
	Eq40Noise
)

func (n ActiveNoise) String() string {
	if n == Eq40Noise {
		return "Eq. 40"
	}
	return "shift"
}

// ActiveConfig is Algorithm 2, first-order active OLU: online descent (Config, with
// η_t = 1/(μt) in Theorem 6), and at each request I₁ projected gradient steps on the mean
// of the functions seen, I₂ on the mean of those kept, then Gaussian noise.
type ActiveConfig struct {
	Config
	// GDStep is the descent phases' step η_GD (default 2/(β + μ), the step at which the
	// paper's γ = (β − μ)/(β + μ) is the true contraction; its Algorithm 2 prints 1/(β + μ)).
	GDStep float64
	// I1 and I2 fix the phases' iteration counts; zero takes Theorem 6's
	// I₁ = ⌈ln(μDτ/L)/ln(1/γ)⌉ per request and I₂ = ⌈2.2 ln k/ln(1/γ)⌉.
	I1, I2 int
	Phase1 Phase1Data
	Noise  ActiveNoise
}

// gd returns the descent phases' step and contraction.
func (c ActiveConfig) gd() (eta, gamma float64) {
	eta = c.GDStep
	if eta == 0 {
		eta = 2 / (c.Beta + c.Mu)
	}
	return eta, GammaStep(eta, c.Mu, c.Beta)
}

// ActiveI1 is Theorem 6's first-phase count ⌈ln(μDτ/L)/ln(1/γ)⌉ (at least 0), enough to
// bring the state within L/(μτ) of the minimiser from anywhere in a domain of diameter D;
// γ = 0 (a step that lands on the minimiser) needs one.
func ActiveI1(gamma, mu, D, L float64, tau int) int {
	return iterations(gamma, mu*D*float64(tau)/L)
}

// ActiveI2 is Theorem 6's second-phase count ⌈2.2 ln k/ln(1/γ)⌉ (at least 0).
func ActiveI2(gamma float64, k int) int { return iterations(gamma, fexp.Pow(float64(k), 2.2)) }

// iterations is the least I ≥ 0 with γ^I ≤ 1/ratio.
func iterations(gamma, ratio float64) int {
	if ratio <= 1 {
		return 0
	}
	if gamma <= 0 {
		return 1
	}
	if gamma >= 1 {
		return math.MaxInt32
	}
	return int(math.Ceil(math.Log(ratio) / math.Log(1/gamma)))
}

// ActiveShift is the spec's valid shift for request i (olu §3.4 [FIX]):
// a_i = γ^{I₂}(2γ^{I₁}D + 2iL/(μτ) + γ^{I₁}·Γ_OGD·η_u L), γ the descent phases'
// contraction: two descents from anywhere end within γ^{I₁}D of their phase's minimiser,
// whose minimisers differ by at most 2iL/(μτ) (Lemma 5).
func ActiveShift(i int, gammaGD float64, I1, I2 int, L, mu, D float64, tau int, gammaOGD, etaU float64) float64 {
	g1, g2 := fexp.Pow(gammaGD, float64(I1)), fexp.Pow(gammaGD, float64(I2))
	return g2 * (2*g1*D + 2*float64(i)*L/(mu*float64(tau)) + g1*gammaOGD*etaU*L)
}

// ActiveSigmaEq40 is the paper's Eq. 40 as printed.
func ActiveSigmaEq40(i int, omega, epsilon, gamma float64, I2 int, L, mu float64, tau, u int, etaU float64) float64 {
	return fexp.Pow(gamma, float64(I2)) * NoiseMultiplier(i, omega, epsilon) * L *
		(6*float64(i) + L*fexp.Pow(gamma, float64(tau-u))*etaU) / (float64(tau) * mu)
}

// checkActive validates an active schedule: strictly increasing τ, and each deleted
// function arriving after the previous request (τ_{i−1} < u_i ≤ τ_i, Theorem 6's
// hypothesis, which the noise relies on).
func checkActive(stream []Cost, sched Schedule, c ActiveConfig) error {
	if err := sched.check(stream, false); err != nil {
		return err
	}
	for i := 1; i < len(sched); i++ {
		if sched[i].U <= sched[i-1].Tau {
			return fmt.Errorf("olu: request %d deletes f_%d, which arrived before request %d (τ = %d): Algorithm 2's noise assumes τ_{i−1} < u_i", i+1, sched[i].U, i, sched[i-1].Tau)
		}
	}
	if c.Mu <= 0 {
		return errors.New("olu: Algorithm 2 needs strongly convex costs (μ > 0)")
	}
	if eta, _ := c.gd(); !(eta > 0) || eta > 2/(c.Beta+c.Mu)*(1+1e-12) {
		return fmt.Errorf("olu: descent step %v outside (0, 2/(β + μ)]", eta)
	}
	return nil
}

// descend runs n projected gradient steps of size eta on the mean of the functions of
// stream at the rounds in set (1-based), from w; it returns the gradients evaluated.
func descend(w []float64, stream []Cost, set []int, eta float64, n int, dom Domain) int64 {
	if len(set) == 0 {
		return 0
	}
	d := len(w)
	g, sum := make([]float64, d), make([]float64, d)
	for range n {
		clear(sum)
		for _, s := range set {
			stream[s-1].Gradient(g, w)
			for j, v := range g {
				sum[j] += v
			}
		}
		for j := range w {
			w[j] -= eta * sum[j] / float64(len(set))
		}
		dom.Project(w)
	}
	return int64(n) * int64(len(set))
}

// rounds lists 1..t without the rounds in gone and the ⊥ rounds.
func rounds(stream []Cost, t int, gone map[int]bool) []int {
	out := make([]int, 0, t)
	for s := 1; s <= t; s++ {
		if stream[s-1] != nil && !gone[s] {
			out = append(out, s)
		}
	}
	return out
}

// Active is Algorithm 2 in the canonical form of spec olu §2.6: online descent, and at
// request i (round τ_i) I₁ steps on the mean of the functions seen (or kept, RetainedOnly),
// I₂ on those kept, then N(0, σ_i²I) and the projection. It stores the whole stream; each
// request costs I₁·|seen| + I₂·|kept| gradients.
func Active(ctx context.Context, c ActiveConfig, stream []Cost, sched Schedule, r *rand.Rand) (*Run, error) {
	if err := checkActive(stream, sched, c); err != nil {
		return nil, err
	}
	etaGD, gammaGD := c.gd()
	d := len(c.X0)
	D := c.Domain.Diameter(d)
	gone := map[int]bool{}
	return c.online(ctx, stream, sched.Taus(), func(ctx context.Context, st *state, t int, idx []int, run *Run) error {
		i := idx[0] // strictly increasing τ: one request a round
		req := sched[i]
		seen := rounds(stream, t, nil) // the deleted functions too: the paper's phase 1
		gone[req.U] = true
		kept := rounds(stream, t, gone)
		I1, I2 := c.I1, c.I2
		if I1 == 0 {
			I1 = ActiveI1(gammaGD, c.Mu, D, c.Lipschitz, t)
		}
		if I2 == 0 {
			I2 = ActiveI2(gammaGD, len(sched))
		}
		first := seen
		if c.Phase1 == RetainedOnly {
			first = kept
		}
		grads := descend(st.x, stream, first, etaGD, I1, c.Domain)
		grads += descend(st.x, stream, kept, etaGD, I2, c.Domain)
		st.grads += grads
		gammaOGD := Contraction(c.Contraction, st.etas, req.U, req.Tau, c.Mu, c.Beta)
		etaU := st.etas[req.U-1]
		var shift, sigma float64
		switch {
		case c.Noise == Eq40Noise: // as printed, no floor
			sigma = ActiveSigmaEq40(i+1, c.Omega, c.Epsilon, gammaGD, I2, c.Lipschitz, c.Mu, req.Tau, req.U, etaU)
			shift = sigma / NoiseMultiplier(i+1, c.Omega, c.Epsilon)
		default:
			switch {
			case c.Phase1 == RetainedOnly:
				steps := I1 + I2
				if len(kept) == 0 {
					steps = 0 // nothing left to descend on: the online steps' shift stands
				}
				shift = fexp.Pow(gammaGD, float64(steps)) * gammaOGD * etaU * c.Lipschitz
			case len(kept) == 0:
				// every function so far deleted: the reference does not descend, so only
				// the domain bounds the distance
				shift = D
			default:
				shift = ActiveShift(i+1, gammaGD, I1, I2, c.Lipschitz, c.Mu, D, req.Tau, gammaOGD, etaU)
			}
			shift = math.Max(shift, roundingFloor(st.x))
			sigma = NoiseMultiplier(i+1, c.Omega, c.Epsilon) * shift
		}
		if math.IsNaN(sigma) || math.IsInf(sigma, 0) {
			return fmt.Errorf("olu: request %d: σ = %v (an unbounded domain with nothing left to descend on?)", i+1, sigma)
		}
		from := len(run.Served)
		run.Served = append(run.Served, Served{Request: req, Contraction: fexp.Pow(gammaGD, float64(I1+I2)), Shift: shift, Sigma: sigma,
			Noise: st.addNoise(sigma, r), Gradients: grads})
		st.release(run, from)
		return ctx.Err()
	})
}

// ActiveReference is Algorithm 2's reference for request i: the same algorithm on the
// stream with the first i requests' functions ⊥, no deletions, and at each τ_j (j ≤ i) the
// real run's descent counts — both phases on the functions kept — and noise σ_j.
func ActiveReference(ctx context.Context, c ActiveConfig, stream []Cost, sched Schedule, i int, real *Run, r *rand.Rand) (*Run, error) {
	if err := checkActive(stream, sched, c); err != nil {
		return nil, err
	}
	if i < 0 || i > len(sched) || len(real.Served) < i {
		return nil, fmt.Errorf("olu: active reference for request %d of %d with %d served", i, len(sched), len(real.Served))
	}
	etaGD, gammaGD := c.gd()
	D := c.Domain.Diameter(len(c.X0))
	bottom := Without(stream, sched, i)
	return c.online(ctx, bottom, sched[:i].Taus(), func(ctx context.Context, st *state, t int, idx []int, run *Run) error {
		j := idx[0]
		I1, I2 := c.I1, c.I2
		if I1 == 0 {
			I1 = ActiveI1(gammaGD, c.Mu, D, c.Lipschitz, t)
		}
		if I2 == 0 {
			I2 = ActiveI2(gammaGD, len(sched))
		}
		kept := rounds(bottom, t, nil)
		st.grads += descend(st.x, bottom, kept, etaGD, I1+I2, c.Domain)
		from := len(run.Served)
		sigma := real.Served[j].Sigma
		run.Served = append(run.Served, Served{Request: sched[j], Sigma: sigma, Noise: st.addNoise(sigma, r)})
		st.release(run, from)
		return ctx.Err()
	})
}

// NewtonVariant chooses Algorithm 3's second-order step.
type NewtonVariant int

const (
	// SekhariPlus is w + (1/m)H⁻¹Σ_{deleted}∇f(w), H the mean Hessian of the m functions
	// kept (Sekhari et al.'s sign; the spec's reading).
	SekhariPlus NewtonVariant = iota
	// PaperLiteralMinus is the printed w − …: it moves away from the minimiser.
	PaperLiteralMinus
	// FullNewtonOnRemaining is w − (Σ_{kept}∇²f(w))⁻¹Σ_{kept}∇f(w): one Newton step on the
	// kept functions, which needs no assumption on w.
	FullNewtonOnRemaining
)

func (v NewtonVariant) String() string {
	switch v {
	case PaperLiteralMinus:
		return "paper's minus"
	case FullNewtonOnRemaining:
		return "Newton on the kept functions"
	}
	return "Sekhari's plus"
}

// NewtonConfig is Algorithm 3, second-order active OLU. The paper states no theorem for
// it: its noise (Eq. 59, read with j → i) is reported as uncertified, and its privacy is
// only measured.
type NewtonConfig struct {
	Config
	GDStep  float64 // the descent phase's step (default 2/(β + μ))
	I1      int     // descent steps before the Newton step (0: Theorem 6's I₁)
	Variant NewtonVariant
	// HessianLipschitz is Eq. 59's M (undefined in the paper) and Alpha its α.
	HessianLipschitz, Alpha float64
}

// NewtonSigma is Eq. 59 read with j → i:
// √(α i^ω ω/(2(ω−1)ε))·L(2 + (kβ/(μ(τ − k)))(M/μ − 1))/(μ(τ − i)), the bracket at least 0.
func NewtonSigma(i, k int, alpha, omega, epsilon, L, beta, mu, M float64, tau int) float64 {
	bracket := math.Max(0, 2+float64(k)*beta/(mu*float64(tau-k))*(M/mu-1))
	return math.Sqrt(alpha*fexp.Pow(float64(i), omega)*omega/(2*(omega-1)*epsilon)) * L * bracket / (mu * float64(tau-i))
}

// ActiveNewton is Algorithm 3 (spec olu §2.7 [FIX]): online descent, and at request i I₁
// descent steps on the mean of the functions seen, one second-order step of the chosen
// variant, and Eq. 59's noise. Uncertified.
func ActiveNewton(ctx context.Context, c NewtonConfig, stream []Cost, sched Schedule, r *rand.Rand) (*Run, error) {
	ac := ActiveConfig{Config: c.Config, GDStep: c.GDStep, I1: c.I1}
	if err := checkActive(stream, sched, ac); err != nil {
		return nil, err
	}
	etaGD, gammaGD := ac.gd()
	d := len(c.X0)
	D := c.Domain.Diameter(d)
	gone := map[int]bool{}
	return c.online(ctx, stream, sched.Taus(), func(ctx context.Context, st *state, t int, idx []int, run *Run) error {
		i := idx[0]
		req := sched[i]
		seen := rounds(stream, t, nil) // every function seen, the deleted ones too
		for _, j := range sched[:i+1] {
			gone[j.U] = true
		}
		kept := rounds(stream, t, gone)
		if len(kept) == 0 {
			return fmt.Errorf("olu: request %d leaves no function for the Newton step", i+1)
		}
		I1 := c.I1
		if I1 == 0 {
			I1 = ActiveI1(gammaGD, c.Mu, D, c.Lipschitz, t)
		}
		grads := descend(st.x, stream, seen, etaGD, I1, c.Domain)
		H := mat.NewSymDense(d, nil)
		h := mat.NewSymDense(d, nil)
		g := make([]float64, d)
		for _, s := range kept {
			stream[s-1].Hessian(h, st.x)
			H.AddSym(H, h)
		}
		rhs := make([]float64, d)
		sign := 1.0
		switch c.Variant {
		case FullNewtonOnRemaining:
			for _, s := range kept {
				stream[s-1].Gradient(g, st.x)
				for j, v := range g {
					rhs[j] -= v
				}
			}
			grads += int64(len(kept))
		default:
			for _, j := range sched[:i+1] {
				stream[j.U-1].Gradient(g, st.x)
				for jj, v := range g {
					rhs[jj] += v
				}
			}
			grads += int64(i + 1)
			if c.Variant == PaperLiteralMinus {
				sign = -1
			}
		}
		// (1/m)·(H/m)⁻¹·v = H⁻¹v with H the summed Hessian
		var chol mat.Cholesky
		if !chol.Factorize(H) {
			return fmt.Errorf("olu: request %d: the kept functions' Hessian is not positive definite", i+1)
		}
		var step mat.VecDense
		if err := chol.SolveVecTo(&step, mat.NewVecDense(d, rhs)); err != nil {
			return fmt.Errorf("olu: request %d: Newton step: %w", i+1, err)
		}
		for j := range st.x {
			st.x[j] += sign * step.AtVec(j)
		}
		st.grads += grads
		sigma := NewtonSigma(i+1, len(sched), c.Alpha, c.Omega, c.Epsilon, c.Lipschitz, c.Beta, c.Mu, c.HessianLipschitz, req.Tau)
		if math.IsNaN(sigma) || math.IsInf(sigma, 0) {
			return fmt.Errorf("olu: request %d: Eq. 59 gives σ = %v (τ = %d, k = %d)", i+1, sigma, req.Tau, len(sched))
		}
		from := len(run.Served)
		run.Served = append(run.Served, Served{Request: req, Sigma: sigma, Noise: st.addNoise(sigma, r), Gradients: grads})
		st.release(run, from)
		return ctx.Err()
	})
}
