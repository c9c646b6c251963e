// Package dp is the privacy arithmetic shared by the reference algorithms and the audit:
// the Gaussian mechanism's calibration and exact privacy profile, Rényi divergences between
// Gaussians in closed form, and conversions from Rényi DP and zCDP to (ε, δ).
//
// Every function is pure. The algorithms use GaussianSigma to calibrate their noise; the
// audit uses the same functions to recompute a claim and GaussianExactEpsilon and the Rényi
// forms to measure what a release actually leaks:
//
//	sigma := dp.GaussianSigma(delta2, 1, 1e-6)       // noise for (1, 1e-6) at sensitivity Δ
//	eps := dp.GaussianEpsilon(delta2, sigma, 1e-6)    // = 1, the certificate
//	exact := dp.GaussianExactEpsilon(delta2/sigma, 1e-6) // < 1: the zCDP route is conservative
//
// Conventions: natural logarithms; δ in (0, 1); divergences are +Inf where they are
// infinite and never NaN.
package dp
