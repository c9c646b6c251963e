// Package estimate measures the Rényi divergence D_α(P‖Q) between two laws from samples —
// in the audit, the published models of an unlearned run (P) and of a retrain (Q).
//
// Three estimators, each with an interval:
//
//   - Gauss fits a Gaussian to each sample (Ledoit–Wolf shrinkage, so it works when the
//     dimension is close to the sample count) and takes the closed form. With Covariance
//     Pooled it fits one covariance to both, the Gaussian-mechanism model, and is finite at
//     every order.
//   - Projected fits the Fisher direction on one half of each sample and estimates the
//     divergence of the other halves projected on it: the estimator for many dimensions and
//     few samples. It measures the projected laws, at most the full divergence. Above
//     as many dimensions as rows (a 60,000-weight model from a few hundred trials) the
//     direction is solved through the n × n Gram matrix (Woodbury), never a d × d
//     covariance.
//   - KNN is the Póczos–Schneider nearest-neighbour estimator, which assumes no shape, for
//     a few dimensions and moderate α.
//
// The intervals are estimates, never bounds: bootstrap intervals (parametric for the
// Gaussian estimators, half-sampling for k-NN) describe sampling variability under the
// estimator's model. Verdicts in the audit come from the ε lower bounds of package
// epsilon; these estimates are reported beside them.
//
//	e, err := estimate.Projected(unlearned, retrained, estimate.Options{Alpha: 2, Covariance: estimate.Pooled, Seed: 1})
//	fmt.Println(e.Value, e.Interval)
//
// Samples are the rows of a mat.Matrix. All randomness comes from Options.Seed.
package estimate
