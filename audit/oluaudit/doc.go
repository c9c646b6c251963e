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
package oluaudit
