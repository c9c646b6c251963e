package olu

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
)

// MinimizeOptions control Minimize.
type MinimizeOptions struct {
	// Smoothness is a bound β on the Hessians of the mean objective (the step is 1/β).
	Smoothness float64
	// Tol is the target norm of the gradient mapping β‖x − Π_K(x − ∇F(x)/β)‖ (default
	// 1e-10 × (1 + the first gradient's norm)).
	Tol float64
	// MaxIter caps the iterations (default 100 000).
	MaxIter int
}

// Minimize returns argmin over the domain of the mean of the given costs (nil entries
// skipped), by accelerated projected gradient descent (FISTA with gradient restarts) from
// start, and the final gradient-mapping norm: at a minimiser it is zero, and for a
// μ-strongly convex mean the distance to the minimiser is at most twice it over μ.
func Minimize(ctx context.Context, costs []Cost, dom Domain, start []float64, opts MinimizeOptions) ([]float64, float64, error) {
	var fs []Cost
	for _, f := range costs {
		if f != nil {
			fs = append(fs, f)
		}
	}
	if len(fs) == 0 {
		return nil, 0, errors.New("olu: minimise: no cost left")
	}
	if !(opts.Smoothness > 0) || math.IsInf(opts.Smoothness, 0) {
		return nil, 0, fmt.Errorf("olu: minimise: smoothness %v, want a finite positive bound", opts.Smoothness)
	}
	if opts.MaxIter == 0 {
		opts.MaxIter = 100000
	}
	d := len(start)
	g1 := make([]float64, d)
	grad := func(dst, x []float64) {
		clear(dst)
		g := g1
		for _, f := range fs {
			f.Gradient(g, x)
			for j, v := range g {
				dst[j] += v
			}
		}
		for j := range dst {
			dst[j] /= float64(len(fs))
		}
	}
	step := 1 / opts.Smoothness
	x := slices.Clone(start)
	dom.Project(x)
	y, prev, g, next := slices.Clone(x), slices.Clone(x), make([]float64, d), make([]float64, d)
	mapping := func(at []float64) float64 { // β‖at − Π(at − ∇F(at)/β)‖
		grad(g, at)
		for j := range next {
			next[j] = at[j] - step*g[j]
		}
		dom.Project(next)
		s := 0.0
		for j := range next {
			e := at[j] - next[j]
			s += e * e
		}
		return math.Sqrt(s) / step
	}
	tol := opts.Tol
	if tol == 0 {
		tol = 1e-10 * (1 + mapping(x))
	}
	theta := 1.0
	for it := 0; it < opts.MaxIter; it++ {
		if it%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		mapping(y) // next = Π(y − ∇F(y)/β)
		copy(prev, x)
		copy(x, next)
		// restart when the momentum points uphill (O'Donoghue–Candès)
		up := 0.0
		for j := range x {
			up += (y[j] - x[j]) * (x[j] - prev[j])
		}
		if up > 0 {
			theta = 1
		}
		thetaNext := (1 + math.Sqrt(1+4*theta*theta)) / 2
		for j := range y {
			y[j] = x[j] + (theta-1)/thetaNext*(x[j]-prev[j])
		}
		theta = thetaNext
		if it%16 == 15 {
			if m := mapping(x); m <= tol {
				return x, m, nil
			}
		}
	}
	m := mapping(x)
	if m > tol {
		return x, m, fmt.Errorf("olu: minimise: gradient mapping %.3g after %d iterations, target %.3g", m, opts.MaxIter, tol)
	}
	return x, m, nil
}

// Comparators are the regret's comparators z_i*, i = 0..k (spec olu §1.7): the minimiser
// over the domain of every function of the horizon but the first i deleted ones. Each
// starts from the previous one.
func Comparators(ctx context.Context, stream []Cost, sched Schedule, dom Domain, start []float64, opts MinimizeOptions) ([][]float64, error) {
	out := make([][]float64, 0, len(sched)+1)
	from := start
	for i := 0; i <= len(sched); i++ {
		left := Without(stream, sched, i)
		if !slices.ContainsFunc(left, func(f Cost) bool { return f != nil }) {
			// every function deleted: any point minimises the empty sum, and the block this
			// comparator serves is empty (its request came at the last round)
			out = append(out, slices.Clone(from))
			continue
		}
		z, _, err := Minimize(ctx, left, dom, from, opts)
		if err != nil {
			return nil, fmt.Errorf("olu: comparator %d: %w", i, err)
		}
		out = append(out, z)
		from = z
	}
	return out, nil
}

// Regret is Eq. 5's OLU regret of the losses a learner played (played[t−1] = f_t(z_t),
// every function of the stream present): Σ_{i=0}^{k} Σ_{t=τ_i+1}^{τ_{i+1}} f_t(z_t) − f_t(z_i*),
// τ_0 = 0, τ_{k+1} = T. A deleted function still counts in the round it arrived.
func Regret(stream []Cost, sched Schedule, played []float64, comps [][]float64) (float64, error) {
	T := len(stream)
	if len(played) != T || len(comps) != len(sched)+1 {
		return 0, fmt.Errorf("olu: regret: %d losses and %d comparators for %d rounds and %d requests", len(played), len(comps), T, len(sched))
	}
	total := 0.0
	for i := 0; i <= len(sched); i++ {
		lo, hi := 0, T
		if i > 0 {
			lo = sched[i-1].Tau
		}
		if i < len(sched) {
			hi = sched[i].Tau
		}
		for t := lo + 1; t <= hi; t++ {
			f := stream[t-1]
			if f == nil {
				return 0, fmt.Errorf("olu: regret: round %d has no function", t)
			}
			total += played[t-1] - f.Value(comps[i])
		}
	}
	return total, nil
}
