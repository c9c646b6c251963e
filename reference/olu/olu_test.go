package olu

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"pgregory.net/rapid"
)

// quadProblem is spec olu §4.1's genQuadSC: separable quadratics with curvatures in [μ, β]
// (some exactly μ, the tight case), centres in the box [−R, R]^d, L = β·D.
type quadProblem struct {
	stream []Cost
	cfg    Config
	sched  Schedule
}

func drawQuad(t *rapid.T, steps StepKind) quadProblem {
	d := rapid.SampledFrom([]int{1, 2, 3, 5}).Draw(t, "d")
	T := rapid.IntRange(1, 120).Draw(t, "T")
	R := float64(rapid.IntRange(1, 100).Draw(t, "R·10")) / 10
	mu := float64(rapid.IntRange(1, 20).Draw(t, "μ·10")) / 10
	beta := mu * float64(rapid.IntRange(10, 50).Draw(t, "β/μ·10")) / 10
	r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 1))
	stream := make([]Cost, T)
	for s := range stream {
		a, c := make([]float64, d), make([]float64, d)
		for j := range a {
			a[j] = mu + (beta-mu)*r.Float64()
			if r.IntN(3) == 0 {
				a[j] = mu
			}
			c[j] = R * (2*r.Float64() - 1)
		}
		stream[s] = Quadratic{A: a, C: c}
	}
	dom := Box{R: R}
	D := dom.Diameter(d)
	x0 := make([]float64, d)
	for j := range x0 {
		x0[j] = R * (2*r.Float64() - 1)
	}
	st := Steps{Kind: steps, Mu: mu, D: D, L: beta * D, Eta: 1 / (beta + mu)}
	cfg := Config{X0: x0, Domain: dom, Steps: st, Lipschitz: beta * D, Mu: mu, Beta: beta,
		Epsilon: math.Exp(float64(rapid.IntRange(-30, 23).Draw(t, "ln ε·10")) / 10), Omega: rapid.SampledFrom([]float64{1.1, 1.2, 1.5, 2}).Draw(t, "ω")}
	return quadProblem{stream: stream, cfg: cfg, sched: drawSchedule(t, T, r)}
}

// drawSchedule draws k ≤ min(8, T) requests: distinct u, non-decreasing τ ≥ u, in one of
// spec olu §4.1's modes.
func drawSchedule(t *rapid.T, T int, r *rand.Rand) Schedule {
	k := rapid.IntRange(0, min(8, T)).Draw(t, "k")
	mode := rapid.SampledFrom([]string{"random", "on-arrival", "first", "back-to-back", "end"}).Draw(t, "mode")
	taus := r.Perm(T)[:k]
	for i := range taus {
		taus[i]++
	}
	slices.Sort(taus)
	if mode == "back-to-back" && k > 0 {
		start := 1 + r.IntN(T-k+1)
		for i := range taus {
			taus[i] = start + i
		}
	}
	if mode == "end" && k > 0 {
		taus[k-1] = T
		slices.Sort(taus)
	}
	used := map[int]bool{}
	var s Schedule
	for i, tau := range taus {
		if i > 0 && tau == taus[i-1] {
			continue
		}
		var u int
		switch {
		case mode == "on-arrival":
			u = tau
		case mode == "first" && i == 0:
			u = 1
		default:
			u = 1 + r.IntN(tau)
		}
		if used[u] {
			continue
		}
		used[u] = true
		s = append(s, Request{U: u, Tau: tau})
	}
	return s
}

// I1 (spec olu §4.2): with no request, Algorithm 1 is online gradient descent bit for bit
// and draws no noise.
func TestNoRequestsIsOGD(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pr := drawQuad(t, StepKind(rapid.IntRange(0, 3).Draw(t, "steps")))
		pr.cfg.KeepStates = true
		a, err := Passive(context.Background(), pr.cfg, pr.stream, nil, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := OGD(context.Background(), pr.cfg, pr.stream)
		if err != nil {
			t.Fatal(err)
		}
		if a.Draws != 0 || !slices.Equal(a.Final, b.Final) || len(a.States) != len(pr.stream)+1 {
			t.Fatalf("k = 0: %d draws, final %v against OGD's %v", a.Draws, a.Final, b.Final)
		}
		for i := range a.States {
			if !slices.Equal(a.States[i], b.States[i]) {
				t.Fatalf("state %d differs", i)
			}
		}
	})
}

// I2, I6: noise only at the requests' rounds (k·d draws); every other round is one OGD
// step from the previous state; every released state lies in the domain.
func TestNoiseOnlyAtRequests(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pr := drawQuad(t, StronglyConvexSteps)
		pr.cfg.KeepStates = true
		run, err := Passive(context.Background(), pr.cfg, pr.stream, pr.sched, rand.New(rand.NewPCG(2, 2)))
		if err != nil {
			t.Fatal(err)
		}
		d := len(pr.cfg.X0)
		if run.Draws != len(pr.sched)*d || len(run.Served) != len(pr.sched) {
			t.Fatalf("%d draws and %d served for %d requests in %d dimensions", run.Draws, len(run.Served), len(pr.sched), d)
		}
		served := map[int]bool{}
		for _, r := range pr.sched {
			served[r.Tau] = true
		}
		g := make([]float64, d)
		for s := 1; s <= len(pr.stream); s++ {
			x := slices.Clone(run.States[s-1])
			pr.stream[s-1].Gradient(g, x)
			floats.AddScaled(x, -run.Etas[s-1], g)
			pr.cfg.Domain.Project(x)
			if !served[s] && !slices.Equal(x, run.States[s]) {
				t.Fatalf("round %d is not one OGD step", s)
			}
			if !pr.cfg.Domain.Contains(run.States[s], 1e-12) {
				t.Fatalf("x_%d = %v is outside the domain", s, run.States[s])
			}
		}
	})
}

// I3: σ's closed forms (relative 1e-12) — with η_t = 1/(μt) and the corrected
// contraction, σ_i = B(i, ω, ε)·L/(μτ_i) whatever u_i once u_i + 1 ≥ (β + μ)/(2μ); with
// η_t = D/(L√t) and convex costs, σ_i² = ω i^ω D²/(2(ω − 1)ε u_i); the paper's
// B·γ^{τ−u}·L/(μu) — and σ ∝ ε^{−1/2} and non-decreasing in i.
func TestSigmaClosedForms(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pr := drawQuad(t, StronglyConvexSteps)
		T := len(pr.stream)
		cfg := pr.cfg
		mu, beta, L := cfg.Mu, cfg.Beta, cfg.Lipschitz
		etas := make([]float64, T)
		for s := range etas {
			etas[s] = 1 / (mu * float64(s+1))
		}
		for i, r := range pr.sched {
			B := NoiseMultiplier(i+1, cfg.Omega, cfg.Epsilon)
			if float64(r.U+1) >= (beta+mu)/(2*mu) {
				got := PassiveSigma(i+1, cfg.Omega, cfg.Epsilon, Contraction(PerStep, etas, r.U, r.Tau, mu, beta), etas[r.U-1]*L)
				if want := B * L / (mu * float64(r.Tau)); math.Abs(got-want) > 1e-12*want {
					t.Fatalf("request %d: σ = %v, want B·L/(μτ) = %v", i+1, got, want)
				}
			}
			paper := PassiveSigma(i+1, cfg.Omega, cfg.Epsilon, Contraction(PaperGamma, etas, r.U, r.Tau, mu, beta), etas[r.U-1]*L)
			if want := B * math.Pow(GammaPaperSC(beta, mu), float64(r.Tau-r.U)) * L / (mu * float64(r.U)); math.Abs(paper-want) > 1e-12*want {
				t.Fatalf("paper σ = %v, want %v", paper, want)
			}
			D := pr.cfg.Domain.Diameter(len(cfg.X0))
			conv := PassiveSigma(i+1, cfg.Omega, cfg.Epsilon, Contraction(PerStep, nil, r.U, r.U, 0, 0), D/(L*math.Sqrt(float64(r.U)))*L)
			if want := cfg.Omega * math.Pow(float64(i+1), cfg.Omega) * D * D / (2 * (cfg.Omega - 1) * cfg.Epsilon * float64(r.U)); math.Abs(conv*conv-want) > 1e-12*want {
				t.Fatalf("convex σ² = %v, want %v", conv*conv, want)
			}
			if s4 := PassiveSigma(i+1, cfg.Omega, 4*cfg.Epsilon, 1, 1); math.Abs(s4-B/2) > 1e-12*B {
				t.Fatalf("σ at 4ε = %v, want half of %v", s4, B)
			}
			if i > 0 && NoiseMultiplier(i+1, cfg.Omega, cfg.Epsilon) < NoiseMultiplier(i, cfg.Omega, cfg.Epsilon) {
				t.Fatal("B decreases in i")
			}
		}
	})
}

// I4: the accountant's identity Σ_{j≤i} α a_j²/(2σ_j²) = αε(ω−1)/ω·H_ω(i) ≤ αε for i up to
// 10⁴ (relative 1e-12), the budget bound H_ω(i) ≤ ω/(ω − 1).
func TestAccountantIdentity(t *testing.T) {
	for _, omega := range []float64{1.1, 1.2, 1.5, 2} {
		for _, eps := range []float64{0.05, 1, 10} {
			const alpha = 3.0
			sum := 0.0
			for i := 1; i <= 10000; i++ {
				a := 0.37 * float64(i%7+1) // any shift: σ scales with it
				sigma := PassiveSigma(i, omega, eps, 1, a)
				sum += alpha * a * a / (2 * sigma * sigma)
				if i == 1 || i == 10 || i == 10000 {
					want := RDPSpent(alpha, eps, omega, i)
					if math.Abs(sum-want) > 1e-12*want || want > alpha*eps {
						t.Errorf("ω %v ε %v i %d: Σ = %v, RDPSpent = %v, αε = %v", omega, eps, i, sum, want, alpha*eps)
					}
				}
			}
		}
	}
}

// I6: projections land in the domain, are idempotent and non-expansive (1e-12).
func TestDomains(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := rapid.IntRange(1, 6).Draw(t, "d")
		R := float64(rapid.IntRange(1, 100).Draw(t, "R·10")) / 10
		dom := rapid.SampledFrom([]Domain{Box{R: R}, Ball{R: R}, Whole{}}).Draw(t, "domain")
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 3))
		x, y := make([]float64, d), make([]float64, d)
		for j := range x {
			x[j], y[j] = 3*R*r.NormFloat64(), 3*R*r.NormFloat64()
		}
		before := floats.Distance(x, y, 2)
		px, py := slices.Clone(x), slices.Clone(y)
		dom.Project(px)
		dom.Project(py)
		again := slices.Clone(px)
		dom.Project(again)
		if !dom.Contains(px, 1e-12) || !slices.Equal(again, px) || floats.Distance(px, py, 2) > before+1e-12 {
			t.Fatalf("%T: Π x = %v (again %v), ‖Πx − Πy‖ = %v against %v", dom, px, again, floats.Distance(px, py, 2), before)
		}
		if _, ok := dom.(Whole); !ok && floats.Distance(px, py, 2) > dom.Diameter(d)+1e-12 {
			t.Fatalf("two projected points %v apart, diameter %v", floats.Distance(px, py, 2), dom.Diameter(d))
		}
	})
}

// ogdStep is one projected gradient step from x.
func ogdStep(dom Domain, f Cost, x []float64, eta float64) []float64 {
	g := make([]float64, len(x))
	f.Gradient(g, x)
	y := slices.Clone(x)
	floats.AddScaled(y, -eta, g)
	dom.Project(y)
	return y
}

// I7, I8: one step from a point of the domain moves at most ηL (C3); two points' steps are
// at most GammaStep(η, μ, β) times as far apart (C2, the corrected coefficient), on
// quadratics with curvatures in [μ, β] at steps up to 2/β.
func TestStepSensitivityAndContraction(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pr := drawQuad(t, StronglyConvexSteps)
		d := len(pr.cfg.X0)
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "points"), 4))
		x, y := make([]float64, d), make([]float64, d)
		R := pr.cfg.Domain.(Box).R
		for j := range x {
			x[j], y[j] = R*(2*r.Float64()-1), R*(2*r.Float64()-1)
		}
		eta := 2 / pr.cfg.Beta * float64(rapid.IntRange(1, 100).Draw(t, "η·β/2·100")) / 100
		f := pr.stream[0]
		fx, fy := ogdStep(pr.cfg.Domain, f, x, eta), ogdStep(pr.cfg.Domain, f, y, eta)
		if m := floats.Distance(fx, x, 2); m > eta*pr.cfg.Lipschitz+1e-12 {
			t.Fatalf("a step moved %v > ηL = %v", m, eta*pr.cfg.Lipschitz)
		}
		g := GammaStep(eta, pr.cfg.Mu, pr.cfg.Beta)
		// rounding: a step computes each coordinate to within a few ulps of the box's scale R
		if gap := floats.Distance(fx, fy, 2); gap > g*floats.Distance(x, y, 2)*(1+1e-9)+1e-14*(1+R) {
			t.Fatalf("steps %v apart from %v: more than GammaStep %v", gap, floats.Distance(x, y, 2), g)
		}
	})
}

// I9: noiseless descent with and without f_u (⊥ at u) coincide before u and are at most
// Γ(u, t)·η_u L apart at every t ≥ u (relative 1e-9), the per-step product of the
// corrected coefficient.
func TestTwoTrajectories(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pr := drawQuad(t, StepKind(rapid.IntRange(0, 1).Draw(t, "steps")))
		T := len(pr.stream)
		u := rapid.IntRange(1, T).Draw(t, "u")
		cfg := pr.cfg
		cfg.KeepStates = true
		if cfg.Steps.Kind == ConvexSteps {
			cfg.Mu = 0 // the contraction of merely convex costs
		}
		a, err := OGD(context.Background(), cfg, pr.stream)
		if err != nil {
			t.Fatal(err)
		}
		b, err := OGD(context.Background(), cfg, Without(pr.stream, Schedule{{U: u, Tau: u}}, 1))
		if err != nil {
			t.Fatal(err)
		}
		for s := 0; s <= T; s++ {
			gap := floats.Distance(a.States[s], b.States[s], 2)
			if s < u {
				if gap != 0 {
					t.Fatalf("x_%d differs before u = %d", s, u)
				}
				continue
			}
			bound := Contraction(PerStep, a.Etas, u, s, cfg.Mu, cfg.Beta) * a.Etas[u-1] * cfg.Lipschitz
			if gap > bound*(1+1e-9)+1e-300 {
				t.Fatalf("t = %d: gap %v above Γ(u, t)·η_u L = %v", s, gap, bound)
			}
		}
	})
}

// Every cost's gradient is the derivative of its value and its Hessian the derivative of
// its gradient: central differences at h = 1e-6, relative tolerance 1e-6 (the truncation
// error is O(h²) times the third derivative, the rounding O(ε_mach/h)).
func TestCostDerivatives(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	const d = 4
	vec := func(s float64) []float64 {
		v := make([]float64, d)
		for j := range v {
			v[j] = s * r.NormFloat64()
		}
		return v
	}
	costs := map[string]Cost{
		"quadratic":     Quadratic{A: []float64{0.5, 1, 2, 3}, C: vec(1)},
		"least squares": LeastSquares{A: vec(0.5), B: 0.7},
		"linear":        Linear{G: vec(1), Offset: 2},
		"logistic":      Example{Loss: reference.Logistic{Lambda: 0.1}, X: vec(0.5), Y: -1},
		"ridge":         Example{Loss: reference.Ridge{Lambda: 0.1}, X: vec(0.5), Y: 0.3},
	}
	for name, f := range costs {
		z := vec(1)
		g, gp, gm := make([]float64, d), make([]float64, d), make([]float64, d)
		f.Gradient(g, z)
		H := mat.NewSymDense(d, nil)
		f.Hessian(H, z)
		const h = 1e-6
		for j := range d {
			zp, zm := slices.Clone(z), slices.Clone(z)
			zp[j] += h
			zm[j] -= h
			if fd := (f.Value(zp) - f.Value(zm)) / (2 * h); math.Abs(fd-g[j]) > 1e-6*(1+math.Abs(g[j])) {
				t.Errorf("%s: ∂f/∂z_%d = %v, differences give %v", name, j, g[j], fd)
			}
			f.Gradient(gp, zp)
			f.Gradient(gm, zm)
			for i := range d {
				if fd := (gp[i] - gm[i]) / (2 * h); math.Abs(fd-H.At(i, j)) > 1e-6*(1+math.Abs(H.At(i, j))) {
					t.Errorf("%s: H[%d][%d] = %v, differences give %v", name, i, j, H.At(i, j), fd)
				}
			}
		}
	}
}
