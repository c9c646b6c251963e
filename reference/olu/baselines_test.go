package olu

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"pgregory.net/rapid"
)

// I10 (spec olu §2.4 item 3): the real run and its reference for request i, sharing their
// noise draws, are at most Σ_{j≤i} Γ(u_j, t)·η_{u_j}L apart at every round of request i's
// window [τ_i, τ_{i+1} − 1] (relative 1e-9); before the first deleted function arrives
// they coincide.
func TestCoupledPair(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pr := drawQuad(t, StepKind(rapid.IntRange(0, 1).Draw(t, "steps")))
		if len(pr.sched) == 0 {
			return
		}
		cfg := pr.cfg
		cfg.KeepStates = true
		if cfg.Steps.Kind == ConvexSteps {
			cfg.Mu = 0
		}
		seed := rapid.Uint64().Draw(t, "noise")
		run, err := Passive(context.Background(), cfg, pr.stream, pr.sched, rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			t.Fatal(err)
		}
		i := rapid.IntRange(1, len(pr.sched)).Draw(t, "i")
		ref, err := Reference(context.Background(), cfg, pr.stream, pr.sched, i, run.Sigmas(), rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			t.Fatal(err)
		}
		first := len(pr.stream)
		for _, r := range pr.sched[:i] {
			first = min(first, r.U)
		}
		for s := 0; s <= len(pr.stream); s++ {
			gap := floats.Distance(run.States[s], ref.States[s], 2)
			if s < first && gap != 0 {
				t.Fatalf("x_%d differs before the first deleted function arrives (round %d)", s, first)
			}
			if s < pr.sched[i-1].Tau || i < len(pr.sched) && s >= pr.sched[i].Tau {
				continue // outside request i's window [τ_i, τ_{i+1} − 1]
			}
			bound := 0.0
			for _, r := range pr.sched[:i] {
				bound += Contraction(PerStep, run.Etas, r.U, s, cfg.Mu, cfg.Beta) * run.Etas[r.U-1] * cfg.Lipschitz
			}
			if gap > bound*(1+1e-9)+1e-300 {
				t.Fatalf("t = %d ≥ τ_%d: coupled gap %v above %v", s, i, gap, bound)
			}
		}
	})
}

// I11: the retraining baseline releases, after each request, exactly (bit for bit) what
// noiseless descent on the stream without the deleted functions (⊥ in place, the same
// step sizes) reaches; a "compacted" retrain that drops the functions and shifts the rounds
// reaches another state on generic instances, so the reference is the ⊥ one.
func TestRetrainIsTheBottomDescent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pr := drawQuad(t, StronglyConvexSteps)
		if len(pr.sched) == 0 {
			return
		}
		ctx := context.Background()
		run, err := Retrain(ctx, pr.cfg, pr.stream, pr.sched)
		if err != nil {
			t.Fatal(err)
		}
		for i, sv := range run.Served {
			cfg := pr.cfg
			cfg.KeepStates = true
			ref, err := OGD(ctx, cfg, Without(pr.stream, pr.sched, i+1))
			if err != nil {
				t.Fatal(err)
			}
			if want := ref.States[sv.Tau]; !slices.Equal(sv.Released, want) {
				t.Fatalf("request %d: retrain released %v, ⊥-descent reaches %v", i+1, sv.Released, want)
			}
		}
		last, err := OGD(ctx, pr.cfg, Without(pr.stream, pr.sched, len(pr.sched)))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(run.Final, last.Final) {
			t.Fatalf("final state %v, ⊥-descent %v", run.Final, last.Final)
		}
	})
	// a fixed instance where u < τ with 1/(μt) steps: the compacted retrain differs
	stream := make([]Cost, 6)
	for s := range stream {
		stream[s] = Quadratic{A: []float64{1}, C: []float64{float64(s%3) - 1}}
	}
	cfg := Config{X0: []float64{0.5}, Domain: Box{R: 2}, Steps: Steps{Kind: StronglyConvexSteps, Mu: 1}, Lipschitz: 4, Mu: 1, Beta: 1, Epsilon: 1, Omega: 1.2}
	sched := Schedule{{U: 2, Tau: 4}}
	bottom, _ := OGD(context.Background(), cfg, Without(stream, sched, 1))
	compacted, _ := OGD(context.Background(), cfg, slices.Delete(slices.Clone(stream), 1, 2))
	if bottom.Final[0] == compacted.Final[0] {
		t.Errorf("the compacted retrain reaches the ⊥ one's %v: the check cannot tell them apart", bottom.Final)
	}
}

// I12: discard-and-restart goes back to x₀ at every request and restarts its clock: from
// τ_i on it is the same algorithm run on the stream without the deleted functions, bit for
// bit, since neither has seen anything before τ_i.
func TestDiscardRestart(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pr := drawQuad(t, StepKind(rapid.IntRange(0, 3).Draw(t, "steps")))
		if len(pr.sched) == 0 {
			return
		}
		cfg := pr.cfg
		cfg.KeepStates = true
		ctx := context.Background()
		run, err := DiscardRestart(ctx, cfg, pr.stream, pr.sched)
		if err != nil {
			t.Fatal(err)
		}
		i := rapid.IntRange(1, len(pr.sched)).Draw(t, "i")
		// DiscardRestart refuses the reference: its first request names a round already ⊥.
		// discardAt restarts at the same rounds without the requests.
		_, err = DiscardRestart(ctx, cfg, Without(pr.stream, pr.sched, i), pr.sched)
		if want := fmt.Sprintf("request 1: f_%d is already ⊥", pr.sched[0].U); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("a schedule deleting ⊥ rounds: %v, want an error with %q", err, want)
		}
		ref, err := discardAt(ctx, cfg, Without(pr.stream, pr.sched, i), pr.sched.Taus())
		if err != nil {
			t.Fatal(err)
		}
		tau := pr.sched[i-1].Tau
		if !slices.Equal(run.States[tau], cfg.X0) {
			t.Fatalf("x_τ = %v, not x₀", run.States[tau])
		}
		for s := tau; s <= len(pr.stream); s++ {
			if !slices.Equal(run.States[s], ref.States[s]) {
				t.Fatalf("x_%d differs from the reference's", s)
			}
		}
	})
}

// discardAt restarts at the given rounds, whatever the stream holds there.
func discardAt(ctx context.Context, c Config, stream []Cost, taus []int) (*Run, error) {
	return c.online(ctx, stream, taus, func(_ context.Context, st *state, t int, idx []int, run *Run) error {
		copy(st.x, c.X0)
		st.clock, st.p = 0, 0
		return nil
	})
}

// I13: Regret is Eq. 5's double sum computed by brute force; every comparator is the
// minimiser (on separable quadratics over a box, the clamped weighted mean, to 1e-8);
// with no request it is the static regret against the full minimiser.
func TestRegretBookkeeping(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pr := drawQuad(t, StronglyConvexSteps)
		ctx := context.Background()
		run, err := Passive(ctx, pr.cfg, pr.stream, pr.sched, rand.New(rand.NewPCG(3, 3)))
		if err != nil {
			t.Fatal(err)
		}
		d := len(pr.cfg.X0)
		comps, err := Comparators(ctx, pr.stream, pr.sched, pr.cfg.Domain, pr.cfg.X0, MinimizeOptions{Smoothness: pr.cfg.Beta})
		if err != nil {
			t.Fatal(err)
		}
		R := pr.cfg.Domain.(Box).R
		for i, z := range comps {
			gone := pr.sched.Deleted(i)
			for j := range d {
				num, den := 0.0, 0.0
				for s, f := range pr.stream {
					if gone[s+1] {
						continue
					}
					q := f.(Quadratic)
					num += q.A[j] * q.C[j]
					den += q.A[j]
				}
				if want := math.Max(-R, math.Min(R, num/den)); math.Abs(z[j]-want) > 1e-8*(1+R) {
					t.Fatalf("z_%d*[%d] = %v, the clamped weighted mean %v", i, j, z[j], want)
				}
			}
		}
		got, err := Regret(pr.stream, pr.sched, run.Played, comps)
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		for s := 1; s <= len(pr.stream); s++ {
			block := 0 // the number of requests served before round s
			for _, r := range pr.sched {
				if r.Tau < s {
					block++
				}
			}
			want += run.Played[s-1] - pr.stream[s-1].Value(comps[block])
		}
		if math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
			t.Fatalf("Regret %v, brute force %v", got, want)
		}
		static := 0.0
		for s, f := range pr.stream {
			static += run.Played[s] - f.Value(comps[0])
		}
		if r0, _ := Regret(pr.stream, nil, run.Played, comps[:1]); math.Abs(r0-static) > 1e-9*(1+math.Abs(static)) {
			t.Fatalf("k = 0: %v, static regret %v", r0, static)
		}
	})
}

// I18: bad schedules and configurations are refused, each error naming what is wrong.
func TestValidation(t *testing.T) {
	stream := []Cost{Quadratic{A: []float64{1}, C: []float64{0}}, Quadratic{A: []float64{1}, C: []float64{1}}, Quadratic{A: []float64{1}, C: []float64{0}}}
	cfg := Config{X0: []float64{0}, Domain: Box{R: 1}, Steps: Steps{Kind: StronglyConvexSteps, Mu: 1}, Lipschitz: 2, Mu: 1, Beta: 1, Epsilon: 1, Omega: 1.2}
	for _, c := range []struct {
		sched Schedule
		want  string
	}{
		{Schedule{{U: 3, Tau: 2}}, "before the function"},
		{Schedule{{U: 1, Tau: 1}, {U: 1, Tau: 2}}, "already deleted"},
		{Schedule{{U: 2, Tau: 3}, {U: 1, Tau: 2}}, "does not come after"},
		{Schedule{{U: 0, Tau: 1}}, "outside"},
		{Schedule{{U: 1, Tau: 4}}, "past the horizon"},
	} {
		if _, err := Passive(context.Background(), cfg, stream, c.sched, rand.New(rand.NewPCG(1, 1))); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v; want %q", c.sched, err, c.want)
		}
	}
	if err := (Schedule{{U: 1, Tau: 2}, {U: 2, Tau: 2}}).Validate(3, false); err == nil {
		t.Error("ties accepted where they are not allowed")
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.X0 = []float64{3} },
		func(c *Config) { c.X0 = []float64{0, 0} },
		func(c *Config) { c.Omega = 1 },
		func(c *Config) { c.Epsilon = 0 },
		func(c *Config) { c.Beta = 0.5 },
		func(c *Config) { c.Steps.Mu = 0 },
	} {
		c := cfg
		bad(&c)
		if _, err := Passive(context.Background(), c, stream, nil, rand.New(rand.NewPCG(1, 1))); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if _, err := Passive(context.Background(), cfg, nil, nil, nil); err == nil {
		t.Error("an empty stream accepted")
	}
}

// Adaptive steps with only zero gradients take no step and stay finite (spec olu §4.5).
func TestAdaptiveZeroGradients(t *testing.T) {
	stream := []Cost{Linear{G: []float64{0, 0}}, Linear{G: []float64{0, 0}}, Linear{G: []float64{1, 0}}}
	cfg := Config{X0: []float64{0.5, 0}, Domain: Box{R: 1}, Steps: Steps{Kind: AdaptiveSteps, D: 2}, Lipschitz: 1, Epsilon: 1, Omega: 1.2, KeepStates: true}
	run, err := OGD(context.Background(), cfg, stream)
	if err != nil {
		t.Fatal(err)
	}
	if run.Etas[0] != 0 || run.Etas[1] != 0 || !slices.Equal(run.States[2], cfg.X0) || run.Etas[2] != 2 || run.Final[0] != -1 {
		t.Errorf("η %v, states %v; want no step while p = 0, then η = D/√1 = 2 and the clamp at −1", run.Etas, run.States)
	}
}
