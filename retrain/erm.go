package retrain

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// Options tune the exact minimiser.
type Options struct {
	// Tolerance on the stationarity residual: ‖∇f‖ for an interior minimiser, the norm of
	// the projected-gradient map for one on the sphere. Default 1e-10.
	Tolerance float64
	// MaxIterations bounds Newton steps per solve. Default 200.
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
	// NewtonSteps counts Newton iterations over all inner solves.
	NewtonSteps int
}

// ErrNotConverged is wrapped when the solver stops above the tolerance.
var ErrNotConverged = errors.New("exact minimiser did not reach the tolerance")

// Minimize returns θ* = argmin_{‖θ‖ ≤ R} f_D(θ) for an L2-regularised generalised linear
// loss, to the tolerance of opt (radius +Inf: unconstrained).
//
// Ridge without clipping is solved in closed form by a Cholesky factorisation of
// XᵀX/n + λI; other losses by Newton's method with the exact Hessian and a backtracking
// line search. When the unconstrained minimiser lies outside the ball, the constrained one
// is on the sphere and satisfies the KKT condition ∇f(θ) + μθ = 0, ‖θ‖ = R: it is the
// unconstrained minimiser of f + (μ/2)‖θ‖² for the μ at which that minimiser has norm R.
// Its norm decreases in μ, so μ is found by a safeguarded secant search on
// 1/‖θ(μ)‖ − 1/R (the trust-region "secular equation"), each inner solve warm-started.
// This is the documented alternative to projected Newton that the oracle uses.
//
// Without regularisation (λ = 0) a rank-deficient design — fewer rows than features,
// collinear columns — has a set of minimisers θ* + null(X), all of one value. Minimize then
// returns the one of least norm: it solves in an orthonormal basis of range(Xᵀ), where the
// problem has a unique minimiser, and maps back. A generalised linear loss depends on θ
// only through Xθ and on each row only through xᵀθ and ‖x‖, so nothing is lost, and the
// ball maps onto itself. Directions along which X has a singular value below
// NullSingularRatio times its largest count as null; if the gradient along them keeps the
// result from stationarity (they were not quite null), the full problem is solved instead.
func Minimize(obj *reference.Objective, radius float64, opt Options) (Result, error) {
	opt = opt.withDefaults()
	if d := obj.Dim(); d > MaxDenseDim {
		// refuse before allocating: a 60,000-feature text set would ask for 29 GB a matrix
		return Result{}, fmt.Errorf("exact ERM: dimension %d: the dense Newton solver holds several d × d matrices (%.3g GB each) and stops at dimension %d",
			d, float64(d)*float64(d)*8/1e9, MaxDenseDim)
	}
	if obj.Loss().Regularization() == 0 {
		if basis, ok := rangeBasis(obj.Data()); ok {
			res, err := minimizeOnRange(obj, basis, radius, opt)
			if !errors.Is(err, ErrNotConverged) {
				return res, err
			}
			// A direction counted null was not quite (features on a scale of 1e-10, say):
			// the gradient along it keeps the reduced solution from being stationary. Solve
			// the full problem; the minimiser is then not certified to be of least norm.
			full, fullErr := minimize(obj, radius, opt)
			if fullErr == nil || (errors.Is(fullErr, ErrNotConverged) && full.Residual < res.Residual) {
				return full, fullErr
			}
			return res, err
		}
	}
	return minimize(obj, radius, opt)
}

// MaxDenseDim is the largest dimension Minimize solves: its Newton steps and its
// minimum-norm basis keep d × d matrices (288 MB each at 6,000), so memory grows as d².
const MaxDenseDim = 6000

// NullSingularRatio is the relative size below which a singular value of the design
// counts as zero for Minimize's minimum-norm rule: the eigenvalues of XᵀX it is read from
// carry a rounding error of about 1e-16 of the largest, so σ² ≤ 1e-12·σ²_max is null.
const NullSingularRatio = 1e-6

// rangeBasis returns an orthonormal basis of range(Xᵀ) (as the columns of a d × r matrix)
// when X is rank-deficient, and ok = false when it has full column rank.
func rangeBasis(ds *reference.Dataset) (*mat.Dense, bool) {
	n, d := ds.Dims()
	if n == 0 || d == 0 {
		return nil, false
	}
	var gram mat.SymDense
	gram.SymOuterK(1, ds.Features().T())
	var eig mat.EigenSym
	if !eig.Factorize(&gram, true) {
		return nil, false // leave it to the full solver, which reports what fails
	}
	vals := eig.Values(nil) // ascending
	top := vals[len(vals)-1]
	cut := NullSingularRatio * NullSingularRatio * top
	first := 0
	for first < d && vals[first] <= cut {
		first++
	}
	if first == 0 {
		return nil, false
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	basis := mat.NewDense(d, max(d-first, 1), nil)
	if first < d {
		basis.Copy(vecs.Slice(0, d, first, d))
	} else {
		basis = mat.NewDense(d, 1, nil) // X = 0: f is constant and θ = 0 is the least-norm minimiser
	}
	return basis, true
}

// minimizeOnRange minimises over θ = Qβ, Q an orthonormal basis of range(Xᵀ), and reports
// the result and its residual in the original coordinates.
func minimizeOnRange(obj *reference.Objective, basis *mat.Dense, radius float64, opt Options) (Result, error) {
	ds := obj.Data()
	var xq mat.Dense
	xq.Mul(ds.Features(), basis)
	reduced, err := reference.NewDataset(ds.IDs(), &xq, ds.Labels())
	if err != nil {
		return Result{}, fmt.Errorf("minimise %s on range(Xᵀ): %w", obj.Loss().Name(), err)
	}
	// Aim a decade below the tolerance: mapping back adds rounding, and the residual that
	// counts is the one recomputed below in the original coordinates.
	innerOpt := opt
	innerOpt.Tolerance /= 10
	inner, err := minimize(obj.Loss().Objective(reduced), radius, innerOpt)
	if err != nil && !errors.Is(err, ErrNotConverged) {
		return Result{}, err
	}
	theta := mat.NewVecDense(obj.Dim(), nil)
	theta.MulVec(basis, mat.NewVecDense(len(inner.Theta), inner.Theta))
	res := inner
	res.Theta = theta.RawVector().Data
	if res.OnBoundary {
		res.Residual = projectedGradientNorm(obj, res.Theta, radius)
	} else {
		g := make([]float64, obj.Dim())
		obj.Gradient(g, res.Theta)
		res.Residual = reference.Norm(g)
	}
	return newSolver(obj, opt).finish(res)
}

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
		if err := s.solve(loTheta, 0); err != nil {
			return Result{}, err
		}
		interior = reference.Norm(loTheta) <= radius
		if !interior {
			hiTheta = slices.Clone(loTheta)
			if err := s.solve(hiTheta, hi); err != nil {
				return Result{}, err
			}
		}
	} else {
		// λ = 0: the unconstrained problem may have no minimiser (separable classes), and
		// Newton would then walk off towards infinity for a hundred steps. Bracket μ from
		// above instead, lowering it a decade at a time from the point known to be inside.
		hiTheta = make([]float64, d)
		if err := s.solve(hiTheta, hi); err != nil {
			return Result{}, err
		}
		cur := slices.Clone(hiTheta)
		floor := hi * 1e-12
		for mu := hi / 10; mu >= floor; mu /= 10 {
			if err := s.solve(cur, mu); err != nil {
				return Result{}, err
			}
			if reference.Norm(cur) > radius {
				lo, loTheta = mu, cur
				break
			}
			hi = mu
			copy(hiTheta, cur)
		}
		if loTheta == nil { // inside the ball down to μ ≈ 0: look at μ = 0 itself
			if err := s.solve(cur, 0); err != nil {
				return Result{}, err
			}
			lo, loTheta = 0, cur
			interior = reference.Norm(cur) <= radius
		}
	}
	if interior {
		res := Result{Theta: loTheta, NewtonSteps: s.steps}
		res.Residual = s.gradNorm(loTheta, 0)
		return s.finish(res)
	}
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
		if err := s.solve(cur, mu); err != nil {
			return Result{}, err
		}
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
	res := Result{Theta: cur, OnBoundary: true, Multiplier: mu, NewtonSteps: s.steps}
	res.Residual = projectedGradientNorm(obj, cur, radius)
	return s.finish(res)
}

func (s *solver) finish(res Result) (Result, error) {
	if res.Residual > s.opt.Tolerance {
		return res, fmt.Errorf("minimise %s on %d rows: residual %.3g > %.3g after %d Newton steps: %w",
			s.obj.Loss().Name(), s.obj.Data().Len(), res.Residual, s.opt.Tolerance, res.NewtonSteps, ErrNotConverged)
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
	obj   *reference.Objective
	opt   Options
	ridge bool
	h, hd *mat.SymDense // Hessian, and its damped copy for the factorisation
	g, p  []float64
	trial []float64
	steps int
}

func newSolver(obj *reference.Objective, opt Options) *solver {
	d := obj.Dim()
	r, isRidge := obj.Loss().(reference.Ridge)
	return &solver{obj: obj, opt: opt, ridge: isRidge && r.Clip <= 0, h: mat.NewSymDense(d, nil), hd: mat.NewSymDense(d, nil),
		g: make([]float64, d), p: make([]float64, d), trial: make([]float64, d)}
}

// maxNewtonCondition is the largest condition number of a damped Hessian whose Newton
// system is solved as it is: past it a solve loses more than 4 of float64's 16 digits.
const maxNewtonCondition = 1e12

// hScale is the largest diagonal entry of the Hessian, the scale of the damping term.
func (s *solver) hScale() float64 {
	m := 0.0
	for i := range s.h.SymmetricDim() {
		m = math.Max(m, math.Abs(s.h.At(i, i)))
	}
	return m
}

// gradNorm is ‖∇f(θ) + μθ‖, leaving the gradient in s.g.
func (s *solver) gradNorm(theta []float64, mu float64) float64 {
	s.obj.Gradient(s.g, theta)
	for i := range s.g {
		s.g[i] += mu * theta[i]
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

// solve minimises F = f + (μ/2)‖θ‖² from the given start, in place, until ‖∇F‖ ≤ target
// or Newton stops making progress (rounding); the caller checks the final residual. By
// strong convexity the solution is then within target/(λ+μ) of the exact minimiser of F,
// so inner solves of the secular search aim at tol·(λ+μ)/10.
func (s *solver) solve(theta []float64, mu float64) error {
	tol := s.opt.Tolerance / 10
	if mu > 0 {
		tol = math.Min(tol, s.opt.Tolerance*(s.obj.Loss().Regularization()+mu)/10)
	}
	stalls := 0
	for range s.opt.MaxIterations {
		gn := s.gradNorm(theta, mu)
		if gn <= tol {
			return nil
		}
		s.obj.Hessian(s.h, theta)
		damp := mu
		var chol mat.Cholesky
		for {
			s.hd.CopySym(s.h)
			for i := range s.hd.SymmetricDim() {
				s.hd.SetSym(i, i, s.hd.At(i, i)+damp)
			}
			// A rank-deficient convex problem (λ = 0 with n < d, collinear columns) has a
			// singular Hessian; Cholesky may still succeed on rounding noise and leave a
			// system too ill-conditioned to solve. Either way, add a Levenberg damping term.
			if chol.Factorize(s.hd) && chol.Cond() <= maxNewtonCondition {
				break
			}
			damp = math.Max(2*damp, 1e-12*(1+s.hScale())+mu)
			if damp > 1e12 {
				return fmt.Errorf("minimise %s: Hessian is not positive definite", s.obj.Loss().Name())
			}
		}
		s.steps++
		gv := mat.NewVecDense(len(s.g), s.g)
		pv := mat.NewVecDense(len(s.p), s.p)
		if err := chol.SolveVecTo(pv, gv); err != nil {
			return fmt.Errorf("minimise %s: Newton system: %w", s.obj.Loss().Name(), err)
		}
		if s.ridge && damp == mu {
			// quadratic objective: the Newton step is exact
			for i := range theta {
				theta[i] -= s.p[i]
			}
			continue
		}
		// Backtracking line search on F along −p. Near the optimum the predicted decrease
		// falls below the rounding error of F, where Armijo's test compares noise; there the
		// full Newton step is taken and judged by the gradient norm instead.
		f0 := s.value(theta, mu)
		slope := -mat.Dot(gv, pv)
		if -slope <= 1e-12*(1+math.Abs(f0)) {
			for i := range theta {
				s.trial[i] = theta[i] - s.p[i]
			}
			if s.gradNorm(s.trial, mu) >= gn {
				stalls++
				if stalls >= 3 {
					return nil // rounding floor reached; Minimize judges the residual
				}
			}
			copy(theta, s.trial)
			continue
		}
		t := 1.0
		for {
			for i := range theta {
				s.trial[i] = theta[i] - t*s.p[i]
			}
			if f := s.value(s.trial, mu); f <= f0+1e-4*t*slope || t < 1e-10 {
				break
			}
			t /= 2
		}
		if t < 1e-10 {
			return fmt.Errorf("minimise %s: line search stalled at ‖∇‖=%.3g: %w", s.obj.Loss().Name(), gn, ErrNotConverged)
		}
		copy(theta, s.trial)
	}
	return nil // Minimize judges the residual
}
