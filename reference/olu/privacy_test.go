package olu

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"pgregory.net/rapid"
)

// exactSingle is D_α/α between request 1's noisy outputs at τ_1 in the real run and in its
// reference: before τ_1 both are deterministic, so the outputs before projection are
// N(x, σ²I) and N(x′, σ²I) and D_α = α‖x − x′‖²/(2σ²) (spec olu §4.3 P1).
func exactSingle(t interface{ Fatal(...any) }, cfg Config, stream []Cost, sched Schedule) (perAlpha, sigma float64) {
	ctx := context.Background()
	run, err := Passive(ctx, cfg, stream, sched, rand.New(rand.NewPCG(7, 7)))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := Reference(ctx, cfg, stream, sched, 1, run.Sigmas(), rand.New(rand.NewPCG(7, 7)))
	if err != nil {
		t.Fatal(err)
	}
	// shared noise: the difference of the noisy states is the deterministic gap
	gap := floats.Distance(run.Served[0].Noisy, ref.Served[0].Noisy, 2)
	s := run.Served[0].Sigma
	return gap * gap / (2 * s * s), s
}

// P1 (spec olu §4.3), the corrected noise: for one request on any quadratic stream with
// η_t = 1/(μt) or D/(L√t), the exact divergence per order between the outputs at τ_1 is
// within request 1's share of the budget, ε(ω−1)/ω (relative 1e-9).
func TestSingleDeletionExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pr := drawQuad(t, StepKind(rapid.IntRange(0, 1).Draw(t, "steps")))
		if len(pr.sched) == 0 {
			return
		}
		cfg := pr.cfg
		if cfg.Steps.Kind == ConvexSteps {
			cfg.Mu = 0
		}
		got, _ := exactSingle(t, cfg, pr.stream, pr.sched[:1])
		if budget := cfg.Epsilon * (cfg.Omega - 1) / cfg.Omega; got > budget*(1+1e-9) {
			t.Fatalf("D_α/α = %v above request 1's budget %v", got, budget)
		}
	})
}

// The spec's check of erratum 1 (olu §3.2), reproduced exactly: 1-D f_t = ½(z − c_t)²,
// μ = 1, β = 3 declared, K = [−5, 5] (L = 10), η_t = 1/t, u = 4, τ = 20, ε = 1, ω = 1.2.
// With c_1..c_3 = −1/3 and c_4 = 5 the deleted function moves the state by 4/3 at round 4,
// and η_t = 1/t contracts the gap by u/τ to 4/15. The paper's γ = ½ sizes σ at
// √3·2⁻¹⁶·10/4 = 6.607·10⁻⁵ and the outputs are 8.1·10⁶ per order apart, against a budget
// of ε(ω−1)/ω = 1/6; the corrected Γ = 4/20 gives σ = √3/2 and 0.0474.
func TestPaperGammaBreaksPrivacy(t *testing.T) {
	stream := make([]Cost, 30)
	for s := range stream {
		c := 0.0
		switch {
		case s < 3:
			c = -1.0 / 3
		case s == 3:
			c = 5
		default:
			c = 0.5 * math.Sin(float64(s))
		}
		stream[s] = Quadratic{A: []float64{1}, C: []float64{c}}
	}
	cfg := Config{X0: []float64{0}, Domain: Box{R: 5}, Steps: Steps{Kind: StronglyConvexSteps, Mu: 1}, Lipschitz: 10, Mu: 1, Beta: 3, Epsilon: 1, Omega: 1.2}
	sched := Schedule{{U: 4, Tau: 20}}
	budget := 1.0 / 6
	cfg.Contraction = PaperGamma
	paper, sp := exactSingle(t, cfg, stream, sched)
	cfg.Contraction = PerStep
	fixed, sf := exactSingle(t, cfg, stream, sched)
	wantPaper := math.Sqrt(3) * math.Pow(0.5, 16) * 2.5
	if math.Abs(sp-wantPaper) > 1e-12*wantPaper || math.Abs(sf-math.Sqrt(3)/2) > 1e-12 {
		t.Errorf("σ: paper %v (want %v), corrected %v (want √3/2)", sp, wantPaper, sf)
	}
	gap := 4.0 / 15
	if want := gap * gap / (2 * sf * sf); math.Abs(fixed-want) > 1e-9*want || fixed > budget {
		t.Errorf("corrected: D_α/α = %v, want (4/15)²/(2σ²) = %v within %v", fixed, want, budget)
	}
	if want := gap * gap / (2 * sp * sp); math.Abs(paper-want) > 1e-6*want || paper < 8e6 {
		t.Errorf("paper: D_α/α = %v, want %v ≈ 8.1e6", paper, want)
	}
}

// P2: several requests on linear costs with no domain — online descent is a translation,
// so the outputs after request i are exactly N(m, Σ_{j≤i} σ_j² I) against N(m′, same) —
// and the exact divergence per order stays within the accountant's
// ε(ω−1)/ω·H_ω(i) (relative 1e-9), in every window.
func TestSeveralDeletionsExactGaussian(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := rapid.IntRange(1, 5).Draw(t, "d")
		T := rapid.IntRange(1, 80).Draw(t, "T")
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 9))
		L := 0.0
		stream := make([]Cost, T)
		for s := range stream {
			g := make([]float64, d)
			for j := range g {
				g[j] = r.NormFloat64()
			}
			stream[s] = Linear{G: g}
			L = math.Max(L, floats.Norm(g, 2))
		}
		cfg := Config{X0: make([]float64, d), Domain: Whole{}, Steps: Steps{Kind: ConstantSteps, Eta: float64(rapid.IntRange(1, 100).Draw(t, "η·100")) / 100},
			Lipschitz: L, Epsilon: math.Exp(float64(rapid.IntRange(-30, 23).Draw(t, "ln ε·10")) / 10), Omega: rapid.SampledFrom([]float64{1.1, 1.2, 1.5, 2}).Draw(t, "ω")}
		sched := drawSchedule(t, T, r)
		if len(sched) == 0 {
			return
		}
		ctx := context.Background()
		run, err := Passive(ctx, cfg, stream, sched, rand.New(rand.NewPCG(5, 5)))
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= len(sched); i++ {
			ref, err := Reference(ctx, cfg, stream, sched, i, run.Sigmas(), rand.New(rand.NewPCG(5, 5)))
			if err != nil {
				t.Fatal(err)
			}
			variance := 0.0
			for _, s := range run.Served[:i] {
				variance += s.Sigma * s.Sigma
			}
			gap := floats.Distance(run.Served[i-1].Released, ref.Served[i-1].Released, 2)
			got := gap * gap / (2 * variance)
			if budget := cfg.Epsilon * (cfg.Omega - 1) / cfg.Omega * hOmega(cfg.Omega, i); got > budget*(1+1e-9) {
				t.Fatalf("request %d: D_α/α = %v above %v", i, got, budget)
			}
		}
	})
}

func hOmega(omega float64, i int) float64 {
	h := 0.0
	for j := 1; j <= i; j++ {
		h += math.Pow(float64(j), -omega)
	}
	return h
}
