package dp

import (
	"fmt"
	"math"
)

// ClassicGaussianSigma is the classic Gaussian mechanism's noise for (ε, δ)-DP at L2
// sensitivity Δ (Dwork–Roth Thm A.1): σ = Δ·√(2 ln(1.25/δ))/ε. The theorem holds for
// ε ≤ 1 only, so a larger ε is an error (AnalyticGaussianSigma covers it).
func ClassicGaussianSigma(sensitivity, epsilon, delta float64) (float64, error) {
	if !(epsilon > 0 && epsilon <= 1) || !(delta > 0 && delta < 1) {
		return 0, fmt.Errorf("classic Gaussian mechanism: ε = %v, δ = %v; it holds for 0 < ε ≤ 1 and 0 < δ < 1 (use the analytic calibration)", epsilon, delta)
	}
	return sensitivity * math.Sqrt(2*math.Log(1.25/delta)) / epsilon, nil
}

// AnalyticGaussianSigma is the least noise σ at which the Gaussian mechanism with L2
// sensitivity Δ is (ε, δ)-DP, for any ε > 0 (Balle–Wang 2018, the analytic Gaussian
// mechanism): the σ with GaussianExactDelta(ε, Δ/σ) = δ, found by bisection on the
// normalised distance s = Δ/σ (the exact δ rises with s) to relative precision 1e-13.
func AnalyticGaussianSigma(sensitivity, epsilon, delta float64) (float64, error) {
	if !(epsilon > 0) || !(delta > 0 && delta < 1) || !(sensitivity >= 0) {
		return 0, fmt.Errorf("analytic Gaussian mechanism: Δ = %v, ε = %v, δ = %v; want Δ ≥ 0, ε > 0, 0 < δ < 1", sensitivity, epsilon, delta)
	}
	if sensitivity == 0 {
		return 0, nil
	}
	lo, hi := 0.0, 1.0
	for GaussianExactDelta(epsilon, hi) <= delta {
		lo, hi = hi, 2*hi
		if hi > 1e12 {
			return 0, fmt.Errorf("analytic Gaussian mechanism: no finite noise bound at ε = %v, δ = %v", epsilon, delta)
		}
	}
	for hi-lo > 1e-13*hi {
		if mid := (lo + hi) / 2; GaussianExactDelta(epsilon, mid) <= delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return sensitivity / lo, nil
}
