package oluaudit

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/internal/fexp"

	"github.com/unlearnaudit/unlearnaudit/audit/estimate"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/olu"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// A ContractionCase is one instance of the contraction audit: a stream, passive requests
// whose deleted rounds all come before the first request is served, and the learner.
// Before the first τ both worlds are deterministic, so the laws at every τ_i are
// Gaussian with the same covariance exactly when one request is served or when every
// step after the first τ is affine (quadratic costs on the whole space) — the two
// settings in which ContractionAudit computes the divergence in closed form.
type ContractionCase struct {
	Name, About string
	Stream      []olu.Cost
	Sched       olu.Schedule
	Config      olu.Config // its Contraction is set by the audit, once per reading
}

// A ContractionReading is passive OLU run with one reading of the contraction.
type ContractionReading struct {
	Mode   olu.ContractionMode
	Sigmas []float64 // σ_1..σ_k as the reading sizes them
	// Exact is D_α/α between the output at τ_i and its reference's, in closed form (the
	// same at every α: equal covariances); Budget the accountant's ε(ω−1)/ω·H_ω(i).
	Exact, Budget []float64
	// Estimate is the Gaussian estimator's D₂ between samples of the last outputs (each
	// side's N runs with fresh noise), pooled covariance; Resolved is false when the noise
	// is below float64's resolution of the state, so that each side's outputs are one point.
	Estimate estimate.Estimate
	Resolved bool
}

// ContractionResult is the audit of one case.
type ContractionResult struct {
	Case ContractionCase
	// Gaps are ‖x_t − x′_t‖ for t = u_1..τ_1 between the run and the run without f_{u_1}
	// (two online descents differing in one round, no noise); Paper is γ^{t−u_1}·Gaps[0]
	// and Valid Γ(u_1, t)·Gaps[0], what each reading says the gap can be at most.
	Gaps, Paper, Valid []float64
	Gamma              float64 // the paper's γ = (β/μ − 1)/(β/μ + 1) (1 when μ = 0)
	Readings           []ContractionReading
	Samples            int // outputs drawn per side for the estimates
}

// ContractionAudit runs the case with the paper's γ and with the valid per-step
// contraction: it measures the gap between two trajectories differing in the first
// deleted round, computes each reading's σ and the exact divergence of the outputs at
// every τ_i from the noise-free trajectories (their means) and the propagated noise
// variances, and estimates the last divergence from samples outputs per side.
func ContractionAudit(ctx context.Context, c ContractionCase, samples int, seed uint64) (*ContractionResult, error) {
	if samples < 10 {
		return nil, fmt.Errorf("olu contraction %s: %d samples per side; want at least 10", c.Name, samples)
	}
	nl, err := newNoiseless(ctx, c)
	if err != nil {
		return nil, err
	}
	base, k := nl.base, len(c.Sched)
	cfg := c.Config
	res := &ContractionResult{Case: c, Samples: samples, Gamma: olu.Contraction(olu.PaperGamma, base.Etas, 0, 1, cfg.Mu, cfg.Beta)}
	u, tau := c.Sched[0].U, c.Sched[0].Tau
	for t := u; t <= tau; t++ {
		res.Gaps = append(res.Gaps, reference.Distance(base.States[t], nl.refs[0].States[t]))
		res.Paper = append(res.Paper, res.Gaps[0]*olu.Contraction(olu.PaperGamma, base.Etas, u, t, cfg.Mu, cfg.Beta))
		res.Valid = append(res.Valid, res.Gaps[0]*olu.Contraction(olu.PerStep, base.Etas, u, t, cfg.Mu, cfg.Beta))
	}
	for ri, mode := range []olu.ContractionMode{olu.PaperGamma, olu.PerStep} {
		cfg := c.Config
		cfg.Contraction = mode
		plan, err := olu.Passive(ctx, cfg, c.Stream, c.Sched, reference.Stream(seed, 0, "olu-contraction/plan"))
		if err != nil {
			return nil, fmt.Errorf("olu contraction %s: %w", c.Name, err)
		}
		rd := ContractionReading{Mode: mode, Sigmas: plan.Sigmas(), Exact: nl.divergences(c, plan.Sigmas())}
		for i := range k {
			rd.Budget = append(rd.Budget, olu.RDPSpent(1, cfg.Epsilon, cfg.Omega, i+1))
		}
		dim := len(cfg.X0)
		a, b := mat.NewDense(samples, dim, nil), mat.NewDense(samples, dim, nil)
		realPurpose := fmt.Sprintf("olu-contraction/%s/%d/real", c.Name, ri)
		refPurpose := fmt.Sprintf("olu-contraction/%s/%d/reference", c.Name, ri)
		for n := range samples {
			r := reference.Stream(seed, n, realPurpose)
			run, err := olu.Passive(ctx, cfg, c.Stream, c.Sched, r)
			if err != nil {
				return nil, err
			}
			a.SetRow(n, run.Served[k-1].Noisy)
			r = reference.Stream(seed, n, refPurpose)
			ref, err := olu.Reference(ctx, cfg, c.Stream, c.Sched, k, rd.Sigmas, r)
			if err != nil {
				return nil, err
			}
			b.SetRow(n, ref.Served[k-1].Noisy)
		}
		rd.Resolved = spread(a) > 0 && spread(b) > 0
		if rd.Resolved {
			if rd.Estimate, err = estimate.Gauss(a, b, estimate.Options{Alpha: 2, Covariance: estimate.Pooled, Seed: seed}); err != nil {
				return nil, fmt.Errorf("olu contraction %s: %w", c.Name, err)
			}
		}
		res.Readings = append(res.Readings, rd)
	}
	return res, nil
}

// spread is the largest difference between two rows' coordinates: 0 when every row is
// the same point.
func spread(m *mat.Dense) float64 {
	n, d := m.Dims()
	out := 0.0
	for j := range d {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range n {
			lo, hi = math.Min(lo, m.At(i, j)), math.Max(hi, m.At(i, j))
		}
		out = math.Max(out, hi-lo)
	}
	return out
}

// ExactDivergence is D_α/α (the same at every α) between the outputs at each τ_i of
// passive OLU with noise scales sigmas and of Definition 2's reference for request i, in
// closed form: the case's deleted rounds must all come before its first request is
// served, and with more than one request every step after that must be affine (quadratic
// costs on the whole space). It is what ContractionAudit computes for each reading, for
// any implementation's σ_i.
func ExactDivergence(ctx context.Context, c ContractionCase, sigmas []float64) ([]float64, error) {
	if len(sigmas) != len(c.Sched) {
		return nil, fmt.Errorf("olu exact divergence %s: %d noise scales for %d requests", c.Name, len(sigmas), len(c.Sched))
	}
	nl, err := newNoiseless(ctx, c)
	if err != nil {
		return nil, err
	}
	return nl.divergences(c, sigmas), nil
}

// noiseless are the noise-free runs the closed form rests on: the run with every
// function, its states kept, and for each request i the run with the first i deleted
// functions ⊥ — each output's mean.
type noiseless struct {
	base *olu.Run
	refs []*olu.Run
}

// newNoiseless checks that the case's laws are Gaussian with equal covariances (every
// deleted round before the first τ; with several requests, affine steps after it) and
// runs its noise-free trajectories.
func newNoiseless(ctx context.Context, c ContractionCase) (*noiseless, error) {
	k := len(c.Sched)
	if k == 0 {
		return nil, fmt.Errorf("olu contraction %s: no requests", c.Name)
	}
	taus := c.Sched.Taus()
	first, last := slices.Min(taus), slices.Max(taus)
	for i, q := range c.Sched {
		if q.U >= first {
			return nil, fmt.Errorf("olu contraction %s: request %d deletes round %d, not before the first request's round %d", c.Name, i+1, q.U, first)
		}
	}
	if k > 1 {
		_, whole := c.Config.Domain.(olu.Whole)
		for s := first + 1; s <= last; s++ {
			if _, ok := c.Stream[s-1].(olu.Quadratic); !ok || !whole {
				return nil, fmt.Errorf("olu contraction %s: round %d after the first request is not an affine step (a quadratic cost on the whole space): the laws are not Gaussian", c.Name, s)
			}
		}
	}
	cfg := c.Config
	cfg.KeepStates = true
	nl := &noiseless{refs: make([]*olu.Run, k)}
	var err error
	if nl.base, err = olu.OGD(ctx, cfg, c.Stream); err != nil {
		return nil, fmt.Errorf("olu contraction %s: %w", c.Name, err)
	}
	for i := range nl.refs {
		if nl.refs[i], err = olu.OGD(ctx, cfg, olu.Without(c.Stream, c.Sched, i+1)); err != nil {
			return nil, fmt.Errorf("olu contraction %s: %w", c.Name, err)
		}
	}
	return nl, nil
}

// divergences is D_α/α at each τ_i for noise scales sigmas: ½ Σ_j (m_j − m′_j)²/V_j over
// exactLaws' means and variances.
func (nl *noiseless) divergences(c ContractionCase, sigmas []float64) []float64 {
	out := make([]float64, len(sigmas))
	for i := range sigmas {
		diff, v := exactLaws(c, nl.base, nl.refs[i], sigmas[:i+1])
		for j := range diff {
			out[i] += diff[j] * diff[j] / (2 * v[j])
		}
	}
	return out
}

// exactLaws are the outputs' laws at τ_i (i = len(sigmas)): N(m, V) and N(m′, V) with m,
// m′ the noise-free states (their difference returned) and V diagonal,
// Σ_l σ_l² Π_{s=τ_l+1}^{τ_i} (1 − η_s a_s)² per coordinate. newNoiseless has checked that
// the steps in that product are quadratic.
func exactLaws(c ContractionCase, base, ref *olu.Run, sigmas []float64) (diff, v []float64) {
	i := len(sigmas)
	tau := c.Sched[i-1].Tau
	d := len(c.Config.X0)
	v = make([]float64, d)
	for l := range i {
		for j := range d {
			g := 1.0
			for s := c.Sched[l].Tau + 1; s <= tau; s++ {
				f := 1 - base.Etas[s-1]*c.Stream[s-1].(olu.Quadratic).A[j]
				g *= f * f
			}
			v[j] += sigmas[l] * sigmas[l] * g
		}
	}
	diff = make([]float64, d)
	for j := range d {
		diff[j] = base.States[tau][j] - ref.States[tau][j]
	}
	return diff, v
}

// The Gaussian estimate's power (ContractionFindings): along the mean difference the
// estimate is, by the normal approximation, Δ̂ ~ N(Δ, 2/N) in units of the noise, and
// D₂/2 = Δ²/2; it shows D/α above ε when Δ̂ − z·√(2/N) > √(2ε) (z = 1.96 for the 95 %
// interval's lower end).
func contractionPower(eps float64, n int, against float64) verdict.Power {
	se := math.Sqrt(2 / float64(n))
	z, z80 := distuv.UnitNormal.Quantile(0.975), distuv.UnitNormal.Quantile(0.8)
	power := distuv.UnitNormal.CDF((math.Sqrt(2*against*eps)-math.Sqrt(2*eps))/se - z)
	smallest := fexp.Pow(math.Sqrt(2*eps)+(z+z80)*se, 2) / (2 * eps)
	p := verdict.Power{Against: against, Power: power, SmallestFactor: smallest}
	if power < verdict.PowerTarget {
		p.TrialsNeeded = int(math.Ceil(2 * fexp.Pow((z+z80)/(math.Sqrt(2*against*eps)-math.Sqrt(2*eps)), 2)))
	}
	return p
}

// readingName is a reading's name in check identifiers.
func readingName(m olu.ContractionMode) string {
	if m == olu.PaperGamma {
		return "paper"
	}
	return "corrected"
}

// Findings states the case's evidence against its claims: the measured contraction
// against γ^{τ−u} (Corollary 1, the paper's) and Γ(u, τ) (the valid product); per
// reading, the exact divergence at every τ_i and the estimated one at τ_k against the
// claimed ε per order (Theorem 1: D_α ≤ αε). Checks of the paper's reading carry
// "/paper" in their name: they are claims under test, reported rather than judged.
func (r *ContractionResult) Findings() []verdict.Finding {
	c := r.Case
	cfg := c.Config
	eps := cfg.Epsilon
	name := "olu-contraction/" + c.Name
	ell := len(r.Gaps) - 1
	ratio := r.Gaps[ell] / r.Gaps[0]
	q := c.Sched[0]
	fs := []verdict.Finding{
		verdict.Deterministic(name+"/paper/gamma", fmt.Sprintf("Corollary 1: two descents differing in round u contract by γ^{τ−u} (γ = %.4g)", r.Gamma), verdict.Certificate,
			ratio, r.Paper[ell]/r.Gaps[0], 1, fmt.Sprintf("‖x_τ − x′_τ‖/‖x_u − x′_u‖ = %.4g/%.4g over τ − u = %d rounds (u = %d, τ = %d); γ^{τ−u} = %.4g", r.Gaps[ell], r.Gaps[0], ell, q.U, q.Tau, r.Paper[ell]/r.Gaps[0])),
		verdict.Deterministic(name+"/corrected/gamma", "the same contraction within the per-step product Γ(u, τ) = Π max(|1 − η_s μ|, |1 − η_s β|)", verdict.Certificate,
			ratio, r.Valid[ell]/r.Gaps[0], 1, fmt.Sprintf("Γ(%d, %d) = %.4g", q.U, q.Tau, r.Valid[ell]/r.Gaps[0])),
	}
	for _, rd := range r.Readings {
		rn := readingName(rd.Mode)
		worst, at := 0.0, 0
		for i, d := range rd.Exact {
			if d > worst || math.IsNaN(d) {
				worst, at = d, i
			}
		}
		fs = append(fs, verdict.Deterministic(name+"/"+rn+"/exact", fmt.Sprintf("%s σ: the outputs' exact D_α/α at every request's round, at most the claimed ε", rd.Mode), verdict.Certificate,
			worst, eps, len(rd.Exact), fmt.Sprintf("largest at request %d (τ = %d): σ = %.4g, D_α/α = %.4g against the accountant's ε(ω−1)/ω·H_ω(%d) = %.4g and ε = %.4g; the laws are Gaussian with equal covariances, so D_α/α is the same at every α",
				at+1, c.Sched[at].Tau, rd.Sigmas[at], worst, at+1, rd.Budget[at], eps)))
		f := verdict.Finding{Check: name + "/" + rn + "/estimate", Title: fmt.Sprintf("%s σ: the Gaussian estimator's D₂/2 between %d outputs per side at the last request's round, at most ε", rd.Mode, r.Samples),
			Kind: verdict.Empirical, Bound: eps, Comparison: "≤", Confidence: 0.975, Trials: r.Samples}
		p := contractionPower(eps, r.Samples, 2)
		f.Power = &p
		if !rd.Resolved {
			// each side's outputs are one point (the noise vanished in rounding): the laws are distinct points
			f.Measured, f.Verdict = math.Inf(1), verdict.Fail
			f.Detail = fmt.Sprintf("σ_k = %.3g is below float64's resolution of the state: every output of a side is the same point, and the two sides' differ, so D = ∞", rd.Sigmas[len(rd.Sigmas)-1])
		} else {
			e := rd.Estimate
			f.Measured = e.Value / 2
			f.Interval = &verdict.Interval{Lower: e.Interval.Lower / 2, Upper: e.Interval.Upper / 2}
			switch {
			case f.Interval.Lower > eps:
				f.Verdict = verdict.Fail
			case p.Sufficient():
				f.Verdict = verdict.Pass
			default:
				f.Verdict, f.TrialsNeeded = verdict.Inconclusive, p.TrialsNeeded
			}
			f.Detail = fmt.Sprintf("pooled-covariance Gaussian fit, 95 %% bootstrap interval; exact value %.4g; %s", rd.Exact[len(rd.Exact)-1], p.Summary())
		}
		fs = append(fs, f)
	}
	return fs
}

// VisitedLipschitz is the largest gradient norm ‖∇f_s(x_{s−1})‖ that the noise-free
// runs meet: the run with every function and, for each i, the run without the first i
// requests' functions, at every round each plays. When every deleted round is played
// before any noise, it is the sensitivity bound the accountant needs: deleting round u_j
// on top of the first j − 1 deletions moves the state by η_{u_j} times f_{u_j}'s gradient
// at the state of the run without those j − 1 — a point the run with every function need
// not visit (a large early step can leave the two far apart), so its gradients alone do
// not bound it.
func VisitedLipschitz(ctx context.Context, cfg olu.Config, stream []olu.Cost, sched olu.Schedule) (float64, error) {
	cfg.KeepStates = true
	L := 0.0
	g := make([]float64, len(cfg.X0))
	for i := 0; i <= len(sched); i++ {
		s := olu.Without(stream, sched, i)
		run, err := olu.OGD(ctx, cfg, s)
		if err != nil {
			return 0, fmt.Errorf("olu visited Lipschitz: %w", err)
		}
		for t, f := range s {
			if f == nil {
				continue
			}
			f.Gradient(g, run.States[t])
			L = math.Max(L, reference.Norm(g))
		}
	}
	return L, nil
}

// ContractionCases are the audit's instances, each with η_t = 1/(μt) (Theorem 2's steps)
// unless it says otherwise:
//
//   - spec-1d: the spec's check of erratum 1 (olu §3.2) — f_t = ½(z − c_t)², μ = 1, β = 3
//     declared, K = [−5, 5], u = 4, τ = 20, ε = 1, ω = 1.2;
//   - quadratic-5d: ½Σ_j a_tj (z_j − c_tj)² with a_tj in [μ, β] = [0.5, 2], c_tj in
//     [−1, 1], on the whole space, three requests (u = 5, 10, 15 served at 30, 40, 50):
//     exact laws at every τ_i;
//   - quadratic-5d-constant: the same stream at the constant step 2/(β + μ), the one step
//     at which the paper's γ is the true per-step contraction (u = 5, 8, 11 served at 14,
//     17, 20);
//   - breast-cancer: L2-logistic costs (λ = lambda) of the first 150 rows of
//     breastCancer (nil leaves the case out) on the ball of radius ‖x‖max/λ, which holds
//     every minimiser, u = 100, τ = 150.
//
// The quadratics' L is VisitedLipschitz: their gradients are unbounded on the whole space,
// and every deleted round is played before any noise, so the largest gradient the
// noise-free runs meet is the sensitivity the accountant needs; the 1-D case's and the
// logistic case's are global Lipschitz constants on their domains.
func ContractionCases(breastCancer *reference.Dataset, lambda float64) ([]ContractionCase, error) {
	var out []ContractionCase
	// spec-1d
	stream := make([]olu.Cost, 30)
	for s := range stream {
		c := 0.5 * math.Sin(float64(s))
		switch {
		case s < 3:
			c = -1.0 / 3
		case s == 3:
			c = 5
		}
		stream[s] = olu.Quadratic{A: []float64{1}, C: []float64{c}}
	}
	out = append(out, ContractionCase{Name: "spec-1d", About: "the spec's erratum-1 instance: 1-D ½(z − c_t)², μ = 1, β = 3 declared, K = [−5, 5], η_t = 1/t, u = 4, τ = 20",
		Stream: stream, Sched: olu.Schedule{{U: 4, Tau: 20}},
		Config: olu.Config{X0: []float64{0}, Domain: olu.Box{R: 5}, Steps: olu.Steps{Kind: olu.StronglyConvexSteps, Mu: 1}, Lipschitz: 10, Mu: 1, Beta: 3, Epsilon: 1, Omega: 1.2}})
	// the 5-d quadratics
	const d, T, mu, beta = 5, 60, 0.5, 2.0
	r := reference.Stream(7, 0, "olu-contraction/quadratics")
	quads := make([]olu.Cost, T)
	for t := range quads {
		q := olu.Quadratic{A: make([]float64, d), C: make([]float64, d)}
		for j := range d {
			q.A[j] = mu + (beta-mu)*r.Float64()
			q.C[j] = 2*r.Float64() - 1
		}
		quads[t] = q
	}
	for _, sc := range []struct {
		name, about string
		steps       olu.Steps
		sched       olu.Schedule
	}{
		{"quadratic-5d", "5-d quadratics with curvatures in [0.5, 2] on the whole space, η_t = 1/(μt), rounds 5, 10, 15 deleted at 30, 40, 50",
			olu.Steps{Kind: olu.StronglyConvexSteps, Mu: mu}, olu.Schedule{{U: 5, Tau: 30}, {U: 10, Tau: 40}, {U: 15, Tau: 50}}},
		{"quadratic-5d-constant", "the same stream at the constant step η = 2/(β + μ), where the paper's γ is exact, rounds 5, 8, 11 deleted at 14, 17, 20",
			olu.Steps{Kind: olu.ConstantSteps, Eta: 2 / (beta + mu)}, olu.Schedule{{U: 5, Tau: 14}, {U: 8, Tau: 17}, {U: 11, Tau: 20}}},
	} {
		cfg := olu.Config{X0: make([]float64, d), Domain: olu.Whole{}, Steps: sc.steps, Mu: mu, Beta: beta, Epsilon: 1, Omega: 1.2}
		L, err := VisitedLipschitz(context.Background(), cfg, quads, sc.sched)
		if err != nil {
			return nil, err
		}
		cfg.Lipschitz = L
		out = append(out, ContractionCase{Name: sc.name, About: sc.about, Stream: quads, Sched: sc.sched, Config: cfg})
	}
	if breastCancer != nil {
		n := min(breastCancer.Len(), 150)
		head, err := breastCancer.Subset(breastCancer.IDs()[:n])
		if err != nil {
			return nil, err
		}
		loss := reference.Logistic{Lambda: lambda}
		radius := head.MaxRowNorm() / lambda // the minimisers' ball: ‖w*‖ ≤ ‖x‖max/λ
		consts := loss.Constants(head, radius)
		out = append(out, ContractionCase{Name: "breast-cancer", About: fmt.Sprintf("L2-logistic costs of the first %d breast cancer rows (λ = %g) on the ball of radius ‖x‖max/λ, η_t = 1/(λt), u = 100, τ = 150", n, lambda),
			Stream: Stream(loss, head), Sched: olu.Schedule{{U: min(100, n-1), Tau: n}},
			Config: olu.Config{X0: make([]float64, head.Dim()), Domain: olu.Ball{R: radius}, Steps: olu.Steps{Kind: olu.StronglyConvexSteps, Mu: lambda},
				Lipschitz: consts.Lipschitz, Mu: lambda, Beta: consts.Smoothness, Epsilon: 1, Omega: 1.2}})
	}
	return out, nil
}
