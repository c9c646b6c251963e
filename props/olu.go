package props

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit/oluaudit"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/olu"
	"pgregory.net/rapid"
)

// A PassiveOLU is an implementation of passive online learning–unlearning (Algorithm 1)
// with olu.Passive's signature: online projected gradient descent over the stream, and at
// each request's round τ_i Gaussian noise of the σ_i it reports in Run.Served.
type PassiveOLU func(ctx context.Context, c olu.Config, stream []olu.Cost, sched olu.Schedule, r *rand.Rand) (*olu.Run, error)

// An OLUInstance is a generated passive OLU problem (spec olu §4.1): a stream of
// strongly convex quadratics, a step schedule, and requests whose deleted rounds all come
// before the first request is served, so that the outputs' laws are exactly Gaussian
// (oluaudit.ExactDivergence). Config.Lipschitz bounds the gradients the deleted rounds
// meet; Name and About label the instance.
type OLUInstance struct {
	Name, About string
	Stream      []olu.Cost
	Sched       olu.Schedule
	Config      olu.Config
}

// OLUProblem draws an instance: d ∈ [1, 4], T ∈ [4, 40] rounds of ½Σ_j a_tj(z_j − c_tj)²
// with curvatures in [μ, β], μ ∈ [0.1, 1], β/μ ∈ [1, 8], c_tj ∈ [−1, 1]; η_t = 1/(μt), the
// constant 2/(β + μ) or a constant in (0, 1/β]; k ∈ [1, 3] requests (ties in τ allowed,
// deletion at a request's own round excluded by the exactness condition) on the whole
// space, or one request in the box [−R, R]^d; ε ∈ [0.1, 10], ω ∈ [1.1, 3]. L is
// oluaudit.VisitedLipschitz: the largest gradient norm the noise-free runs (with every
// function, and without the first i requests' for each i) meet, which bounds every
// deleted round's at the state where its deletion acts, since each is played before any
// noise. (The run with every function alone does not: a large early step can leave the
// runs far apart.)
func OLUProblem(t *rapid.T) OLUInstance {
	d := rapid.IntRange(1, 4).Draw(t, "d")
	T := rapid.IntRange(4, 40).Draw(t, "T")
	mu := scaled(t, 0.1, 1, "μ")
	beta := mu * scaled(t, 1, 8, "β/μ")
	r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "stream seed"), 1))
	stream := make([]olu.Cost, T)
	for s := range stream {
		q := olu.Quadratic{A: make([]float64, d), C: make([]float64, d)}
		for j := range d {
			q.A[j] = mu + (beta-mu)*r.Float64()
			q.C[j] = 2*r.Float64() - 1
		}
		stream[s] = q
	}
	var steps olu.Steps
	switch rapid.IntRange(0, 2).Draw(t, "steps") {
	case 0:
		steps = olu.Steps{Kind: olu.StronglyConvexSteps, Mu: mu}
	case 1:
		steps = olu.Steps{Kind: olu.ConstantSteps, Eta: 2 / (beta + mu)}
	default:
		steps = olu.Steps{Kind: olu.ConstantSteps, Eta: scaled(t, 0.01, 1, "η·β") / beta}
	}
	first := rapid.IntRange(2, T).Draw(t, "first τ")
	k := rapid.IntRange(1, min(3, first-1)).Draw(t, "k")
	perm := r.Perm(first - 1)[:k]
	slices.Sort(perm)
	sched := make(olu.Schedule, k)
	tau := first
	for i := range sched {
		if i > 0 {
			tau = rapid.IntRange(tau, T).Draw(t, "τ")
		}
		sched[i] = olu.Request{U: perm[i] + 1, Tau: tau}
	}
	var dom olu.Domain = olu.Whole{}
	if k == 1 && rapid.Bool().Draw(t, "box") {
		dom = olu.Box{R: scaled(t, 0.2, 3, "R")}
	}
	cfg := olu.Config{X0: make([]float64, d), Domain: dom, Steps: steps, Mu: mu, Beta: beta,
		Epsilon: scaled(t, 0.1, 10, "ε"), Omega: scaled(t, 1.1, 3, "ω")}
	L, err := oluaudit.VisitedLipschitz(context.Background(), cfg, stream, sched)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Lipschitz = L
	return OLUInstance{Name: "generated", Stream: stream, Sched: sched, Config: cfg}
}

// CheckPassiveOLU holds an implementation to Algorithm 1 on the instance (spec olu §4.2,
// §4.3, §4.5), through its runs alone:
//
//   - with no request it is online gradient descent: the same final state as olu.OGD
//     (relative 1e-12) and nothing served (I1);
//   - its losses before the first request are f_t(x_{t−1}) of that descent, the canonical
//     index convention (I2);
//   - it serves every request at its round, with σ_i at least B(i, ω, ε)·Γ(u_i, τ_i)·η_{u_i}L
//     for the valid per-step contraction Γ (the certificate), and every released state
//     lies in the domain (I4);
//   - the outputs' exact Rényi divergence from Definition 2's reference at each τ_i, at its
//     own σ_i, is within the accountant's αε(ω−1)/ω·H_ω(i) (P1, P2);
//   - a request repeating a deleted round is refused (§4.5).
func CheckPassiveOLU(t TB, impl PassiveOLU, in OLUInstance) {
	t.Helper()
	ctx := context.Background()
	cfg := in.Config
	ogd, err := olu.OGD(ctx, cfg, in.Stream)
	if err != nil {
		t.Fatal(err)
	}
	none, err := impl(ctx, cfg, in.Stream, nil, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatalf("no requests: %v", err)
	}
	if len(none.Served) != 0 || relDistance(none.Final, ogd.Final) > 1e-12 {
		t.Fatalf("no requests: %d served, final %v against online descent's %v", len(none.Served), none.Final, ogd.Final)
	}
	run, err := impl(ctx, cfg, in.Stream, in.Sched, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	first := slices.Min(in.Sched.Taus())
	for s := 1; s <= first; s++ {
		if math.Abs(run.Played[s-1]-ogd.Played[s-1]) > 1e-12*(1+math.Abs(ogd.Played[s-1])) {
			t.Fatalf("round %d: loss %v, online descent plays f_t(x_{t−1}) = %v", s, run.Played[s-1], ogd.Played[s-1])
		}
	}
	if len(run.Served) != len(in.Sched) {
		t.Fatalf("%d requests served of %d", len(run.Served), len(in.Sched))
	}
	sigmas := make([]float64, len(in.Sched))
	for i, sv := range run.Served {
		q := in.Sched[i]
		if sv.Request != q {
			t.Fatalf("request %d served as %+v, asked %+v", i+1, sv.Request, q)
		}
		need := olu.NoiseMultiplier(i+1, cfg.Omega, cfg.Epsilon) * olu.Contraction(olu.PerStep, ogd.Etas, q.U, q.Tau, cfg.Mu, cfg.Beta) * ogd.Etas[q.U-1] * cfg.Lipschitz
		if sv.Sigma < need*(1-1e-12) {
			t.Fatalf("request %d (u = %d, τ = %d): σ = %v below the valid %v", i+1, q.U, q.Tau, sv.Sigma, need)
		}
		if !cfg.Domain.Contains(sv.Released, 1e-12) {
			t.Fatalf("request %d: released state %v outside the domain", i+1, sv.Released)
		}
		sigmas[i] = sv.Sigma
	}
	exact, err := oluaudit.ExactDivergence(ctx, oluaudit.ContractionCase(in), sigmas)
	if err != nil {
		t.Fatal(err)
	}
	for i, dv := range exact {
		if budget := olu.RDPSpent(1, cfg.Epsilon, cfg.Omega, i+1); dv > budget*(1+1e-9) {
			t.Fatalf("request %d: D_α/α = %v at τ = %d, above the accountant's %v", i+1, dv, in.Sched[i].Tau, budget)
		}
	}
	again := append(slices.Clone(in.Sched), olu.Request{U: in.Sched[0].U, Tau: len(in.Stream)})
	if _, err := impl(ctx, cfg, in.Stream, again, rand.New(rand.NewPCG(5, 6))); err == nil {
		t.Fatalf("round %d deleted twice: accepted", in.Sched[0].U)
	}
}

// OLUProperty is CheckPassiveOLU on OLUProblem's instances.
func OLUProperty(impl PassiveOLU) func(*rapid.T) {
	return func(t *rapid.T) { CheckPassiveOLU(t, impl, OLUProblem(t)) }
}

// CheckPassiveRegret measures the implementation's mean OLU regret (Eq. 5) over draws
// noise draws on a box-constrained quadratic stream at η_t = 1/(μt) with every deleted
// round at least 1/2 + β/μ (Theorem 2's hypotheses) and holds it, less three standard
// errors, to the corrected Theorem 2 bound oluaudit.Thm2BoundCorrected (spec olu §4.4,
// B1). Its false-failure probability is that of a 3-SE excursion, below 0.2 %, and far
// less at the bounds' slack.
func CheckPassiveRegret(t TB, impl PassiveOLU, in OLUInstance, draws int) {
	t.Helper()
	ctx := context.Background()
	cfg := in.Config
	d := len(cfg.X0)
	const R = 2.0
	cfg.Domain = olu.Box{R: R}
	cfg.Steps = olu.Steps{Kind: olu.StronglyConvexSteps, Mu: cfg.Mu}
	cfg.Lipschitz = cfg.Beta * (R + 1) * math.Sqrt(float64(d)) // |a(z − c)| ≤ β(R + 1) per coordinate
	low := int(math.Ceil(0.5 + cfg.Beta/cfg.Mu))
	sched := make(olu.Schedule, len(in.Sched)) // every request moved low rounds later
	var taus []int
	for i, q := range in.Sched {
		sched[i] = olu.Request{U: q.U + low, Tau: q.Tau + low}
		taus = append(taus, q.Tau+low)
	}
	stream := slices.Clone(in.Stream) // low rounds more, cycling, for the moved requests
	for s := range low {
		stream = append(stream, in.Stream[s%len(in.Stream)])
	}
	comps, err := olu.Comparators(ctx, stream, sched, cfg.Domain, cfg.X0, olu.MinimizeOptions{Smoothness: cfg.Beta, Tol: 1e-11})
	if err != nil {
		t.Fatal(err)
	}
	regrets := make([]float64, draws)
	for n := range regrets {
		run, err := impl(ctx, cfg, stream, sched, rand.New(rand.NewPCG(uint64(n), 7)))
		if err != nil {
			t.Fatal(err)
		}
		if regrets[n], err = olu.Regret(stream, sched, run.Played, comps); err != nil {
			t.Fatal(err)
		}
	}
	mean, se := oluaudit.MeanSE(regrets)
	bound := oluaudit.Thm2BoundCorrected(cfg.Lipschitz, cfg.Mu, len(stream), len(sched), d, cfg.Epsilon, cfg.Omega, taus)
	if mean-3*se > bound {
		t.Fatalf("mean regret %v ± %v over %d draws above Theorem 2's corrected bound %v (T = %d, k = %d, requests %v)", mean, se, draws, bound, len(stream), len(sched), sched)
	}
}

// PassiveRegretProperty is CheckPassiveRegret on OLUProblem's instances, 8 draws each.
func PassiveRegretProperty(impl PassiveOLU) func(*rapid.T) {
	return func(t *rapid.T) { CheckPassiveRegret(t, impl, OLUProblem(t), 8) }
}

// relDistance is ‖a − b‖/(1 + ‖b‖).
func relDistance(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	return reference.Distance(a, b) / (1 + reference.Norm(b))
}
