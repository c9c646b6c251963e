// Package mia holds membership-inference attacks and their metrics: the third way the
// toolkit asks whether a forgotten record's influence is gone, by attacking the released
// models the way an adversary would.
//
// Scores: Scores fills a models × examples matrix of per-example scores (Confidence, the
// log-odds of the true label, or Loss) with one matrix product; Calibrate subtracts each
// example's mean score under reference models.
//
// Attacks:
//   - LiRA (Carlini et al. 2022): TrainShadows trains shadow models by the caller's recipe
//     on balanced random halves, FitLiRA fits per-example Gaussians to the IN and OUT
//     scores, and LiRA.Statistic scores a target model (online or offline, with or without
//     a fixed variance). The default is the paper's fit (mean centre, sample standard
//     deviation); the reference code's median centre and its formulas (np.std's ddof 0,
//     its fixed variance, its two-sided offline statistic) are options, labelled as such.
//   - U-LiRA (Hayes et al. 2024) for unlearning: IN is "trained with x, then unlearned",
//     OUT is "retrained without x"; accuracy near 50 % means x was forgotten.
//   - DifferenceScores, the model-difference attack on the before/after pair of a deletion.
//   - FitSVC, a C-support-vector classifier with the RBF kernel (LIBSVM's SMO with
//     second-order working sets, held to scikit-learn's SVC): the attack model of the
//     SAFE paper's membership inference, trained on a model's sorted softmax outputs at
//     records it saw and records it did not.
//
// Metrics: ROCCurve, AUC, TPRAtFPR, BalancedAccuracy, and Evaluate, which gives all of them
// (TPR at FPR 0.1 %, 1 %, 10 %) with bootstrap intervals. Intervals are estimates.
// EvaluateAUC is the AUC alone; its resamples depend on the seed and the sample sizes, not
// on the scores, so evaluations of the same seed and sizes (an audit's controls attack its
// subject's records) can share them through a Resamples, drawn once, with the same bits:
//
//	shared := mia.NewResamples(1 << 30) // at most 1 GiB held
//	subject, _ := shared.EvaluateAUC(pos, neg, 200, 0.95, seed)
//	control, _ := shared.EvaluateAUC(pos2, neg2, 200, 0.95, seed) // reads the subject's draws
//
// Membership on one model (spec §(g)), the outputs ML Privacy Meter users expect:
// OneModelMembership takes one model's scores on the deleted records and on held-out
// records it never trained on, and gives the AUC with DeLong's interval (exact disjoint
// pairs where DeLong's variance is 0), the TPR at FPR 0.1 % and 1 % with thresholds set on
// the holdout alone and Clopper–Pearson intervals, the ROC, and each deleted record's
// placement among the held-out scores (per-record vulnerability). It measures membership;
// it is not an ε bound. LiRAWithReferences scores a target model against reference
// models the user trained, given as a score matrix and an IN/OUT mask: each record's
// LiRA ratio (online with 2 IN and 2 OUT references, offline otherwise, median centre)
// and the U-LiRA aggregate, their sum over the deleted records.
//
//	sh, _ := mia.TrainShadows(ctx, train, data, 64, seed, 0)
//	mia.Scores(scores, mia.Confidence, loss, sh.Models, data)
//	attack, _ := mia.FitLiRA(scores, sh.In, mia.LiRAOptions{})
//	attack.Statistic(stat, targetScores) // larger = more likely a member
//
// The package imports only reference, and audit/epsilon for its Clopper–Pearson
// intervals (epsilon holds pure functions of counts and imports neither audit nor mia, so
// the arrow audit → mia stays one way): training and unlearning are passed in as
// functions, so any method can be attacked.
package mia
