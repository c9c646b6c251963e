// Package olu is Online Learning and Unlearning (Hu, Schölkopf, Sanyal 2025): online
// projected gradient descent on a stream of convex cost functions, with deletion requests
// served as the stream goes on.
//
// # The learner and its conventions
//
// A stream is a []Cost, one function per round; Quadratic, LeastSquares and Linear are the
// exact test costs, Example a dataset row under the toolkit's logistic or ridge loss. A
// nil entry is the paper's ⊥: a deleted function replaced in place, on which the learner
// does not move, so the rounds and the step sizes keep their absolute indices. The
// learner keeps states x_0..x_T (spec olu §1.2's canonical convention): round t plays
// z_t = x_{t−1}, consumes f_t by x_t = Π_K(x_{t−1} − η_t∇f_t(x_{t−1})), then serves the
// requests whose round τ is t. A Request{U, Tau} deletes f_U at round Tau ≥ U; a Schedule
// is the requests in order, public, as the paper assumes. Steps holds Table 1's four
// schedules (1/(μt), D/(L√t), the adaptive D/√p(t) and a constant); Domain is a Box, a
// Ball or Whole (no constraint).
//
// # Passive unlearning
//
// Passive is Algorithm 1: descent unchanged, and at each request's round Gaussian noise of
// standard deviation σ_i = B(i, ω, ε)·Γ(u_i, τ_i)·η_{u_i}L, where Γ is the contraction of
// the steps taken since the deleted function was used. Its outputs after request i are then
// within Rényi divergence αε, at every order α, of Reference: the same noisy algorithm on
// the stream without the deleted functions. The paper sizes Γ as γ^{τ−u} with
// γ = (β/μ − 1)/(β/μ + 1); that holds only for the step 2/(β + μ), not for the 1/(μt) its
// Theorem 2 uses. The default PerStep contraction multiplies the true per-step coefficient
// GammaStep; PaperGamma keeps the paper's for the audit, which shows the difference (at
// the spec's check, 8.1·10⁶ per order against a budget of 1/6).
//
//	cfg := olu.Config{X0: x0, Domain: olu.Box{R: 5}, Steps: olu.Steps{Kind: olu.StronglyConvexSteps, Mu: mu},
//		Lipschitz: L, Mu: mu, Beta: beta, Epsilon: 1, Omega: 1.2}
//	run, err := olu.Passive(ctx, cfg, stream, olu.Schedule{{U: 4, Tau: 20}}, rand.New(rand.NewPCG(1, 1)))
//	ref, err := olu.Reference(ctx, cfg, stream, sched, 1, run.Sigmas(), rand.New(rand.NewPCG(1, 1)))
//
// Seeded alike, the two share their noise draws: the coupling the tests compare pathwise.
//
// # Active unlearning
//
// Active is Algorithm 2: at each request, I₁ projected gradient steps on the mean of every
// function seen (the deleted ones too, as printed) and I₂ on those kept, then noise sized
// for the distance the two descents can still leave between the run and its reference
// (ActiveShift; the printed Eq. 40, which drops a 1/D, is the Eq40Noise option). It needs
// strongly convex costs and Theorem 6's schedule, each deleted function arriving after the
// previous request. RetainedOnly descends on the kept functions in both phases; then the
// two runs apply the same descent map and the noise shrinks to γ^{I₁+I₂}·Γη_uL — derived
// here, not in the paper. ActiveReference is its reference run. ActiveNewton is the
// appendix's Algorithm 3, a Newton step after the descent, with the sign the spec corrects
// (SekhariPlus) and the printed one; no theorem covers it, so its noise (Eq. 59) is only
// measured.
//
// A noise is never sized below 10⁻¹² of the state's scale: where a contraction is exactly
// 0 in real arithmetic, floating point still leaves the runs rounding apart.
//
// # Baselines and regret
//
// Retrain recomputes the state without the deleted functions at every request (noiseless,
// its cost a gradient per function kept); DiscardRestart goes back to x₀ and restarts the
// step sizes; OGD is the learner with no requests. Comparators computes the regret's
// comparators z_i* — the minimiser over the domain of the whole horizon's functions but
// the deleted ones, by Minimize (accelerated projected gradient) — and Regret sums Eq. 5.
//
// The paper's bounds and its errata live in audit/oluaudit.
package olu
