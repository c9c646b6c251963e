package oluaudit

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/olu"
	"gonum.org/v1/gonum/floats"
)

// Variant names the OLU algorithm a subject runs.
const (
	Passive = "passive" // Algorithm 1
	Active  = "active"  // Algorithm 2
)

// Setup is one OLU audit: a dataset's rows arriving one a round as logistic costs, the
// deletion requests, and the learner. Config.Epsilon is the OLU target ρ (outputs within
// D_α ≤ αρ of the reference at every order); Epsilon and Delta are the (ε, δ) it is
// claimed to give (ρ-zCDP's conversion).
type Setup struct {
	Variant        string
	Loss           reference.Logistic
	Data           *reference.Dataset // round t's cost is row t−1's loss
	Sched          olu.Schedule
	Config         olu.Config
	Epsilon, Delta float64
	Seed           uint64
}

// RhoFor is the ρ whose zCDP conversion ρ + 2√(ρ ln(1/δ)) is ε: the Rényi target an OLU
// must meet to claim (ε, δ).
func RhoFor(epsilon, delta float64) float64 {
	l := math.Log(1 / delta)
	x := -math.Sqrt(l) + math.Sqrt(l+epsilon) // √ρ solves x² + 2x√l − ε = 0
	return x * x
}

// Subject is an OLU audit subject (audit.Subject). Each trial runs the algorithm over the
// whole stream with the trial's noise and publishes its state after the last request,
// before the projection (which is post-processing); the retrained side is the paper's
// reference: the same algorithm on the stream with the deleted functions ⊥ and the same
// noise scales at the same rounds (Definition 2). Passive subjects serve every request at
// one round, so that the published laws are exactly Gaussian; active subjects serve them
// one at a time, and their descent phases leave the last request's shift within a_k from
// any state.
type Subject struct {
	setup  Setup
	stream []olu.Cost
	active olu.ActiveConfig
	plan   *olu.Run // the algorithm's run with the subject's own noise: σ's and checks
	sigma  float64  // the last round's total noise
	fp     string
}

// NewSubject validates the setup and plans the run.
func NewSubject(ctx context.Context, s Setup) (*Subject, error) {
	if s.Variant != Passive && s.Variant != Active {
		return nil, fmt.Errorf("olu: variant %q: want %q or %q", s.Variant, Passive, Active)
	}
	if len(s.Sched) == 0 {
		return nil, fmt.Errorf("olu: no deletion requests")
	}
	sub := &Subject{setup: s, stream: Stream(s.Loss, s.Data), active: olu.ActiveConfig{Config: s.Config}}
	var err error
	if sub.plan, err = sub.runWith(ctx, reference.Stream(s.Seed, 0, "olu/plan")); err != nil {
		return nil, err
	}
	last := sub.plan.Served[len(sub.plan.Served)-1]
	if s.Variant == Passive {
		v := 0.0
		for _, sv := range sub.plan.Served {
			if sv.Tau == last.Tau {
				v += sv.Sigma * sv.Sigma
			}
		}
		sub.sigma = math.Sqrt(v)
	} else {
		sub.sigma = last.Sigma
	}
	sub.fp = fingerprint(s)
	return sub, nil
}

// Stream is the dataset's rows as logistic costs, one a round.
func Stream(loss reference.Logistic, data *reference.Dataset) []olu.Cost {
	out := make([]olu.Cost, data.Len())
	for i := range out {
		rec := data.Record(i)
		out[i] = olu.Example{Loss: loss, X: rec.X, Y: rec.Y}
	}
	return out
}

func fingerprint(s Setup) string {
	h := sha256.New()
	fmt.Fprintf(h, "olu|%s|%s|%v|%v|%v|%v|%v|%v|%v|%v|%v|%v\n", s.Variant, s.Loss.Name(), s.Sched, s.Config.X0, s.Config.Domain, s.Config.Steps,
		s.Config.Lipschitz, s.Config.Mu, s.Config.Beta, s.Config.Epsilon, s.Config.Omega, s.Config.Contraction)
	var b [8]byte
	for i := range s.Data.Len() {
		rec := s.Data.Record(i)
		for _, v := range append(slices.Clone(rec.X), rec.Y) {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			h.Write(b[:])
		}
	}
	io.WriteString(h, "\n")
	return hex.EncodeToString(h.Sum(nil))
}

// Name is "olu/passive" or "olu/active".
func (s *Subject) Name() string { return "olu/" + s.setup.Variant }

// Fingerprint identifies the setup and the data for checkpoints.
func (s *Subject) Fingerprint() string { return s.fp }

// runWith runs the subject's algorithm over its stream with noise from r.
func (s *Subject) runWith(ctx context.Context, r *rand.Rand) (*olu.Run, error) {
	if s.setup.Variant == Active {
		return olu.Active(ctx, s.active, s.stream, s.setup.Sched, r)
	}
	return olu.Passive(ctx, s.setup.Config, s.stream, s.setup.Sched, r)
}

// reference runs Definition 2's reference for the last request with noise from r.
func (s *Subject) reference(ctx context.Context, r *rand.Rand) (*olu.Run, error) {
	k := len(s.setup.Sched)
	if s.setup.Variant == Active {
		return olu.ActiveReference(ctx, s.active, s.stream, s.setup.Sched, k, s.plan, r)
	}
	return olu.Reference(ctx, s.setup.Config, s.stream, s.setup.Sched, k, s.plan.Sigmas(), r)
}

// Unlearned runs the algorithm with the trial's noise.
func (s *Subject) Unlearned(ctx context.Context, st reference.Streams) (reference.Release, error) {
	run, err := s.runWith(ctx, st.Rand("olu/unlearned"))
	if err != nil {
		return reference.Release{}, err
	}
	return s.publish(run), nil
}

// Retrained runs the reference with the trial's noise.
func (s *Subject) Retrained(ctx context.Context, st reference.Streams) (reference.Release, error) {
	ref, err := s.reference(ctx, st.Rand("olu/retrained"))
	if err != nil {
		return reference.Release{}, err
	}
	return s.publish(ref), nil
}

// publish is the state with the last round's noise, before the projection, and the state
// before that noise.
func (s *Subject) publish(run *olu.Run) reference.Release {
	last := run.Served[len(run.Served)-1]
	secret := slices.Clone(last.Noisy)
	for _, sv := range run.Served {
		if sv.Tau == last.Tau {
			floats.Sub(secret, sv.Noise)
		}
	}
	return reference.Release{Published: slices.Clone(last.Noisy), Secret: secret}
}

// Claim is Theorem 1 (passive) or Theorem 6 (active) with its derivation.
func (s *Subject) Claim() audit.Claim {
	c := s.setup
	cfg := c.Config
	k := len(c.Sched)
	name, source := "OLU, passive (Algorithm 1): online gradient descent unchanged, Gaussian noise at each request's round",
		"Hu, Schölkopf, Sanyal 2025, Theorem 1: an (α, αε)-OLU at every order α > 1, with the contraction corrected (spec olu §3.2)"
	if c.Variant == Active {
		name, source = "OLU, active (Algorithm 2): at each request, descent on every function seen, then on those kept, then Gaussian noise",
			"Hu, Schölkopf, Sanyal 2025, Theorem 6: an (α, αε)-OLU at every order α > 1, noise sized by the spec's valid shift (olu §3.4)"
	}
	derivation := []audit.Step{{Quantity: "ρ", Formula: "the OLU target: ρ + 2√(ρ ln(1/δ)) = ε (zCDP to (ε, δ))", Value: cfg.Epsilon}}
	for i, sv := range s.plan.Served {
		derivation = append(derivation, audit.Step{Quantity: fmt.Sprintf("σ_%d", i+1),
			Formula: fmt.Sprintf("B(%d, ω, ρ)·a_%d, a_%d = %.4g (u = %d, τ = %d)", i+1, i+1, i+1, sv.Shift, sv.U, sv.Tau), Value: sv.Sigma})
	}
	derivation = append(derivation, audit.Step{Quantity: "σ of the last round", Formula: "√(Σ σ_i²) over the requests served at the last request's round", Value: s.sigma})
	return audit.Claim{
		Method: name, Source: source,
		Guarantee: "(α, αρ)-OLU (Definition 2), converted to (ε, δ)",
		Required:  audit.StateHolding,
		Epsilon:   c.Epsilon, Delta: c.Delta, Rho: cfg.Epsilon,
		Relation: fmt.Sprintf("the state after the last of %d requests, before the projection, against the same algorithm run on the stream with the deleted functions replaced by ⊥ in place, with the same step sizes and the same noise scales at the same rounds (Definition 2's reference)", k),
		Assumptions: []string{
			fmt.Sprintf("each cost is L-Lipschitz on the domain with L = %.4g, and its Hessian's spectrum lies in [μ, β] = [%.4g, %.4g] (logistic loss with ‖x‖ ≤ 1 and λ = μ)", cfg.Lipschitz, cfg.Mu, cfg.Beta),
			"the adversary is oblivious: the stream and the requests are fixed before the run",
			"the requests (u, τ) are public, as the paper assumes",
		},
		Constants: []audit.Value{{Name: "T (rounds)", Value: float64(len(s.stream))}, {Name: "d", Value: float64(len(cfg.X0))},
			{Name: "k (requests)", Value: float64(k)}, {Name: "μ", Value: cfg.Mu}, {Name: "β", Value: cfg.Beta}, {Name: "L", Value: cfg.Lipschitz},
			{Name: "ω", Value: cfg.Omega}, {Name: "domain radius", Value: cfg.Domain.Radius(len(cfg.X0))}},
		Derivation: derivation,
		Notes:      []string{fmt.Sprintf("Step sizes %v; the contraction is the per-step product of max(|1 − ημ|, |1 − ηβ|), not the paper's constant γ = (β/μ − 1)/(β/μ + 1) (erratum 1).", cfg.Steps.Kind)},
	}
}

// Options configure Check.
type Options struct {
	Confidence   float64 // 0 means 0.95
	Seed         uint64
	PowerAgainst float64
	Attacks      audit.Attacks
}

// requiredShifts recomputes each request's shift from public values — the valid
// contraction, whatever the subject was configured with — and its noise.
func (s *Subject) requiredShifts() (shifts, sigmas []float64) {
	cfg := s.setup.Config
	d := len(cfg.X0)
	for i, sv := range s.plan.Served {
		var a float64
		if s.setup.Variant == Active {
			gammaGD := olu.GammaStep(2/(cfg.Beta+cfg.Mu), cfg.Mu, cfg.Beta)
			D := cfg.Domain.Diameter(d)
			I1 := olu.ActiveI1(gammaGD, cfg.Mu, D, cfg.Lipschitz, sv.Tau)
			I2 := olu.ActiveI2(gammaGD, len(s.plan.Served))
			a = olu.ActiveShift(i+1, gammaGD, I1, I2, cfg.Lipschitz, cfg.Mu, D, sv.Tau, olu.Contraction(olu.PerStep, s.plan.Etas, sv.U, sv.Tau, cfg.Mu, cfg.Beta), s.plan.Etas[sv.U-1])
		} else {
			a = olu.Contraction(olu.PerStep, s.plan.Etas, sv.U, sv.Tau, cfg.Mu, cfg.Beta) * s.plan.Etas[sv.U-1] * cfg.Lipschitz
		}
		shifts = append(shifts, a)
		sigmas = append(sigmas, olu.NoiseMultiplier(i+1, cfg.Omega, cfg.Epsilon)*a)
	}
	return shifts, sigmas
}

// Check sets OLU's certificate, implementation, release and attacks side by side:
//
//   - certificate: every σ_i recomputed from public values with the valid contraction
//     (must not exceed the σ used); the accountant's Rényi cost per order against ρ; the
//     shift between a run and its reference sharing their noise, at the last release,
//     against the shift its noise is sized for — with what the paper's γ would charge;
//   - implementation: a run without requests is online descent bit for bit, the noise is
//     k·d draws, every released state lies in the domain;
//   - release: the published laws' divergence at the measured shift (GaussianRelease);
//   - empirical: the distinguishing game and the membership attack, as the attacks ask.
func Check(ctx context.Context, s *Subject, results []audit.TrialResult, opt Options) ([]audit.Finding, error) {
	if len(results) == 0 {
		return nil, fmt.Errorf("olu check: no trials")
	}
	conf := opt.Confidence
	if conf == 0 {
		conf = 0.95
	}
	c := s.setup
	cfg := c.Config
	k := len(s.plan.Served)
	shifts, need := s.requiredShifts()
	worstRatio, neededAt := 0.0, 0
	for i, sv := range s.plan.Served {
		if r := need[i] / sv.Sigma; r > worstRatio || math.IsNaN(r) {
			worstRatio, neededAt = r, i
		}
	}
	fs := []audit.Finding{audit.Deterministic("olu/certificate/sigma", "every σ_i recomputed from public values with the valid contraction, over the σ_i used (at most 1)", audit.Certificate,
		worstRatio, 1, k, fmt.Sprintf("largest at request %d: needed %.4g, used %.4g", neededAt+1, need[neededAt], s.plan.Served[neededAt].Sigma))}
	// the accountant: requests at one round share one noise
	cost := 0.0
	for i := 0; i < k; {
		j := i
		a, v := 0.0, 0.0
		for ; j < k && s.plan.Served[j].Tau == s.plan.Served[i].Tau; j++ {
			a += shifts[j]
			v += s.plan.Served[j].Sigma * s.plan.Served[j].Sigma
		}
		cost += a * a / (2 * v)
		i = j
	}
	fs = append(fs, audit.Deterministic("olu/certificate/accountant", "Theorem 1's accountant: Σ a²/(2σ²) over the rounds with requests (the divergence per order), at most ρ", audit.Certificate,
		cost, cfg.Epsilon, k, fmt.Sprintf("ρ(ω−1)/ω·H_ω(k) = %.4g by construction; ρ = %.4g", olu.RDPSpent(1, cfg.Epsilon, cfg.Omega, k), cfg.Epsilon)))
	// the coupled shift at the last release
	seed := reference.Stream(opt.Seed, 0, "olu/check/coupling").Uint64()
	run, err := s.runWith(ctx, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		return nil, err
	}
	ref, err := s.reference(ctx, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		return nil, err
	}
	gap := reference.Distance(s.publish(run).Secret, s.publish(ref).Secret)
	last := s.plan.Served[k-1]
	charged, paper := 0.0, 0.0
	for i, sv := range s.plan.Served {
		if c.Variant == Active && i < k-1 || sv.Tau != last.Tau {
			continue
		}
		charged += shifts[i]
		paper += olu.Contraction(olu.PaperGamma, s.plan.Etas, sv.U, sv.Tau, cfg.Mu, cfg.Beta) * s.plan.Etas[sv.U-1] * cfg.Lipschitz
	}
	detail := fmt.Sprintf("‖x_τ − x′_τ‖ before the last round's noise, the two runs sharing their noise draws; the paper's γ = %.4g would charge only %.3g (erratum 1)",
		olu.GammaPaperSC(cfg.Beta, cfg.Mu), paper)
	if c.Variant == Active {
		detail = "‖x_τ − x′_τ‖ before the last request's noise, the two runs sharing their noise draws; the descent phases bring any two states within the last request's shift a_k"
	}
	fs = append(fs, audit.Deterministic("olu/certificate/shift", "the shift between the run and its reference at the last release, within the shift its noise is sized for", audit.Certificate,
		gap, charged, 1, detail))
	// implementation
	plain := slices.Clone(s.stream)
	none, err := olu.Passive(ctx, cfg, plain, nil, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		return nil, err
	}
	ogd, err := olu.OGD(ctx, cfg, plain)
	if err != nil {
		return nil, err
	}
	mismatch := 0.0
	if !slices.Equal(none.Final, ogd.Final) || none.Draws != 0 {
		mismatch = 1
	}
	fs = append(fs, audit.Deterministic("olu/implementation/no-requests", "with no request the learner is online gradient descent bit for bit and draws no noise (1: differs)", audit.Implementation,
		mismatch, 0, 1, fmt.Sprintf("%d rounds", len(plain))))
	d := len(cfg.X0)
	outside := 0.0
	for _, sv := range run.Served {
		if !cfg.Domain.Contains(sv.Released, 1e-12) {
			outside++
		}
	}
	fs = append(fs, audit.Deterministic("olu/implementation/noise", "the noise is k·d standard normal draws at the requests' rounds, and every released state lies in the domain (draws off, states outside)", audit.Implementation,
		math.Abs(float64(run.Draws-k*d))+outside, 0, 1, fmt.Sprintf("%d draws for k = %d requests in d = %d", run.Draws, k, d)))
	rel, err := audit.GaussianRelease{Prefix: "olu", Sigma: s.sigma, Rho: cfg.Epsilon, Epsilon: c.Epsilon, Delta: c.Delta, Confidence: conf}.Check(results)
	if err != nil {
		return nil, fmt.Errorf("olu check: %w", err)
	}
	fs = append(fs, rel...)
	if opt.Attacks.Has(audit.GameAttack) {
		emp, err := audit.EmpiricalRelease{Prefix: "olu", Epsilon: c.Epsilon, Delta: c.Delta, Confidence: conf, Seed: opt.Seed, PowerAgainst: opt.PowerAgainst}.Check(results)
		if err != nil {
			return nil, fmt.Errorf("olu check: %w", err)
		}
		fs = append(fs, emp)
	}
	if opt.Attacks.Has(audit.MembershipAttack) {
		var ids []int64
		for _, q := range c.Sched {
			ids = append(ids, c.Data.ID(q.U-1))
		}
		deleted, err := c.Data.Subset(ids)
		if err != nil {
			return nil, err
		}
		mem, err := audit.MembershipRelease{Prefix: "olu", Epsilon: c.Epsilon, Delta: c.Delta, Confidence: conf, Loss: c.Loss, Deleted: deleted,
			Seed: opt.Seed, PowerAgainst: opt.PowerAgainst}.Check(results)
		if err != nil {
			return nil, fmt.Errorf("olu check: %w", err)
		}
		fs = append(fs, mem)
	}
	return fs, nil
}
