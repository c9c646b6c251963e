package onerun

import (
	"math"

	"gonum.org/v1/gonum/mathext"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
)

// normCDF is Φ, the standard normal distribution function (scipy.stats.norm.cdf).
func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// normPPF is Φ⁻¹ (scipy.stats.norm.ppf): −∞ at 0, +∞ at 1. Wichura's AS 241, accurate to
// about 1e-16 relative over (0, 1).
func normPPF(p float64) float64 { return mathext.NormalQuantile(p) }

// normLogCDF is ln Φ(x) (scipy.stats.norm.logcdf), accurate far into the lower tail where
// Φ(x) underflows: below −10 it is ln φ(x) + ln R(−x) with R the Mills ratio, evaluated by
// its continued fraction.
func normLogCDF(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return math.NaN()
	case x >= 0:
		return math.Log1p(-0.5 * math.Erfc(x/math.Sqrt2))
	case x > -10:
		return math.Log(0.5 * math.Erfc(-x/math.Sqrt2))
	case math.IsInf(x, -1):
		return math.Inf(-1)
	}
	t := -x
	// R(t) = 1/(t + 1/(t + 2/(t + 3/(t + …)))), evaluated bottom-up; 60 levels are
	// far more than t > 10 needs for full precision.
	r := t
	for k := 60; k >= 1; k-- {
		r = t + float64(k)/r
	}
	return -t*t/2 - 0.5*math.Log(2*math.Pi) - math.Log(r)
}

// logSub is ln(eˣ − eʸ) for y ≤ x (jax_privacy's _log_sub); −∞ when y ≥ x, where
// jax_privacy raises for y > x.
func logSub(x, y float64) float64 {
	if y >= x {
		return math.Inf(-1)
	}
	return x + math.Log1p(-fexp.Exp(y-x))
}

// logistic is 1/(1 + e^(−x)) (scipy.special.expit).
func logistic(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + fexp.Exp(-x))
	}
	e := fexp.Exp(x)
	return e / (1 + e)
}

// softplus is ln(1 + eˣ) without overflow.
func softplus(x float64) float64 {
	return math.Max(x, 0) + math.Log1p(fexp.Exp(-math.Abs(x)))
}

// gaussianLogDelta is ln δ(ε) of the Gaussian mechanism with noise σ at sensitivity 1
// (Balle and Wang 2018, arXiv 1805.06530, eq. 6; dp_accounting's _get_log_delta).
func gaussianLogDelta(sigma, eps float64) float64 {
	t := eps*sigma + 1/(2*sigma)
	x := normLogCDF(1/sigma - t)
	y := eps + normLogCDF(-t)
	if y <= x {
		return x + math.Log1p(-fexp.Exp(y-x))
	}
	return math.Inf(-1)
}

// gaussianSigma is the least noise σ making the Gaussian mechanism (ε, δ)-DP
// (dp_accounting.get_sigma_gaussian with its tolerance 1e-12): 0 when δ = 1 or ε = ∞,
// +∞ when δ = 0.
func gaussianSigma(eps, delta float64) (float64, error) {
	switch {
	case delta == 1, math.IsInf(eps, 1):
		return 0, nil
	case delta == 0:
		return math.Inf(1), nil
	}
	logDelta := math.Log(delta)
	lo, hi := 1e-1, 1e0
	for gaussianLogDelta(lo, eps) < logDelta {
		lo, hi = lo/10, lo
		if lo == 0 {
			return 0, nil
		}
	}
	for gaussianLogDelta(hi, eps) > logDelta {
		lo, hi = hi, hi*10
		if math.IsInf(hi, 1) {
			return math.Inf(1), nil
		}
	}
	return brentRoot(func(s float64) float64 { return gaussianLogDelta(s, eps) - logDelta }, lo, hi, 1e-12)
}
