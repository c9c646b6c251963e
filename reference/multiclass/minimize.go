package multiclass

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// An Objective is the summed loss of a model over some rows plus a linear term,
//
//	F(w) = Σ_{i∈rows} ℓ(w; x_i, y_i) + bᵀw,
//
// with its gradient and Hessian–vector product. The linear term is Guo et al.'s loss
// perturbation (certified removal trains on F with a random b); nil means none. Softmax
// objectives gather their rows into one block and evaluate through a Batch; other models
// go example by example.
type Objective struct {
	model  Model
	data   *Data
	rows   []int
	linear []float64
	// Softmax only: the rows as one block, labels, and the fused evaluator.
	block blas64.General
	y     []int
	batch *Batch
	tmp   []float64
}

// NewObjective makes F over rows of data (every row when rows is nil; rows are copied).
func NewObjective(m Model, data *Data, rows []int, linear []float64) (*Objective, error) {
	if rows == nil {
		rows = make([]int, data.Len())
		for i := range rows {
			rows[i] = i
		}
	}
	for _, i := range rows {
		if i < 0 || i >= data.Len() {
			return nil, fmt.Errorf("multiclass objective: row %d is not in the data (%d rows)", i, data.Len())
		}
	}
	if linear != nil && len(linear) != m.Dim() {
		return nil, fmt.Errorf("multiclass objective: the linear term has %d entries, the model %d parameters", len(linear), m.Dim())
	}
	o := &Objective{model: m, data: data, rows: slices.Clone(rows), linear: linear, tmp: make([]float64, m.Dim())}
	if sm, ok := m.(Softmax); ok && len(rows) > 0 {
		p := sm.P
		x := make([]float64, len(rows)*p)
		o.y = make([]int, len(rows))
		for k, i := range rows {
			copy(x[k*p:], data.Row(i))
			o.y[k] = data.Y[i]
		}
		o.block = blas64.General{Rows: len(rows), Cols: p, Stride: p, Data: x}
		o.batch = sm.NewBatch(len(rows))
	}
	return o, nil
}

// Len is the number of rows F sums over.
func (o *Objective) Len() int { return len(o.rows) }

// Rows are the rows F sums over (a copy).
func (o *Objective) Rows() []int { return slices.Clone(o.rows) }

// Gradient sets dst = ∇F(w) and returns F(w).
func (o *Objective) Gradient(dst, w []float64) float64 {
	n := float64(len(o.rows))
	var f float64
	switch {
	case len(o.rows) == 0:
		clear(dst)
	case o.batch != nil:
		f = n * o.batch.Gradient(dst, w, o.block, o.y)
		floats.Scale(n, dst)
	default:
		clear(dst)
		for _, i := range o.rows {
			x, y := o.data.Row(i), o.data.Y[i]
			f += o.model.Loss(w, x, y)
			o.model.Gradient(o.tmp, w, x, y)
			floats.Add(dst, o.tmp)
		}
	}
	if o.linear != nil {
		f += floats.Dot(o.linear, w)
		floats.Add(dst, o.linear)
	}
	return f
}

// Value is F(w).
func (o *Objective) Value(w []float64) float64 {
	f := 0.0
	for _, i := range o.rows {
		f += o.model.Loss(w, o.data.Row(i), o.data.Y[i])
	}
	if o.linear != nil {
		f += floats.Dot(o.linear, w)
	}
	return f
}

// HVP sets dst = ∇²F(w)·v (the linear term has no curvature).
func (o *Objective) HVP(dst, w, v []float64) {
	switch {
	case len(o.rows) == 0:
		clear(dst)
	case o.batch != nil:
		o.batch.HVP(dst, w, o.block, v)
		floats.Scale(float64(len(o.rows)), dst)
	default:
		clear(dst)
		for _, i := range o.rows {
			o.model.HVP(o.tmp, w, o.data.Row(i), o.data.Y[i], v)
			floats.Add(dst, o.tmp)
		}
	}
}

// ErrNegativeCurvature is returned by ConjugateGradient (and Solve) when the operator is
// not positive definite along the direction it reached (a non-convex model's Hessian).
var ErrNegativeCurvature = errors.New("the Hessian is not positive definite")

// Solve returns x with ‖∇²F(w)·x − rhs‖ ≤ relTol·‖rhs‖ by conjugate gradients on
// Hessian–vector products (never a d × d matrix), and how many products it took. It
// needs ∇²F(w) positive definite, as for the strongly convex Softmax with λ > 0.
func (o *Objective) Solve(ctx context.Context, w, rhs []float64, relTol float64) (x []float64, products int, err error) {
	return ConjugateGradient(ctx, func(dst, v []float64) { o.HVP(dst, w, v) }, rhs, relTol, 0)
}

// ConjugateGradient solves A·x = rhs for a symmetric positive definite A given by its
// product apply(dst, v) = A·v, to ‖A·x − rhs‖ ≤ relTol·‖rhs‖, from x = 0. It stops with
// ErrNegativeCurvature where pᵀAp ≤ 0, and with an error after maxProducts products
// (0: 10·d + 100) — or, with maxProducts set, returns the iterate it reached (a truncated
// solve, for methods that need only an approximate step).
func ConjugateGradient(ctx context.Context, apply func(dst, v []float64), rhs []float64, relTol float64, maxProducts int) (x []float64, products int, err error) {
	d := len(rhs)
	truncate := maxProducts > 0
	if !truncate {
		maxProducts = 10*d + 100
	}
	x = make([]float64, d)
	r := slices.Clone(rhs) // r = rhs − A x with x = 0
	p := slices.Clone(r)
	ap := make([]float64, d)
	rr := floats.Dot(r, r)
	target := relTol * relTol * rr
	for rr > target {
		if products%16 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, products, err
			}
		}
		if products >= maxProducts {
			if truncate {
				return x, products, nil
			}
			return nil, products, fmt.Errorf("conjugate gradients did not reach %.2g relative in %d products (residual %.3g)", relTol, products, math.Sqrt(rr/floats.Dot(rhs, rhs)))
		}
		apply(ap, p)
		products++
		pap := floats.Dot(p, ap)
		if !(pap > 0) {
			return nil, products, fmt.Errorf("conjugate gradients: %w (pᵀAp = %.3g)", ErrNegativeCurvature, pap)
		}
		alpha := rr / pap
		floats.AddScaled(x, alpha, p)
		floats.AddScaled(r, -alpha, ap)
		next := floats.Dot(r, r)
		floats.AddScaledTo(p, r, next/rr, p)
		rr = next
	}
	return x, products, nil
}

// MinimizeOptions configure Minimize.
type MinimizeOptions struct {
	// Tol stops at ‖∇F(w)‖ ≤ Tol. 0 means 1e-10·max(1, rows): a mean gradient of 1e-10.
	Tol float64
	// MaxNewton caps the Newton steps; 0 means 100.
	MaxNewton int
}

// MinimizeResult is the minimiser and how closely it was reached.
type MinimizeResult struct {
	W []float64
	// Residual is ‖∇F(W)‖ measured at the end: ‖W − w*‖ ≤ Residual/(λ·rows) for a
	// λ-strongly convex F.
	Residual     float64
	Newton, HVPs int
}

// Minimize finds w* = argmin F for a strongly convex objective (Softmax with λ > 0,
// LeastSquares) by a truncated Newton method: each step solves ∇²F·p = −∇F by conjugate
// gradients to a relative tolerance that tightens as ∇F shrinks, then backtracks until F
// decreases enough (Armijo). Convergence is quadratic near w*, so the default tolerance
// costs a handful of steps. It starts from w0 (zero when nil).
func Minimize(ctx context.Context, o *Objective, w0 []float64, opt MinimizeOptions) (MinimizeResult, error) {
	d := o.model.Dim()
	if o.Len() == 0 {
		return MinimizeResult{}, errors.New("multiclass minimize: no rows to minimise over")
	}
	if opt.Tol <= 0 {
		opt.Tol = 1e-10 * math.Max(1, float64(o.Len()))
	}
	if opt.MaxNewton <= 0 {
		opt.MaxNewton = 100
	}
	w := make([]float64, d)
	if w0 != nil {
		if len(w0) != d {
			return MinimizeResult{}, fmt.Errorf("multiclass minimize: w0 has %d entries, the model %d parameters", len(w0), d)
		}
		copy(w, w0)
	}
	g, next, gNext := make([]float64, d), make([]float64, d), make([]float64, d)
	res := MinimizeResult{}
	f := o.Gradient(g, w)
	for {
		gn := floats.Norm(g, 2)
		switch {
		case gn <= opt.Tol:
			res.W, res.Residual = w, gn
			return res, nil
		case math.IsNaN(gn) || math.IsInf(gn, 0):
			return res, fmt.Errorf("multiclass minimize: the gradient norm is %v after %d Newton steps", gn, res.Newton)
		case res.Newton == opt.MaxNewton:
			return res, fmt.Errorf("multiclass minimize: ‖∇F‖ = %.3g after %d Newton steps; want %.3g", gn, res.Newton, opt.Tol)
		}
		// forcing term min(½, √‖g‖/scale): loose far away, tight near w*, for quadratic steps
		rel := math.Min(0.5, math.Sqrt(gn/math.Max(1, float64(o.Len()))))
		rhs := slices.Clone(g)
		floats.Scale(-1, rhs)
		p, products, err := o.Solve(ctx, w, rhs, rel)
		res.HVPs += products
		if err != nil {
			return res, fmt.Errorf("multiclass minimize: Newton step %d: %w", res.Newton+1, err)
		}
		slope := floats.Dot(g, p)
		t, accepted := 1.0, false
		for t >= 1e-12 {
			floats.AddScaledTo(next, w, t, p)
			fn := o.Value(next)
			if fn <= f+1e-4*t*slope {
				accepted = true
				break
			}
			// Near w* the decrease (about ‖∇F‖²/(λn)) falls below F's rounding; there the
			// gradient norm is the merit function.
			if math.Abs(fn-f) <= 1e-12*(1+math.Abs(f)) {
				o.Gradient(gNext, next)
				if floats.Norm(gNext, 2) < gn {
					accepted = true
					break
				}
			}
			t /= 2
		}
		if !accepted {
			res.W, res.Residual = w, gn
			return res, fmt.Errorf("multiclass minimize: the line search stalled at ‖∇F‖ = %.3g; want %.3g", gn, opt.Tol)
		}
		w, next = next, w
		res.Newton++
		f = o.Gradient(g, w)
	}
}
