// Package retrain is the retraining oracle an unlearning method is measured against.
//
// Minimize computes the exact empirical risk minimiser θ* = argmin_{‖θ‖≤R} f_D(θ) of an
// L2-regularised loss: ridge in closed form by Cholesky, other losses by Newton's method
// with the exact Hessian, to a stationarity residual of 1e-10. When the ball constraint
// binds, θ* is found on the sphere through its KKT condition (a secular-equation search on
// the multiplier), and the residual is the projected-gradient norm. An unregularised
// problem with a rank-deficient design (least squares with fewer rows than features,
// collinear columns) has many minimisers of one value; Minimize returns the one of least
// norm, by solving in an orthonormal basis of range(Xᵀ).
//
// Replay and FromScratch rerun a method's own learning procedure — a Recipe — from scratch
// on the data after the requests. A Recipe takes its randomness from named streams, so a
// retrain shares exactly the random choices the comparison needs with the run it is
// compared with, and no others.
package retrain
