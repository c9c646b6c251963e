package olu

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Config is online projected gradient descent with passive unlearning (Algorithm 1): the
// public start, domain and step sizes, the constants the noise is sized from, and the
// privacy target.
type Config struct {
	X0     []float64 // the public initial point, in the domain
	Domain Domain
	Steps  Steps
	// Replay, when set, is used verbatim as η_1..η_T instead of Steps: a reference run of
	// an adaptive schedule must reuse the real run's step sizes, which the paper treats as
	// public (spec olu §2.1).
	Replay []float64
	// Lipschitz is the global gradient bound L on the domain: the sensitivity of round t's
	// step is Δ_t = η_t L, computed from public values only.
	Lipschitz float64
	// Mu and Beta bound the Hessians' spectrum of every cost (μ = 0 for merely convex
	// costs): the contraction the noise relies on.
	Mu, Beta float64
	// Epsilon and Omega are the target ε (the outputs' Rényi divergence at most αε at
	// every α > 1) and the budget split ω > 1 (the paper's 1.2).
	Epsilon, Omega float64
	Contraction    ContractionMode
	// Unprojected releases the noisy state as is, the literal Algorithm 1; by default the
	// noisy state is projected back into the domain (spec olu §2.3 [FIX]: the regret
	// proofs assume it and C3 needs it; it is post-processing).
	Unprojected bool
	// KeepStates keeps every state x_0..x_T in Run.States.
	KeepStates bool
}

// Validate checks the configuration for d-dimensional costs over T rounds.
func (c Config) Validate(d, T int) error {
	var errs []error
	if len(c.X0) != d {
		errs = append(errs, fmt.Errorf("olu: x₀ has %d coordinates, the costs %d", len(c.X0), d))
	} else if c.Domain == nil {
		errs = append(errs, errors.New("olu: no domain"))
	} else if !c.Domain.Contains(c.X0, 1e-12) {
		errs = append(errs, errors.New("olu: x₀ is outside the domain"))
	}
	if c.Replay != nil {
		if len(c.Replay) < T {
			errs = append(errs, fmt.Errorf("olu: %d replayed step sizes for %d rounds", len(c.Replay), T))
		}
	} else if err := c.Steps.Validate(); err != nil {
		errs = append(errs, err)
	}
	if !(c.Lipschitz >= 0) || math.IsInf(c.Lipschitz, 0) {
		errs = append(errs, fmt.Errorf("olu: L = %v, want a finite number ≥ 0", c.Lipschitz))
	}
	if !(c.Mu >= 0 && c.Beta >= c.Mu) || math.IsInf(c.Beta, 0) {
		errs = append(errs, fmt.Errorf("olu: μ = %v, β = %v: want 0 ≤ μ ≤ β < ∞", c.Mu, c.Beta))
	}
	if !(c.Epsilon > 0) {
		errs = append(errs, fmt.Errorf("olu: ε = %v, want > 0", c.Epsilon))
	}
	if !(c.Omega > 1) || math.IsInf(c.Omega, 0) {
		errs = append(errs, fmt.Errorf("olu: ω = %v, want a finite number > 1", c.Omega))
	}
	return errors.Join(errs...)
}

// Run is one pass over a stream.
type Run struct {
	Etas   []float64   // η_1..η_T as used (defined at ⊥ rounds too)
	Played []float64   // f_t(z_t), z_t = x_{t−1}, the learner's loss; NaN at ⊥ rounds
	States [][]float64 // x_0..x_T, when Config.KeepStates
	Final  []float64   // x_T
	Served []Served    // one per request, in order
	// Gradients counts gradient evaluations: the online steps' and the requests'.
	Gradients int64
	// Draws counts the standard normal draws.
	Draws int
}

// Served is what serving one request did.
type Served struct {
	Request
	Contraction float64   // Γ(u, τ) (passive) or the GD phases' (active)
	Shift       float64   // a_i, the distance the deletion can still move the state by
	Sigma       float64   // the noise's standard deviation
	Noise       []float64 // ξ_i
	Noisy       []float64 // the state with this round's noise added, before any projection
	Released    []float64 // x_τ once every request at τ is served
	Gradients   int64     // gradient evaluations spent serving it
}

// State is the learner's state as a request is served: its iterate and the clock of its
// step sizes.
type state struct {
	cfg   Config
	x     []float64
	etas  []float64
	p     float64 // the adaptive schedule's running sum of squared gradient norms
	clock int     // rounds since the start or the last restart
	grads int64
	draws int
	g     []float64
}

// serveFunc serves the requests idx (indices into the rounds online was given) at round
// t, changing st.x; it appends what it did to run.Served.
type serveFunc func(ctx context.Context, st *state, t int, idx []int, run *Run) error

// online runs projected OGD over the stream in the canonical convention: round t plays
// z_t = x_{t−1}, consumes f_t (a ⊥ round does not move), then serves the requests whose
// round (taus, one per request) is t.
func (c Config) online(ctx context.Context, stream []Cost, taus []int, serve serveFunc) (*Run, error) {
	T := len(stream)
	d := len(c.X0)
	if T == 0 {
		return nil, errors.New("olu: an empty stream")
	}
	if err := c.Validate(d, T); err != nil {
		return nil, err
	}
	for _, f := range stream {
		if f != nil && !sameDim(f, d) {
			return nil, fmt.Errorf("olu: a cost of another dimension than x₀'s %d", d)
		}
	}
	at := map[int][]int{}
	for i, t := range taus {
		at[t] = append(at[t], i)
	}
	st := &state{cfg: c, x: slices.Clone(c.X0), etas: make([]float64, T), g: make([]float64, d)}
	run := &Run{Etas: st.etas, Played: make([]float64, T)}
	if c.KeepStates {
		run.States = append(run.States, slices.Clone(st.x))
	}
	for t := 1; t <= T; t++ {
		if t%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		st.clock++
		f := stream[t-1]
		if f != nil {
			run.Played[t-1] = f.Value(st.x)
			f.Gradient(st.g, st.x)
			st.grads++
			st.p += dot(st.g, st.g)
		} else {
			run.Played[t-1] = math.NaN()
		}
		eta := c.Steps.At(st.clock, st.p)
		if c.Replay != nil {
			eta = c.Replay[t-1]
		}
		st.etas[t-1] = eta
		if f != nil && eta > 0 {
			for j, v := range st.g {
				st.x[j] -= eta * v
			}
			c.Domain.Project(st.x)
		}
		if idx := at[t]; len(idx) > 0 {
			if err := serve(ctx, st, t, idx, run); err != nil {
				return nil, err
			}
		}
		if c.KeepStates {
			run.States = append(run.States, slices.Clone(st.x))
		}
	}
	run.Final = slices.Clone(st.x)
	run.Gradients, run.Draws = st.grads, st.draws
	return run, nil
}

// addNoise draws ξ ~ N(0, σ²I) into the state, returning ξ.
func (st *state) addNoise(sigma float64, r *rand.Rand) []float64 {
	xi := make([]float64, len(st.x))
	for j := range xi {
		xi[j] = sigma * r.NormFloat64()
		st.x[j] += xi[j]
	}
	st.draws += len(xi)
	return xi
}

// release finishes a round's requests: the noisy state is kept, then projected unless the
// configuration releases it as is.
func (st *state) release(run *Run, from int) {
	noisy := slices.Clone(st.x)
	if !st.cfg.Unprojected {
		st.cfg.Domain.Project(st.x)
	}
	for k := from; k < len(run.Served); k++ {
		run.Served[k].Noisy = noisy
		run.Served[k].Released = slices.Clone(st.x)
	}
}

// Passive is Algorithm 1 in the canonical form of spec olu §2.3: online gradient descent
// unchanged, and at each request's round τ_i the noise N(0, σ_i²I) with
// σ_i = B(i, ω, ε)·Γ(u_i, τ_i)·η_{u_i}L. Serving a request reads no data and costs O(d);
// requests at one round add independent noises before a single projection. Its outputs
// after request i are within Rényi divergence αε of the same algorithm run on the stream
// without the deleted functions (Reference) when Γ is a valid contraction.
func Passive(ctx context.Context, c Config, stream []Cost, sched Schedule, r *rand.Rand) (*Run, error) {
	if err := sched.check(stream, true); err != nil {
		return nil, err
	}
	return c.online(ctx, stream, sched.Taus(), func(_ context.Context, st *state, t int, idx []int, run *Run) error {
		from := len(run.Served)
		for _, i := range idx {
			req := sched[i]
			gamma := Contraction(c.Contraction, st.etas, req.U, req.Tau, c.Mu, c.Beta)
			shift := gamma * st.etas[req.U-1] * c.Lipschitz
			if c.Contraction == PerStep {
				shift = math.Max(shift, roundingFloor(st.x))
			}
			sigma := NoiseMultiplier(i+1, c.Omega, c.Epsilon) * shift
			run.Served = append(run.Served, Served{Request: req, Contraction: gamma, Shift: shift, Sigma: sigma, Noise: st.addNoise(sigma, r)})
		}
		st.release(run, from)
		return nil
	})
}

// Reference is the object Definition 2 compares request i's outputs with: the same noisy
// algorithm run on the stream with the first i requests' functions replaced by ⊥, no
// deletions, and the same noise N(0, σ_j²I) at the same rounds τ_1..τ_i (sigmas, from the
// real run: they are public). With r seeded as the real run's was, the two runs share
// their noise draws — the coupling of spec olu §2.4.
func Reference(ctx context.Context, c Config, stream []Cost, sched Schedule, i int, sigmas []float64, r *rand.Rand) (*Run, error) {
	if i < 0 || i > len(sched) || len(sigmas) < i {
		return nil, fmt.Errorf("olu: reference for request %d of %d with %d noise scales", i, len(sched), len(sigmas))
	}
	if err := sched.check(stream, true); err != nil {
		return nil, err
	}
	return c.online(ctx, Without(stream, sched, i), sched[:i].Taus(), func(_ context.Context, st *state, t int, idx []int, run *Run) error {
		from := len(run.Served)
		for _, j := range idx {
			run.Served = append(run.Served, Served{Request: sched[j], Sigma: sigmas[j], Noise: st.addNoise(sigmas[j], r)})
		}
		st.release(run, from)
		return nil
	})
}

// sameDim reports whether f takes d-dimensional points, where its type tells.
func sameDim(f Cost, d int) bool {
	switch f := f.(type) {
	case Quadratic:
		return len(f.A) == d && len(f.C) == d
	case LeastSquares:
		return len(f.A) == d
	case Linear:
		return len(f.G) == d
	case Example:
		return len(f.X) == d
	}
	return true
}

// Sigmas lists the noise scales of a run's requests.
func (r *Run) Sigmas() []float64 {
	out := make([]float64, len(r.Served))
	for i, s := range r.Served {
		out[i] = s.Sigma
	}
	return out
}
