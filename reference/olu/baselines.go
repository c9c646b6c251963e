package olu

import (
	"context"
	"slices"
)

// Retrain is the retraining baseline (spec olu §2.8): at each request's round τ_i the
// state is recomputed by noiseless online gradient descent from x₀ over f_1..f_τ with the
// deleted functions replaced by ⊥ (step sizes by absolute round, the run's own η), and
// online descent goes on from there. Its outputs are those of the deterministic retrain,
// an (α, 0)-OLU; each request costs a gradient per function kept.
func Retrain(ctx context.Context, c Config, stream []Cost, sched Schedule) (*Run, error) {
	if err := sched.check(stream, true); err != nil {
		return nil, err
	}
	deleted := map[int]bool{}
	return c.online(ctx, stream, sched.Taus(), func(ctx context.Context, st *state, t int, idx []int, run *Run) error {
		for _, i := range idx {
			deleted[sched[i].U] = true
		}
		x := slices.Clone(c.X0)
		g := make([]float64, len(x))
		var grads int64
		for s := 1; s <= t; s++ {
			f := stream[s-1]
			if f == nil || deleted[s] {
				continue
			}
			f.Gradient(g, x)
			grads++
			if eta := st.etas[s-1]; eta > 0 {
				for j, v := range g {
					x[j] -= eta * v
				}
				c.Domain.Project(x)
			}
		}
		copy(st.x, x)
		st.grads += grads
		for k, i := range idx {
			sv := Served{Request: sched[i], Noisy: slices.Clone(x), Released: slices.Clone(x)}
			if k == 0 {
				sv.Gradients = grads
			}
			run.Served = append(run.Served, sv)
		}
		return ctx.Err()
	})
}

// DiscardRestart is the discard-and-restart baseline (spec olu §2.8): at each request's
// round the state goes back to x₀ and the step-size clock restarts (an adaptive
// schedule's sum of squared gradients too), so what follows depends only on the functions
// that arrive after the request: an (α, 0)-OLU at O(1) cost.
func DiscardRestart(ctx context.Context, c Config, stream []Cost, sched Schedule) (*Run, error) {
	if err := sched.check(stream, true); err != nil {
		return nil, err
	}
	return c.online(ctx, stream, sched.Taus(), func(_ context.Context, st *state, t int, idx []int, run *Run) error {
		copy(st.x, c.X0)
		st.clock, st.p = 0, 0
		for _, i := range idx {
			run.Served = append(run.Served, Served{Request: sched[i], Noisy: slices.Clone(st.x), Released: slices.Clone(st.x)})
		}
		return nil
	})
}

// OGD is plain online gradient descent over the stream: the learner with no requests.
func OGD(ctx context.Context, c Config, stream []Cost) (*Run, error) {
	return c.online(ctx, stream, nil, nil)
}
