// Package checks turns an audit's trials into findings: the checks every method shares.
//
// A check reads the TrialResults an Engine (package trials) produced and returns
// verdict.Findings of one of four kinds: certificate, implementation, release and
// empirical. Each decides by the one rule of package verdict: FAIL when a violation is
// shown at the stated confidence, PASS when none is and the check could have shown one,
// INCONCLUSIVE otherwise, with the trials that would decide.
//
//	fs, err := checks.GaussianRelease{Prefix: "d2d", Sigma: σ, Rho: ρ, Epsilon: 1, Delta: 1e-6}.Check(results)
//
// The shared checks:
//
//   - GaussianRelease, for every method that publishes a model plus Gaussian noise: how
//     far apart the published laws are, measured with the method's secret state (release).
//     AtPrecision and TrialResolution say when floating point alone could hide or fake a
//     difference (precision).
//   - EmpiricalRelease, for every method at all: the distinguishing game an attacker who sees
//     only published models can play, with its power against a named violation
//     (GamePowerSpec, which the planner asks too). A game needs MinEmpiricalTrials trials.
//   - MembershipRelease, for methods whose requests delete records: a membership-inference
//     attack (package mia) on the deleted records under the unlearned and retrained models.
//   - FamilyGame and RankCheck: a game over a pre-registered family of one-number
//     statistics of saved models or per-record scores (family), and the one-sided rank of
//     a few production models among retrains, which can FAIL a gross violation and never
//     PASSes.
//   - U-LiRA: with References (models trained IN and OUT on each deleted record), the
//     per-record likelihood-ratio statistic joins the family (references, ulira).
//   - HoldoutMembership: one model's membership of the deleted records against held-out
//     records (AUC, TPR at low FPR): always INCONCLUSIVE, a measurement, not an ε bound.
//
// A ScoreKind says which way a per-record score points (a loss or a confidence). The
// spec, verify's routes and the method packages build on these checks; the checks know
// nothing of them.
package checks
