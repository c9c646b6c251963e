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
// Checks turn trials into Findings of three kinds: certificate (is the claim's arithmetic
// right, do the declared constants hold on the data), implementation (does the method
// behave as its proof assumes, against an exact retrain), and release (how far apart are
// the published laws). Method-specific checks live in subpackages (d2daudit); the
// Gaussian release check here serves every method that publishes a model plus Gaussian
// noise.
//
// # Verdicts
//
// One rule decides every check. A certificate is an upper bound on some quantity.
//
//   - FAIL when an empirical lower bound on the quantity exceeds the certified bound at the
//     stated confidence, or a deterministic inequality of the proof is broken (beyond a
//     rounding slack of 1e-9 relative plus 1e-12 absolute).
//   - PASS when the upper end of the confidence interval is within the bound: the evidence
//     is consistent with the claim and precise enough that a violation of the claimed size
//     would have shown.
//   - INCONCLUSIVE otherwise; the finding gives the number of trials that would decide,
//     assuming the point estimates stay where they are.
//
// Point estimates are reported but never decide a verdict alone. A Finding's Confidence is
// the probability that a FAIL is not a false alarm (1 for deterministic checks).
//
// The Rényi-divergence and Gaussian-mechanism arithmetic the checks use is in
// reference/dp, shared with the algorithms that calibrate their noise with it.
package audit
