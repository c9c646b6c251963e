// Package onerun audits privacy, and unlearning, claims with one training run: the
// one-run audits of Steinke, Nasr and Jagielski ("Privacy Auditing with One (1) Training
// Run", NeurIPS 2023, arXiv 2305.08846) and of Mahloujifar, Melis and Chaudhuri
// ("Auditing f-Differential Privacy in One Run", NeurIPS 2024, arXiv 2410.22235), with
// the canary-score measures around them, each matching google-deepmind/jax_privacy's
// jax_privacy/auditing.py (checked against its outputs to 1e-6 relative, in practice to
// 1e-12).
//
// # What a one-run audit is
//
// Take m canaries and flip a fair coin for each: heads, it is trained on. Train once,
// score every canary (say its negated loss under the model), and guess "included" for the
// canaries scoring above a threshold. If the training were (ε, δ)-DP with respect to each
// coin, the guesses could not be right much more often than e^ε/(1+e^ε) of the time:
// PValue bounds the probability of nCorrect or more right out of nGuess, and Epsilon is
// the largest ε that the observed guesses refute at the chosen significance. EpsilonFDP
// refutes the Gaussian trade-off curve calibrated to (ε, δ) instead, which is stronger
// evidence and usually a larger bound. One run replaces the thousands of trainings of a
// classical audit; the price is a looser bound for the same number of canaries.
//
// # From scores to a bound
//
// Audit (or NewAuditor and its methods) takes the scores of the included canaries and of
// the excluded ones and gives what jax_privacy's CanaryScoreAuditor gives: the thresholds
// are the Pareto frontier of the (false-negative, true-negative) counts, and by default
// (threshold.Bonferroni) the significance is divided by their number so that the best
// threshold may be chosen on the same scores; threshold.Fixed fixes one in advance. Beside the two
// one-run bounds are the Clopper–Pearson bounds of a classical audit, the Gaussian-DP
// and raw-count estimates (estimates, not bounds), AUROC, TPR at low FPR and the largest
// accuracy.
//
//	plan := onerun.DrawPlan(seed, m)                // record seed before training
//	// … train on D ∪ {canary i : plan[i]}, unlearn, score every canary …
//	in, out, err := onerun.SplitScores(plan, scores)
//	report, err := onerun.Audit(in, out, 0.05, delta)
//
// # Unlearning
//
// For unlearning the included canaries are deleted after training and the unlearned
// model is scored. A method claiming (ε, δ)-unlearning against retraining makes every
// plan's outcome (ε, δ)-close to the same retrained law, so two plans differing in one
// canary give outcomes (2ε, (1 + e^ε)·δ)-close. UnlearningTarget returns that pair: run
// the audit at its δ, and a one-run lower bound above its ε refutes the claim with one
// training run at the stated confidence. An unlearner that forgets nothing keeps the
// included canaries' losses low and is refuted once m is a few hundred. The argument
// needs the claim to cover deleting about m/2 canaries at once; a method whose guarantee
// covers fewer deletions cannot be audited this way at that m.
//
// # Matching jax_privacy
//
// The searches are jax_privacy's, step for step (doubling, then scipy's Brent method to
// 1e-6, warm-started as jax_privacy warm-starts them), so results agree far below the
// search tolerance; the binomial tails are summed in log space and stay accurate for
// hundreds of thousands of guesses. Two departures: the GDP estimate takes the largest
// signed μ, as the reference run does (the stored copies of auditing.py take |μ|), and
// jax_privacy's Split strategy, which draws from NumPy's generator, is not offered.
package onerun
