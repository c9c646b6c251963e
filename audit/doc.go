// Package audit decides whether an unlearning method keeps its promise.
//
// A Subject is an unlearning setup the auditor can sample: each trial learns, serves the
// requests and publishes (Unlearned), and retrains from scratch on the final data and
// publishes (Retrained). Its Claim says what the method certifies, under which
// assumptions and neighbouring relation, with the arithmetic that produced it.
//
// The Engine runs trials on a worker pool. Trial i takes all its randomness from
// reference.Streams{Seed, i}, so results do not depend on the number of workers, and each
// finished trial is appended to a checkpoint file at once, so an interrupted audit resumes
// where it stopped.
//
// Checks turn trials into Findings of four kinds: certificate (is the claim's arithmetic
// right, do the declared constants hold on the data), implementation (does the method
// behave as its proof assumes, against an exact retrain), release (how far apart are the
// published laws, measured with the method's secret state), and empirical (what an
// attacker who sees only the published models can show). Method-specific checks live in
// subpackages (d2daudit); GaussianRelease serves every method that publishes a model plus
// Gaussian noise, EmpiricalRelease every method at all.
//
// # Verdicts
//
// One rule decides every check. A certificate is an upper bound on some quantity.
//
//   - FAIL when an empirical lower bound on the quantity exceeds the certified bound at the
//     stated confidence, or a deterministic inequality of the proof is broken (beyond a
//     rounding slack of 1e-9 relative plus 1e-12 absolute).
//   - PASS when it does not, and the check had the resolution to see a violation of the
//     claimed size: for a confidence interval, its upper end is within the bound; for a
//     distinguishing game, the largest ε its trials could show (epsilon.MaxCertifiable,
//     about ln N) exceeds the claimed ε.
//   - INCONCLUSIVE otherwise; the finding gives the number of trials that would decide,
//     assuming the point estimates stay where they are.
//
// Point estimates are reported but never decide a verdict alone. A Finding's Estimates —
// divergence estimates with bootstrap intervals, the Gaussian-DP route's ε, the NeurIPS
// 2023 competition's ε — are estimates, not bounds, and are reported beside the
// measurement that decides. A Finding's Confidence is the probability that a FAIL is not a
// false alarm (1 for deterministic checks).
//
// The measuring instruments are in subpackages: estimate (Rényi divergence from samples),
// epsilon (ε lower bounds, the competition scorer, the planner); the Rényi-divergence and
// Gaussian-mechanism arithmetic is in reference/dp, shared with the algorithms that
// calibrate their noise with it.
package audit
