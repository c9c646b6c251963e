package estimate

import (
	"math"
	"slices"
)

// Interval is a confidence interval of an estimate. It is an estimate too: a bootstrap
// interval describes sampling variability, not a guaranteed bound.
type Interval struct {
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
}

// Estimate is a point estimate with its interval.
type Estimate struct {
	Value    float64  // bias-corrected estimate θ̂ − b (clamped at 0 for divergences)
	PlugIn   float64  // the estimator on the full samples, before bias correction
	Interval Interval // bootstrap (or half-sampling) interval at the stated confidence
	SE       float64  // bootstrap standard error
	Reps     int      // resamples
}

// basicInterval turns bootstrap replicates θ* of a divergence estimate θ̂ into an interval
// and a bias-corrected estimate, using the pivot h(θ̂) − √(θ + b/2) with
// h(x) = √max(0, x − b/2) and b = mean(θ*) − θ̂ the bootstrap bias (clamped at 0):
//
//	√(θ + b/2) ∈ [h(θ̂) − (q_{1−a/2} − c), h(θ̂) − (q_{a/2} − c)],   c = √(θ̂ + b/2),
//
// q the quantiles of h(θ*), and θ = y² − b/2 back on the divergence scale.
//
// Why: a plug-in divergence behaves like a noncentral χ², q̂ = ‖Δ + e‖² with e the error of
// the estimated means, whose mean is θ + b (b the noise energy, which the bootstrap
// measures as its bias) and whose variance-stabilising transform is √(q̂ − b/2). The
// transform makes the reflection of the basic bootstrap accurate in both regimes the
// audits meet: few dimensions and few samples, where the estimate is skewed (there the
// pivot is the basic interval on the √ scale), and many dimensions, where the bias
// dominates the signal (there it is nearly the basic interval on the original scale).
// Measured coverage of nominal 95 % intervals in the validation tests: 91–97 %.
// Infinite replicates make the upper end infinite.
func basicInterval(plugIn float64, reps []float64, conf float64) Estimate {
	var mean, sq float64
	finite := 0
	for _, v := range reps {
		if !math.IsInf(v, 0) {
			mean += v
			finite++
		}
	}
	if finite > 0 {
		mean /= float64(finite)
	}
	for _, v := range reps {
		if !math.IsInf(v, 0) {
			sq += (v - mean) * (v - mean)
		}
	}
	e := Estimate{PlugIn: plugIn, Reps: len(reps)}
	if finite > 1 {
		e.SE = math.Sqrt(sq / float64(finite-1))
	}
	b := math.Max(0, mean-plugIn)
	h := func(x float64) float64 { return math.Sqrt(math.Max(0, x-b/2)) }
	hs := make([]float64, len(reps))
	for i, v := range reps {
		hs[i] = h(v)
	}
	slices.Sort(hs)
	a := 1 - conf
	qLo, qHi := quantile(hs, a/2), quantile(hs, 1-a/2)
	switch {
	case math.IsInf(plugIn, 1):
		// the pivot is undefined at infinity; the percentile end is the honest lower end
		e.Value, e.Interval = plugIn, Interval{Lower: math.Max(0, qLo*qLo+b/2), Upper: math.Inf(1)}
		return e
	case math.IsInf(qHi, 1):
		// some replicates diverge: the data do not rule out an infinite divergence
		e.Value, e.Interval = math.Max(0, plugIn-b), Interval{Lower: 0, Upper: math.Inf(1)}
		return e
	}
	c := math.Sqrt(math.Max(0, plugIn) + b/2)
	back := func(y float64) float64 { y = math.Max(0, y); return math.Max(0, y*y-b/2) }
	e.Value = math.Max(0, plugIn-b)
	e.Interval = Interval{Lower: back(h(plugIn) - (qHi - c)), Upper: back(h(plugIn) - (qLo - c))}
	return e
}

// quantile of sorted values, linear interpolation between order statistics.
func quantile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	h := p * float64(len(sorted)-1)
	i := int(math.Floor(h))
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	lo, hi := sorted[i], sorted[i+1]
	if math.IsInf(hi, 1) {
		if h == float64(i) {
			return lo
		}
		return hi
	}
	return lo + (h-float64(i))*(hi-lo)
}
