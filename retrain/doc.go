// Package retrain is the retraining oracle an unlearning method is measured against.
//
// Minimize computes the exact empirical risk minimiser θ* = argmin_{‖θ‖≤R} f_D(θ) of an
// L2-regularised generalised linear loss (logistic, ridge, their clipped forms) to a
// stationarity residual of 1e-10, with a trust-region truncated Newton method — the method
// of liblinear's TRON — that uses the Hessian only through Hessian–vector products. It
// never forms a d × d matrix, so a 60,000-feature text problem costs memory linear in d,
// and on Fashion-MNIST 7 vs 9 it reaches ‖∇f‖ ≤ 1e-10 in about a quarter of liblinear's
// time (bench/erm.sh measures both in one run).
//
// When the ball constraint binds, θ* is found on the sphere through its KKT condition (a
// secular-equation search on the multiplier), and the residual is the projected-gradient
// norm. An unregularised problem with a rank-deficient design (least squares with fewer
// rows than features, collinear columns) has many minimisers of one value; Minimize
// returns the one of least norm, because its iterates start at 0 and never leave
// range(Xᵀ).
//
//	res, err := retrain.Minimize(reference.Logistic{Lambda: 0.01}.Objective(ds), math.Inf(1), retrain.Options{})
//	// res.Theta is θ*, res.Residual ≤ 1e-10; ProjectedGradientNorm rechecks any point
//
// The multi-class models' exact minimiser (softmax regression, with or without a linear
// perturbation) is reference/multiclass.Minimize: it lives beside the models because
// Guo et al.'s certified removal trains with it, and reference must not import retrain.
//
// Replay and FromScratch rerun a method's own learning procedure — a Recipe — from scratch
// on the data after the requests. A Recipe takes its randomness from named streams, so a
// retrain shares exactly the random choices the comparison needs with the run it is
// compared with, and no others.
package retrain
