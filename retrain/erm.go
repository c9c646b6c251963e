package retrain

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/floats"
)

// Options tune the exact minimiser.
type Options struct {
	// Tolerance on the stationarity residual: ‖∇f‖ for an interior minimiser, the norm of
	// the projected-gradient map for one on the sphere. Default 1e-10.
	Tolerance float64
	// MaxIterations bounds trust-region Newton steps per inner solve. Default 200.
	MaxIterations int
}

func (o Options) withDefaults() Options {
	if o.Tolerance == 0 {
		o.Tolerance = 1e-10
	}
	if o.MaxIterations == 0 {
		o.MaxIterations = 200
	}
	return o
}

// Result is an exact minimiser with the evidence that it is one.
type Result struct {
	Theta []float64
	// Residual is the final stationarity residual (see Options.Tolerance).
	Residual float64
	// OnBoundary reports that the ball constraint is active; Multiplier is then the KKT
	// multiplier μ > 0 with ∇f(θ) = −μθ and ‖θ‖ = R.
	OnBoundary bool
	Multiplier float64
	// NewtonSteps counts trust-region Newton steps over all inner solves, HessVecs the
	// Hessian–vector products their conjugate gradients took (each one pass over X).
	NewtonSteps int
	HessVecs    int
}

// ErrNotConverged is wrapped when the solver stops above the tolerance: its iteration
// budget spent, or stalled at the rounding floor of the gradient (which, for data of large
// scale, can lie above the tolerance asked for). The Result returned with it is still the
// point reached, feasible, with that point's residual, so a caller that can live with a
// larger residual can use it; the solver itself never calls a residual above
// Options.Tolerance converged.
var ErrNotConverged = errors.New("exact minimiser did not reach the tolerance")

// Minimize returns θ* = argmin_{‖θ‖ ≤ R} f_D(θ) for an L2-regularised generalised linear
// loss, to the tolerance of opt (radius +Inf: unconstrained).
//
// The solver is Hessian-free: a trust-region truncated Newton method (Steihaug's conjugate
// gradient inside a trust region, the method of liblinear's TRON) that touches the
// Hessian only through products ∇²f(θ)v, one pass over X each. Memory is O(n + d) beyond
// the data, whatever d is, and each step costs a few passes over X.
//
// When the unconstrained minimiser lies outside the ball, the constrained one is on the
// sphere and satisfies the KKT condition ∇f(θ) + μθ = 0, ‖θ‖ = R: it is the unconstrained
// minimiser of f + (μ/2)‖θ‖² for the μ at which that minimiser has norm R. Its norm
// decreases in μ, so μ is found by a safeguarded secant search on 1/‖θ(μ)‖ − 1/R (the
// trust-region "secular equation"), each inner solve warm-started. This is the documented
// alternative to a projected Newton method that the oracle uses: every inner problem is
// unconstrained and strongly convex, so the trust-region solver needs no projection.
//
// Without regularisation (λ = 0) a rank-deficient design — fewer rows than features,
// collinear columns — has a set of minimisers θ* + null(X), all of one value. Minimize then
// returns the one of least norm. It needs no basis of range(Xᵀ) for that: it starts from
// θ = 0, and every gradient Xᵀw + μθ, every product (XᵀDX + μI)v and so every conjugate
// gradient step lies in range(Xᵀ) when θ does, so the iterates never leave it, and the
// minimiser in range(Xᵀ) is the one of least norm. Directions whose singular value is
// below NullSingularRatio of the largest are numerically null: along them the gradient is
// under the tolerance and the solver does not move.
func Minimize(obj *reference.Objective, radius float64, opt Options) (Result, error) {
	return minimize(obj, radius, opt.withDefaults())
}

// NullSingularRatio is the relative size below which a singular value of the design
// counts as zero for Minimize's minimum-norm rule (see Minimize): at σ ≤ 1e-6·σ_max the
// curvature σ² is below 1e-12 of the largest, within the rounding of the products that
// the conjugate gradients build their steps from.
const NullSingularRatio = 1e-6

func minimize(obj *reference.Objective, radius float64, opt Options) (Result, error) {
	s := newSolver(obj, opt)
	d := obj.Dim()
	g0 := make([]float64, d)
	obj.Gradient(g0, make([]float64, d))
	// At μ = ‖∇f(0)‖/R, ‖θ(μ)‖ ≤ ‖∇F(0)‖/(λ+μ) ≤ R by strong convexity of F = f + (μ/2)‖θ‖².
	hi := reference.Norm(g0) / radius
	psi := func(th []float64) float64 { return 1/reference.Norm(th) - 1/radius }
	var (
		lo       float64
		loTheta  []float64
		hiTheta  []float64
		interior bool
	)
	if obj.Loss().Regularization() > 0 || hi == 0 || math.IsInf(radius, 1) {
		// Strongly convex (or trivially solved): the unconstrained solve is well conditioned.
		loTheta = make([]float64, d)
		s.solve(loTheta, 0)
		interior = reference.Norm(loTheta) <= radius
		if !interior {
			hiTheta = slices.Clone(loTheta)
			s.solve(hiTheta, hi)
		}
	} else {
		// λ = 0: the unconstrained problem may have no minimiser (separable classes), and
		// Newton would then walk off towards infinity for a hundred steps. Bracket μ from
		// above instead, lowering it a decade at a time from the point known to be inside.
		hiTheta = make([]float64, d)
		s.solve(hiTheta, hi)
		cur := slices.Clone(hiTheta)
		// Below μ = tol/(2R) a θ(μ) inside the ball is already an answer: ∇f = −μθ there,
		// so ‖∇f‖ ≤ μR ≤ tol/2. Lowering μ further only moves θ along directions whose
		// gradient is under the tolerance — numerically null ones, which a tiny μ would
		// push out to the sphere (‖θ_null‖ ≈ ‖∇f_null‖/μ) and so off the minimiser.
		floor := max(hi*1e-12, opt.Tolerance/(2*radius))
		for mu := hi / 10; mu >= floor; mu /= 10 {
			s.solve(cur, mu)
			if reference.Norm(cur) > radius {
				lo, loTheta = mu, cur
				break
			}
			hi = mu
			copy(hiTheta, cur)
		}
		if loTheta == nil { // inside the ball down to μ ≈ 0: look at μ = 0 itself
			clear(cur) // from θ = 0 (see coldStart)
			s.solve(cur, 0)
			lo, loTheta = 0, cur
			interior = reference.Norm(cur) <= radius
		}
	}
	if interior {
		res := Result{Theta: loTheta, NewtonSteps: s.steps, HessVecs: s.hessVecs}
		res.Residual = s.gradNorm(loTheta, 0)
		return s.finish(res)
	}
	// Without regularisation, a solve at a small μ moves θ along directions that are null
	// only to rounding (singular value ≈ 1e-16) by about 1e-16/μ, and a warm start would
	// carry that into the answer, where the gradient along them is too small to undo it.
	// Starting every solve that decides the answer from θ = 0 keeps the minimum-norm rule
	// to what the final μ's KKT condition itself puts there.
	coldStart := obj.Loss().Regularization() == 0
	psiLo, psiHi := psi(loTheta), psi(hiTheta)
	mu := hi
	cur := hiTheta
	side := 0 // which end the last step replaced: −1 lo, +1 hi
	for range 200 {
		if math.Abs(reference.Norm(cur)-radius) <= 1e-13*radius || hi-lo <= 1e-16*hi {
			break
		}
		// Regula falsi inside [lo, hi] with the Illinois rule: when the same end is replaced
		// twice running, halve the other end's value so the bracket shrinks from both sides
		// (superlinear; plain regula falsi stalls on one side of a convex ψ).
		next := hi - psiHi*(hi-lo)/(psiHi-psiLo)
		if !(next > lo && next < hi) {
			next = (lo + hi) / 2
		}
		mu = next
		if coldStart {
			clear(cur)
		}
		s.solve(cur, mu)
		p := psi(cur)
		if p < 0 { // norm too large: μ too small
			lo, psiLo = mu, p
			if side == -1 {
				psiHi /= 2
			}
			side = -1
		} else {
			hi, psiHi = mu, p
			if side == 1 {
				psiLo /= 2
			}
			side = 1
		}
	}
	// The constrained minimiser lies on the sphere: put it there exactly, from either side
	// (projecting would leave a point a rounding error inside, short of the optimum).
	scale := radius / reference.Norm(cur)
	for j := range cur {
		cur[j] *= scale
	}
	res := Result{Theta: cur, OnBoundary: true, Multiplier: mu, NewtonSteps: s.steps, HessVecs: s.hessVecs}
	res.Residual = projectedGradientNorm(obj, cur, radius)
	return s.finish(res)
}

func (s *solver) finish(res Result) (Result, error) {
	if res.Residual > s.opt.Tolerance {
		return res, fmt.Errorf("minimise %s on %d rows: residual %.3g > %.3g after %d Newton steps (%d Hessian–vector products): %w",
			s.obj.Loss().Name(), s.obj.Data().Len(), res.Residual, s.opt.Tolerance, res.NewtonSteps, res.HessVecs, ErrNotConverged)
	}
	return res, nil
}

// projectedGradientNorm is ‖θ − Proj(θ − η∇f(θ))‖/η with η = 1, the stationarity measure
// of a constrained problem; it is ‖∇f(θ)‖ at an interior point.
func projectedGradientNorm(obj *reference.Objective, theta []float64, radius float64) float64 {
	g := make([]float64, len(theta))
	obj.Gradient(g, theta)
	step := make([]float64, len(theta))
	for i := range step {
		step[i] = theta[i] - g[i]
	}
	reference.ProjectBall(step, radius)
	return reference.Distance(theta, step)
}

// ProjectedGradientNorm exposes the stationarity measure used by Minimize.
func ProjectedGradientNorm(obj *reference.Objective, theta []float64, radius float64) float64 {
	return projectedGradientNorm(obj, theta, radius)
}

type solver struct {
	obj      *reference.Objective
	opt      Options
	g, s     []float64 // gradient and step
	r, p, hp []float64 // conjugate-gradient residual, direction and H·direction
	trial    []float64
	steps    int
	hessVecs int
}

func newSolver(obj *reference.Objective, opt Options) *solver {
	d := obj.Dim()
	buf := make([]float64, 6*d)
	return &solver{obj: obj, opt: opt, g: buf[:d], s: buf[d : 2*d], r: buf[2*d : 3*d], p: buf[3*d : 4*d], hp: buf[4*d : 5*d], trial: buf[5*d:]}
}

// gradNorm is ‖∇f(θ) + μθ‖, leaving the gradient in s.g.
func (s *solver) gradNorm(theta []float64, mu float64) float64 {
	s.obj.Gradient(s.g, theta)
	if mu != 0 {
		floats.AddScaled(s.g, mu, theta)
	}
	return reference.Norm(s.g)
}

func (s *solver) value(theta []float64, mu float64) float64 {
	v := s.obj.Value(theta)
	if mu != 0 {
		n := reference.Norm(theta)
		v += mu / 2 * n * n
	}
	return v
}

// Trust-region constants (Nocedal & Wright, Algorithm 4.1, with liblinear's choices): a
// step is taken when it achieves more than acceptRatio of the decrease its quadratic
// model predicts; the region shrinks to shrinkFactor of the step below poorRatio and
// doubles when a step at its edge achieves more than goodRatio.
const (
	acceptRatio  = 1e-4
	poorRatio    = 0.25
	goodRatio    = 0.75
	shrinkFactor = 0.25
)

// solve minimises F = f + (μ/2)‖θ‖² from the given start, in place, until ‖∇F‖ ≤ target
// or the method stops making progress (rounding); the caller checks the final residual. By
// strong convexity the solution is then within target/(λ+μ) of the exact minimiser of F,
// so inner solves of the secular search aim at tol·(λ+μ)/10.
//
// Each outer step fixes the curvature at θ and runs Steihaug's truncated conjugate
// gradients on the quadratic model inside the trust region, stopping at a relative
// residual of min(0.1, √‖∇F‖) (superlinear convergence near the optimum), at the region's
// edge, or on a direction of no curvature (a singular Hessian when λ = μ = 0).
func (s *solver) solve(theta []float64, mu float64) {
	tol := s.opt.Tolerance / 10
	if mu > 0 {
		tol = math.Min(tol, s.opt.Tolerance*(s.obj.Loss().Regularization()+mu)/10)
	}
	radius := math.Inf(1) // trust region: the first step is the Newton–CG step itself
	stalls := 0
	gn := s.gradNorm(theta, mu)
	f0 := s.value(theta, mu)
	for range s.opt.MaxIterations {
		if gn <= tol {
			return
		}
		s.steps++
		h := s.obj.CurvatureAt(theta)
		cgTol := math.Max(math.Min(0.1, math.Sqrt(gn))*gn, tol/4)
		boundary := s.steihaug(h, mu, radius, cgTol)
		step := reference.Norm(s.s)
		if step == 0 {
			return // no direction left within rounding: Minimize judges the residual
		}
		// predicted decrease −(gᵀs + ½sᵀHs); with the CG residual r = −g − Hs that is
		// −½(gᵀs − rᵀs), which needs no further product
		pred := -0.5 * (floats.Dot(s.g, s.s) - floats.Dot(s.r, s.s))
		copy(s.trial, theta)
		floats.Add(s.trial, s.s)
		ft := s.value(s.trial, mu)
		if pred <= 1e-12*(1+math.Abs(f0)) {
			// Below the rounding error of F, the ratio test compares noise: judge the step
			// by the gradient norm instead.
			gt := s.gradNorm(s.trial, mu)
			if gt < gn {
				copy(theta, s.trial)
				gn, f0 = gt, ft
				continue
			}
			if stalls++; stalls >= 3 {
				s.gradNorm(theta, mu)
				return // rounding floor reached; Minimize judges the residual
			}
			radius = shrinkFactor * step
			s.gradNorm(theta, mu)
			continue
		}
		rho := (f0 - ft) / pred
		switch {
		case rho < poorRatio:
			radius = shrinkFactor * step
		case rho > goodRatio && boundary:
			radius = 2 * radius
		case math.IsInf(radius, 1):
			radius = math.Max(step, 1e-300) // from now on the region follows the steps
		}
		if rho > acceptRatio {
			copy(theta, s.trial)
			f0 = ft
			gn = s.gradNorm(theta, mu)
		}
		if radius < 1e-14*(1+reference.Norm(theta)) {
			return // the region collapsed: no step makes progress; Minimize judges the residual
		}
	}
	// the budget is spent; Minimize judges the residual
}

// steihaug approximately minimises the model gᵀs + ½sᵀ(H + μI)s over ‖s‖ ≤ radius by
// conjugate gradients from s = 0, leaving the step in s.s and the model's residual
// −g − (H + μI)s in s.r. It reports whether the step ends on the region's edge.
func (s *solver) steihaug(h reference.Curvature, mu, radius, cgTol float64) bool {
	clear(s.s)
	for i, g := range s.g {
		s.r[i] = -g
	}
	copy(s.p, s.r)
	rr := floats.Dot(s.r, s.r)
	maxCG := min(2*len(s.s)+10, maxCGSteps)
	for range maxCG {
		if math.Sqrt(rr) <= cgTol {
			return false
		}
		h.Apply(s.hp, s.p, mu)
		s.hessVecs++
		pHp := floats.Dot(s.p, s.hp)
		if pHp <= 1e-300 {
			// no curvature along p: the model decreases without bound that way, so go to the
			// region's edge (or, with no region yet, stop at the step so far, or take the
			// gradient step if there is none)
			if math.IsInf(radius, 1) {
				if floats.Norm(s.s, 2) == 0 {
					floats.AddScaled(s.s, 1, s.r)
				}
				return false
			}
			tau := toBoundary(s.s, s.p, radius)
			floats.AddScaled(s.s, tau, s.p)
			floats.AddScaled(s.r, -tau, s.hp)
			return true
		}
		alpha := rr / pHp
		if !math.IsInf(radius, 1) {
			copy(s.trial, s.s)
			floats.AddScaled(s.trial, alpha, s.p)
			if floats.Norm(s.trial, 2) >= radius {
				tau := toBoundary(s.s, s.p, radius)
				floats.AddScaled(s.s, tau, s.p)
				floats.AddScaled(s.r, -tau, s.hp)
				return true
			}
		}
		floats.AddScaled(s.s, alpha, s.p)
		floats.AddScaled(s.r, -alpha, s.hp)
		next := floats.Dot(s.r, s.r)
		beta := next / rr
		rr = next
		for i := range s.p {
			s.p[i] = s.r[i] + beta*s.p[i]
		}
	}
	return false
}

// maxCGSteps bounds the conjugate-gradient steps of one trust-region step; in exact
// arithmetic d steps solve the model, and rounding takes a few more.
const maxCGSteps = 5000

// toBoundary is the τ ≥ 0 with ‖s + τp‖ = radius (the positive root of a quadratic,
// computed in the form that does not cancel).
func toBoundary(s, p []float64, radius float64) float64 {
	sp, pp, ss := floats.Dot(s, p), floats.Dot(p, p), floats.Dot(s, s)
	disc := math.Sqrt(math.Max(0, sp*sp+pp*(radius*radius-ss)))
	if sp >= 0 {
		return (radius*radius - ss) / (sp + disc)
	}
	return (disc - sp) / pp
}
