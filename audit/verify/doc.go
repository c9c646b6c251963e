// Package verify audits models trained elsewhere: saved models, per-record scores or a
// noisy pipeline's files, judged against the claim a spec file declares.
//
// Each route reads what the user has and plays the shared checks (package checks) on it:
//
//	claim, fs, err := verify.VerifyModels(ctx, unlearned, retrained, data, s)
//
// The routes:
//
//   - VerifySamples: two samples of saved models (one a row, artifact.LoadSample) against
//     the spec's claim, with one distinguishing game over a pre-registered family of
//     one-number statistics; VerifyModels adds, for linear models, the deleted records'
//     losses and confidences computed from the weights and the data (LinearLosses).
//   - VerifyScores: per-record scores (models × deleted records), the route for deep
//     networks, with the U-LiRA aggregate when the spec names References; fewer unlearned
//     models get the rank check, which can FAIL a gross violation and never PASSes.
//   - VerifyAgainstRecipe: without retrained models, a Recipe (NewRecipe: the spec's data,
//     deletions and one variant of its method, run by the toolkit's own implementation)
//     retrains them.
//   - VerifyNoisy: a pipeline that publishes with Gaussian noise hands over its models
//     before and after the noise (NoisyModels); the declared noise certificate is checked
//     against the pre-noise pairs, and the published models against the noise it declares.
//   - VerifyHoldout: one model's membership of the deleted records against held-out records.
//   - MeasureUtility and LinearUtility: what unlearning cost in accuracy and loss, measured
//     beside the verdict, never deciding it.
//
// NewSavedSubject turns two saved samples into a Subject, so the trial engine and every
// check run on models from disk as on the toolkit's own. Every route returns the claim it
// audited and its findings; the front end renders them.
package verify
