// Package safeaudit audits SAFE, streaming forgetting (reference/safe; the project's
// notes on the paper, safe-streaming-forgetting.md): its guarantees as pure functions, a
// streaming comparison with every baseline and retraining round by round, the attacks,
// and SAFE's audit subject.
//
// The guarantees of spec §3 are functions of declared constants, with the spec's
// objections beside them:
//
//   - Gamma, the step √W/(K√T);
//   - Thm1Bound, Theorem 1 as printed (no λ, though the gap it bounds is λ times a sum
//     of divergences), and Thm1BoundConsistent, the λ-consistent scale;
//   - Thm2iBoundPaperPrinted, Thm2iBoundPaperAlgebra, Thm2iBoundConservative: Theorem
//     2(i)'s per-round bound as printed, by its own algebra (a lost ½) and with the 4γ²
//     its proof drops, against TrivialPerRoundBound, 2UW, which it exceeds almost always;
//   - Thm2iiBoundPaper, Thm2iiBoundConservative, TrivialRegretBound, RegretVacuousBelow:
//     the dynamic-regret bound, and the horizon below which it is weaker than 2UWT;
//   - NoiseScalePaper, SensitivityNeeded, MeanShift, GaussRenyi, GaussEpsClassic,
//     GaussDeltaAnalytic: Theorem 2(iii)'s noise charges a sensitivity of W where the
//     release can need 2W + γ, and what that does to δ.
//
// RunStream is the streaming audit: an original model trained by a Recipe, a stream of
// requests, and after every round each method's published model measured beside a retrain
// from scratch — accuracy on the records left (RA), on the deleted ones (FA) and on the
// test set (TA; TA(R) and TA(F) in the stream-for-class protocol), the paper's SVC
// membership attack (MIA), the time per request and the distance to the retrain. With
// Theory, on softmax regression trained exactly, it also measures SAFE against its
// theorems each round: the streaming risk's excess over the retrain's, Theorem 1's gap,
// the release's shift, and the gradient and parameter norms the theorems assume.
// StreamLiRA attacks every method's final model with LiRA on shadow models; SAFEULiRA
// attacks SAFE's unlearning itself.
//
//	res, _ := safeaudit.RunStream(ctx, safeaudit.StreamConfig{Train: train, Test: test,
//		Recipe: recipe, SAFE: safe.Config{Lambda: 1000, K: 2.5},
//		Baselines: safeaudit.Baselines, Stream: stream, Seed: 1, ForgetClass: -1})
//	for _, m := range res.Methods { fmt.Println(m.Name, m.Mean()) }
//
// "audit reproduce safe-stream" runs the paper's Table 1 and Table 10 protocols at this
// machine's scale — Fashion-MNIST and MNIST subsets, softmax regression and an MLP, random
// and class streams, mean ± std over seeds, the paper's numbers beside ours — with the
// theorems' audit, LiRA and U-LiRA, and per-round figures of RA, FA, TA and MIA beside
// retraining. The paper's claims are reported, not judged; the run fails only on its own
// implementation checks (SAFE's retention recursion against the gradient recomputed on the
// records left).
//
// A Subject (New, from a Setup) is SAFE's audit for the demo: softmax regression trained
// exactly, a stream served by SAFE and published with Theorem 2(iii)'s noise, against the
// exact retrain with the same noise. Check sets side by side the certificate (σ, and the
// release's shift round by round against the sensitivity W it is sized for), the
// implementation (the recursion and the step's length every round), the release, the
// distinguishing game and the membership attack, and the streaming finding: the paper's
// SVC attack on the published model against fresh non-members, with RA, FA, TA and MIA of
// the noiseless models traced per round beside the retrain's. Besides the subject's own
// run, it checks what every trial publishes: its model before noise must be SAFE's step
// w₀ − γ·g_T/‖g_T‖, with γ recomputed from W, K and T and g_T from the records left and
// the deleted records' targets (safe/implementation/published, two-sided, to rounding).
//
// Controls are the subject's negative controls, SAFE with one planted bug each, audited by
// the subject's Check, which must FAIL them ("audit demo --controls"):
//
//   - half-variance: the noise published with half Theorem 2(iii)'s variance — caught by
//     the release checks' noise test (safe/release/renyi, safe/release/exact-epsilon) and,
//     in the demo, by the distinguishing game;
//   - update-skipped: the last round's request not served, the model from before it
//     published with the right noise — in the demo caught by safe/implementation/published
//     only: the shift from the retrain stays far below W, so at the certified σ the release
//     still meets the claim and neither the release checks nor the attacks can see it;
//   - stale-horizon: the step γ = √W/(K√T) sized with T = 1 instead of the stream's T,
//     every step √T times too long — caught by safe/implementation/published (the shift
//     stays below W, so the sensitivity and release checks do not).
//
// Method registers SAFE with the front ends: the demo variant "safe" (with its controls),
// "audit bounds safe" and the reproduction.
package safeaudit
