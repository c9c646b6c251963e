// Package epsilon turns a distinguishing game into ε lower bounds.
//
// The game: scores of N samples from each of two laws (say the confidence of a forgotten
// example under N unlearned and N retrained models). Any decision rule has false-positive
// and false-negative rates, and an (ε, δ)-indistinguishable pair forces
// FPR + e^ε·FNR ≥ 1 − δ and FNR + e^ε·FPR ≥ 1 − δ. With Clopper–Pearson upper bounds on
// the rates, Game.LowerBound gives ε_LB that holds at the stated confidence; the rule's
// threshold is chosen on held-out samples (Split) or with a correction that makes the
// bounds simultaneous over every threshold (Bonferroni).
//
// Game.Family plays one split game over a pre-registered family of one-number
// statistics (the deleted records' mean loss, a projection of the parameters, …): the
// statistic and its threshold are chosen together on the selection half and ε is bounded
// on the other, once, at the whole confidence; LowerBound's split game is a family of one.
// Thresholds lie midway between adjacent scores. Ranks is the test for fewer models than
// a game needs: the conservative rank p-value (below + 1 + ties)/(N + 1) of each model's
// statistic among reference models (or, when given a generator, the exact randomised one,
// whose verdict a seed can move), compared with ((1 − confidence)/k − δ)/e^ε; it can show a
// violation, never that a claim holds.
//
// Also here: the Gaussian-DP route (Game.GDP), TensorFlow Privacy's ratio bounds
// (RatioLowerBound), the NeurIPS 2023 unlearning competition's per-example ε and
// forgetting score (Competition, checked against the official scorer's outputs to 1e-6).
//
// # Power: what a game could have caught
//
// A game that shows no violation has shown nothing unless it could have shown one. Its
// power is stated against a named alternative: the Gaussian pair N(μ, 1) against N(0, 1)
// whose exact ε at the claim's δ is F times the claimed ε.
//
//   - MaxCertifiable is the resolution, the largest ε any rule could show with N trials
//     (about ln N): necessary for power, not sufficient.
//
//   - SplitGamePower is the probability that the split game with N trials shows
//     ε_LB > claim against the F× alternative: the game's own rule choice replayed on
//     seeded selection halves, and exact binomial tails on the held-out half.
//
//   - SmallestDetectableFactor is the least F caught with a given power at N trials.
//
//   - TrialsToDetect is the least N whose power reaches the target (to about 5 %).
//
//     res, err := epsilon.Game{Delta: 1e-5}.LowerBound(unlearnedScores, retrainedScores)
//     if res.Epsilon > claimed { /* the claim is violated at 95 % confidence */ }
//     pw, err := epsilon.SplitGamePower(ctx, len(unlearnedScores), epsilon.PowerSpec{Claim: claimed, Factor: 2, Delta: 1e-5, Conf: 0.95})
//     if pw.Power < 0.8 { /* no violation shown, but none of twice the claim would have been */ }
package epsilon
