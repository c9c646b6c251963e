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
// A Subject (NewSubject, from a Setup) audits one algorithm on a stream of logistic costs
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
package oluaudit
