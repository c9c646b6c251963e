package props

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference/olu"
	"pgregory.net/rapid"
)

// The reference passive OLU meets Algorithm 1's invariants and its privacy exactly on
// generated instances (spec olu §4.2–4.3).
func TestOLUReference(t *testing.T) {
	rapid.Check(t, OLUProperty(olu.Passive))
}

// Its regret stays below Theorem 2's corrected bound where the hypotheses hold (§4.4 B1).
func TestPassiveRegretReference(t *testing.T) {
	rapid.Check(t, PassiveRegretProperty(olu.Passive))
}

// planted passive OLUs: each is caught by CheckPassiveOLU on some generated instance.
func TestOLUCheckCatchesPlantedBugs(t *testing.T) {
	for _, bug := range []struct {
		name string
		impl PassiveOLU
	}{
		{"the paper's γ", func(ctx context.Context, c olu.Config, s []olu.Cost, q olu.Schedule, r *rand.Rand) (*olu.Run, error) {
			c.Contraction = olu.PaperGamma
			return olu.Passive(ctx, c, s, q, r)
		}},
		{"a third of the noise (ε × 9)", func(ctx context.Context, c olu.Config, s []olu.Cost, q olu.Schedule, r *rand.Rand) (*olu.Run, error) {
			c.Epsilon *= 9
			return olu.Passive(ctx, c, s, q, r)
		}},
		{"noise sized for the wrong request (σ_1 for all)", func(ctx context.Context, c olu.Config, s []olu.Cost, q olu.Schedule, r *rand.Rand) (*olu.Run, error) {
			run, err := olu.Passive(ctx, c, s, q, r)
			if err == nil {
				for i := range run.Served {
					run.Served[i].Sigma = run.Served[0].Sigma * float64(i+1) / float64(i+2)
				}
			}
			return run, err
		}},
		{"repeats accepted", func(ctx context.Context, c olu.Config, s []olu.Cost, q olu.Schedule, r *rand.Rand) (*olu.Run, error) {
			seen := map[int]bool{}
			var kept olu.Schedule
			for _, x := range q {
				if !seen[x.U] {
					kept = append(kept, x)
				}
				seen[x.U] = true
			}
			return olu.Passive(ctx, c, s, kept, r)
		}},
	} {
		t.Run(strings.ReplaceAll(bug.name, " ", "_"), func(t *testing.T) {
			caught := false
			rapid.Check(t, func(rt *rapid.T) {
				if fails(func(tb TB) { CheckPassiveOLU(tb, bug.impl, OLUProblem(rt)) }) {
					caught = true
				}
			})
			if !caught {
				t.Fatalf("%s passed every check", bug.name)
			}
		})
	}
}

// The edge cases of spec olu §4.5, each by name, on the reference.
func TestOLUEdgeCases(t *testing.T) {
	ctx := context.Background()
	stream := []olu.Cost{olu.Quadratic{A: []float64{1}, C: []float64{1}}, olu.Quadratic{A: []float64{2}, C: []float64{-1}},
		olu.Quadratic{A: []float64{1}, C: []float64{0.5}}, olu.Quadratic{A: []float64{1.5}, C: []float64{0}}}
	cfg := olu.Config{X0: []float64{0}, Domain: olu.Box{R: 2}, Steps: olu.Steps{Kind: olu.StronglyConvexSteps, Mu: 1}, Lipschitz: 6, Mu: 1, Beta: 2, Epsilon: 1, Omega: 1.2}
	run := func(sched olu.Schedule) (*olu.Run, error) {
		return olu.Passive(ctx, cfg, stream, sched, rand.New(rand.NewPCG(1, 1)))
	}
	t.Run("k=0", func(t *testing.T) {
		r, err := run(nil)
		ogd, _ := olu.OGD(ctx, cfg, stream)
		if err != nil || r.Draws != 0 || r.Final[0] != ogd.Final[0] {
			t.Fatalf("%v: %d draws, final %v against %v", err, r.Draws, r.Final, ogd.Final)
		}
	})
	t.Run("deletion_at_arrival", func(t *testing.T) { // Γ is the empty product: σ = B·η_u·L
		r, err := run(olu.Schedule{{U: 3, Tau: 3}})
		if err != nil {
			t.Fatal(err)
		}
		if want := olu.NoiseMultiplier(1, 1.2, 1) * (1.0 / 3) * 6; r.Served[0].Contraction != 1 || math.Abs(r.Served[0].Sigma-want) > 1e-15*want {
			t.Fatalf("Γ = %v, σ = %v; want 1 and %v", r.Served[0].Contraction, r.Served[0].Sigma, want)
		}
	})
	t.Run("first_round", func(t *testing.T) { // the largest step: η_1 = 1/μ
		r, err := run(olu.Schedule{{U: 1, Tau: 4}})
		if err != nil {
			t.Fatal(err)
		}
		if want := olu.NoiseMultiplier(1, 1.2, 1) * olu.Contraction(olu.PerStep, r.Etas, 1, 4, 1, 2) * 1 * 6; math.Abs(r.Served[0].Sigma-want) > 1e-15*want {
			t.Fatalf("σ = %v, want %v", r.Served[0].Sigma, want)
		}
	})
	t.Run("repeated_request_rejected", func(t *testing.T) {
		if _, err := run(olu.Schedule{{U: 2, Tau: 3}, {U: 2, Tau: 4}}); err == nil {
			t.Fatal("round 2 deleted twice: accepted")
		}
	})
	t.Run("window_of_length_one", func(t *testing.T) { // τ_k = T
		r, err := run(olu.Schedule{{U: 2, Tau: 4}})
		if err != nil || len(r.Served) != 1 || r.Served[0].Released[0] != r.Final[0] {
			t.Fatalf("%v: the last release %v is not the final state %v", err, r.Served, r.Final)
		}
	})
	t.Run("beta_equals_mu", func(t *testing.T) { // the paper's γ is 0: no noise at all
		c := cfg
		c.Beta, c.Contraction = 1, olu.PaperGamma
		r, err := olu.Passive(ctx, c, stream, olu.Schedule{{U: 1, Tau: 3}}, rand.New(rand.NewPCG(1, 1)))
		if err != nil || r.Served[0].Sigma != 0 {
			t.Fatalf("%v: σ = %v under the paper's γ = 0", err, r.Served)
		}
	})
	t.Run("request_before_arrival_rejected", func(t *testing.T) {
		if _, err := run(olu.Schedule{{U: 3, Tau: 2}}); err == nil || errors.Is(err, context.Canceled) {
			t.Fatal("a request served before its round arrived: accepted")
		}
	})
}

// The exact privacy check has teeth of its own: with a Lipschitz constant a tenth of the
// gradients it must bound, the implementation's σ passes the certificate (it is
// recomputed from the same L) and the outputs' exact divergence exceeds the accountant.
func TestOLUCheckCatchesAnInvalidL(t *testing.T) {
	caught := false
	rapid.Check(t, func(rt *rapid.T) {
		in := OLUProblem(rt)
		in.Config.Lipschitz /= 10
		if fails(func(tb TB) { CheckPassiveOLU(tb, olu.Passive, in) }) {
			caught = true
		}
	})
	if !caught {
		t.Fatal("an L ten times too small passed every check")
	}
}
