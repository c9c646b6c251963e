package epsilon

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// What a count of models supports, in the two units a reader may hold a claim in: ε at δ,
// and the Gaussian-DP μ of the Gaussian pair with that ε (the named alternative's shape).
// The functions here are what reports and `audit plan` both print, so that the two agree.

// GDPMu is the μ of the Gaussian pair (μ-GDP) whose exact ε at δ is eps: 0 for eps ≤ 0,
// +Inf for eps = +Inf or none reachable.
func GDPMu(eps, delta float64) float64 {
	switch {
	case !(eps > 0):
		return 0
	case math.IsInf(eps, 1):
		return math.Inf(1)
	}
	mu, err := gdpMuFor(eps, delta)
	if err != nil {
		return math.Inf(1)
	}
	return mu
}

// RankPower is the probability that the rank test (Ranks, on the conservative p-value) of
// k models among n references shows the claim (ε, δ) violated when every model's statistic
// is drawn from N(−μ, 1) and the references' from N(0, 1): the Gaussian pair μ apart, lower
// meaning remembered. A model's p-value (below + 1)/(n + 1) is at most t exactly when at
// most m = ⌊t·(n + 1)⌋ − 1 references lie below it, that is when it lies below the
// references' (m + 1)-th smallest, R; Φ(R) is Beta(m + 1, n − m), and the k models,
// independent given the references, fail with E[1 − (1 − Φ(Φ⁻¹(Φ(R)) + μ))^k]. 0 when n is
// below RanksNeeded (m < 0).
func RankPower(k, n int, mu, epsilon, delta, confidence float64) float64 {
	return rankPowerCurve(k, n, epsilon, delta, confidence)(mu)
}

// rankPowerCurve is RankPower as a function of μ, the order statistic's quantiles computed
// once: the expectation over U = Φ(R) is the midpoint rule on U's quantile function, 4 000
// points (1.2e-6 off at μ = 0 among 64 references, where the exact value is (m + 1)/(n + 1)).
func rankPowerCurve(k, n int, epsilon, delta, confidence float64) func(mu float64) float64 {
	t := rankThreshold(k, epsilon, delta, confidence)
	m := -1.0
	if t > 0 {
		m = math.Floor(t*float64(n+1)*(1+1e-12)) - 1 // the rounding of t·(n+1) at an integer
	}
	if m < 0 {
		return func(float64) float64 { return 0 }
	}
	if int(m) >= n { // every p-value is at most t
		return func(float64) float64 { return 1 }
	}
	const points = 4000
	beta := distuv.Beta{Alpha: m + 1, Beta: float64(n) - m}
	z := make([]float64, points) // Φ⁻¹ of the order statistic's quantiles
	for i := range z {
		z[i] = distuv.UnitNormal.Quantile(beta.Quantile((float64(i) + 0.5) / points))
	}
	return func(mu float64) float64 {
		sum := 0.0
		for _, x := range z {
			below := distuv.UnitNormal.CDF(x + mu) // one model's chance to lie below R
			sum += -math.Expm1(float64(k) * math.Log1p(-below))
		}
		return min(1, max(0, sum/points))
	}
}

// RankSmallestMu is the least μ whose Gaussian pair the rank test of k models among n
// references catches with probability power (RankPower), to 1e-6 relative; +Inf when no
// μ does (n below RanksNeeded, or a power it never reaches below μ = 64).
func RankSmallestMu(k, n int, epsilon, delta, confidence, power float64) float64 {
	const top = 64
	curve := rankPowerCurve(k, n, epsilon, delta, confidence)
	if curve(top) < power {
		return math.Inf(1)
	}
	lo, hi := 0.0, float64(top)
	for hi-lo > 1e-6*hi {
		mid := (lo + hi) / 2
		if curve(mid) >= power {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
