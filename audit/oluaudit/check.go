package oluaudit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/methodkit"
	"github.com/unlearnaudit/unlearnaudit/internal/steps"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/olu"
)

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
func Check(ctx context.Context, s *Subject, results []trials.TrialResult, opt audit.CheckOptions) ([]verdict.Finding, error) {
	if len(results) == 0 {
		return nil, fmt.Errorf("olu check: no trials")
	}
	conf := opt.Confidence
	if conf == 0 {
		conf = 0.95
	}
	// the checks, for a progress bar: the certificate's (the coupled shift replays the run),
	// the implementation's, the release, the game, the membership attack
	c := s.setup
	cfg := c.Config
	pub := methodkit.Published{Prefix: "olu", Epsilon: c.Epsilon, Delta: c.Delta,
		Release: &checks.GaussianRelease{Sigma: s.sigma, Rho: cfg.Epsilon, Epsilon: c.Epsilon, Delta: c.Delta}}
	if opt.Attacks.Has(audit.MembershipAttack) {
		var ids []int64
		for _, q := range c.Sched {
			ids = append(ids, c.Data.ID(q.U-1))
		}
		deleted, err := c.Data.Subset(ids)
		if err != nil {
			return nil, err
		}
		pub.Members = &checks.MembershipRelease{Loss: c.Loss, Deleted: deleted}
	}
	st, ctx := steps.Count(ctx, append([]bool{true, true}, pub.Steps(opt)...)...)
	k := len(s.plan.Served)
	shifts, need := s.requiredShifts()
	worstRatio, neededAt := 0.0, 0
	for i, sv := range s.plan.Served {
		if r := need[i] / sv.Sigma; r > worstRatio || math.IsNaN(r) {
			worstRatio, neededAt = r, i
		}
	}
	fs := []verdict.Finding{verdict.Deterministic("olu/certificate/sigma", "every σ_i recomputed from public values with the valid contraction, over the σ_i used (at most 1)", verdict.Certificate,
		worstRatio, 1, k, fmt.Sprintf("largest at request %d: needed %.4g, used %.4g", neededAt+1, need[neededAt], s.plan.Served[neededAt].Sigma))}
	least := math.Inf(1)
	for _, sv := range s.plan.Served {
		least = math.Min(least, sv.Sigma)
	}
	fs[0] = checks.AtPrecision(fs[0], least, 0, results) // every σ_i above float64's resolution
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
	fs = append(fs, verdict.Deterministic("olu/certificate/accountant", "Theorem 1's accountant: Σ a²/(2σ²) over the rounds with requests (the divergence per order), at most ρ", verdict.Certificate,
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
	fs = append(fs, verdict.Deterministic("olu/certificate/shift", "the shift between the run and its reference at the last release, within the shift its noise is sized for", verdict.Certificate,
		gap, charged, 1, detail))
	st.Step()
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
	fs = append(fs, verdict.Deterministic("olu/implementation/no-requests", "with no request the learner is online gradient descent bit for bit and draws no noise (1: differs)", verdict.Implementation,
		mismatch, 0, 1, fmt.Sprintf("%d rounds", len(plain))))
	d := len(cfg.X0)
	outside := 0.0
	for _, sv := range run.Served {
		if !cfg.Domain.Contains(sv.Released, 1e-12) {
			outside++
		}
	}
	fs = append(fs, verdict.Deterministic("olu/implementation/noise", "the noise is k·d standard normal draws at the requests' rounds, and every released state lies in the domain (draws off, states outside)", verdict.Implementation,
		math.Abs(float64(run.Draws-k*d))+outside, 0, 1, fmt.Sprintf("%d draws for k = %d requests in d = %d", run.Draws, k, d)))
	st.Step()
	pf, err := pub.Check(ctx, st, opt, results)
	if err != nil {
		return nil, err
	}
	fs = append(fs, pf...)
	return fs, nil
}
