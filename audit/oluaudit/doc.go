// Package oluaudit audits Online Learning and Unlearning (Hu, Schölkopf, Sanyal 2025;
// reference/olu) against its paper's theorems.
//
// Every bound of spec olu §3 is a pure function here, in the paper's printed form and in
// the forms the spec derives where the printed one is wrong (its §3.6 errata): the noise
// of Algorithm 1 (PassiveSigmaPaper with the paper's constant contraction, PassiveSigmaSC
// and PassiveSigmaConvex corrected), Theorem 1's accountant (PABIAccountant), the regret
// bounds of Theorems 2–6 with their schedule terms G1, G2, G3 and G_act, Corollary 7 as
// printed and fixed, Theorem 5's two step sizes and its consistent forms, Lemmas 5 and 6,
// and Proposition 1 beside what Mironov's group privacy proves.
//
//	sigma := oluaudit.PassiveSigmaPaper(1, 1.2, 1, 0.5, 20, 4, 2.5) // 6.6e-5: the paper's γ
//	fixed := oluaudit.PassiveSigmaSC(1, 1.2, 1, 10, 1, 20)          // √3/2: the true contraction
//
// "audit bounds olu" prints them for a declared schedule (--u, --tau) and step schedule
// (--steps sc|convex|constant), with each theorem's hypotheses checked; --variant active
// gives Theorem 6's iteration counts, its noise by the valid shift and by Eq. 40 as
// printed, and G_act.
//
// # The demo's subjects
//
// A Subject (New, from a Setup) audits one algorithm on a stream of logistic costs
// — a dataset's rows, one a round — against Definition 2's reference: the same algorithm
// on the stream with the deleted functions ⊥, the same step sizes and the same noise
// scales. Each trial runs both over the whole stream with fresh noise and publishes the
// state after the last request, before the projection. Passive subjects serve every
// request at one round, so the two published laws are exactly Gaussian; active subjects
// serve them one at a time, and their descent phases bring any two states within the last
// request's shift. Check sets side by side the certificate (every σ recomputed with the
// valid contraction, the accountant, the coupled shift against what the noise is sized
// for, with what the paper's γ would charge), the implementation, the release and the
// attacks. Controls are the paper's γ and a tenth of the noise, which the checks must
// FAIL. RhoFor turns the demo's (ε, δ) into the OLU target ρ.
//
// # The contraction audit
//
// The spec argues that Corollary 1's γ = (β/μ − 1)/(β/μ + 1) is the contraction of a
// gradient step only at η = 2/(β + μ), so that Theorem 2's noise, sized with γ^{τ−u} at
// η_t = 1/(μt), is far too small. ContractionAudit decides it on a ContractionCase (a
// stream, requests whose deleted rounds all come before the first is served, a learner):
// it measures the gap between two noiseless descents that differ in the first deleted
// round against γ^{τ−u} and the valid per-step product Γ(u, τ), and for each reading of
// the contraction it runs passive OLU against Definition 2's reference — the outputs'
// divergence per order exactly (ExactDivergence: the laws are Gaussian, with equal
// covariances) and estimated from samples with its interval and power. Findings names the
// paper's reading's checks …/paper/… (claims under test) and the corrected one's
// …/corrected/…. ContractionCases are the four instances "audit reproduce
// olu-contraction" runs; any other stream fits the same mould:
//
//	res, err := oluaudit.ContractionAudit(ctx, oluaudit.ContractionCase{Name: "mine",
//		Stream: stream, Sched: olu.Schedule{{U: 4, Tau: 20}}, Config: cfg}, 2000, seed)
//	for _, f := range res.Findings() { fmt.Println(f) }
//
// # The regret reproduction
//
// RegretAt runs every learner of the comparison (Learners: passive OLU at each step
// schedule, active OLU, discard-and-restart, DP-FTRL, retraining) at one horizon T and
// number of requests k (spread by RegretSchedule) on a logistic stream, averages Eq. 5's
// regret over noise draws, and evaluates Theorems 2, 3 and 5 beside it, as stated and in
// the forms this package derives; BoundFindings checks each (the mean less three standard
// errors against the bound). RunTheorem5Instance is the spec's counterexample to Theorem
// 5's stated bound. "audit reproduce olu-regret" sweeps T and k and draws the plots.
package oluaudit
