package ars

import (
	"fmt"
	"math"
	"testing"
)

// The statistical tests below draw from fixed seeds, so each passes or fails the same way
// every run; the false-failure probability each states is the chance, over the choice of
// seed, that a correct generator fails it, and the test's bound is the normal or binomial
// law's quantile at that probability, not a tolerance tuned until green. The sample sizes
// come from the power each test states (-short keeps them); the package's tests take ~2 s
// on one core.

// zTwoSided is the two-sided standard normal quantile at false-alarm probability alpha.
func zTwoSided(alpha float64) float64 { return math.Sqrt2 * math.Erfcinv(alpha) }

// sample is n normals of seed's streams, trials 0, 1, … of length 1024 at step 3, from
// FillWide (stream v3: float32 normals widened exactly, the engine's law; TestLayout
// holds them to the transform value by value): the shape the engine draws, many short
// streams, so that the trial addressing is exercised along with the generator.
func sample(n int, seed uint64) []float64 {
	const per = 1024
	out := make([]float64, n)
	for t := 0; t*per < n; t++ {
		FillWide(out[t*per:min(n, (t+1)*per)], seed, uint64(t), 3)
	}
	return out
}

// The first four moments of 2²² normals, each two-sided within its sampling law: mean ~
// N(0, 1/n), variance − 1 ~ N(0, 2/n), skewness ~ N(0, 6/n), excess kurtosis ~ N(0, 24/n)
// (n = 4·10⁶: the normal approximations are accurate far into their tails). 4 statistics
// at 2.5·10⁻⁷ each: false failure ≤ 10⁻⁶. Power: 80 % for a variance off by 0.41 %, a
// mean off by 0.0029, a skewness off by 0.0072 or a kurtosis off by 0.014. Planted: the
// radius √(−ln u) instead of √(−2 ln u) (variance ½) fails it (variance − 1 = −0.5, −724
// standard errors).
func TestMoments(t *testing.T) {
	const n = 1 << 22
	z := zTwoSided(1e-6 / 4)
	x := sample(n, 0x5eed0001)
	var s1, s2, s3, s4 float64
	for _, v := range x {
		s1 += v
	}
	mean := s1 / n
	for _, v := range x {
		d := v - mean
		d2 := d * d
		s2 += d2
		s3 += d2 * d
		s4 += d2 * d2
	}
	m2, m3, m4 := s2/n, s3/n, s4/n
	stats := []struct {
		name      string
		value, sd float64
	}{
		{"mean", mean, math.Sqrt(1.0 / n)},
		{"variance − 1", m2 - 1, math.Sqrt(2.0 / n)},
		{"skewness", m3 / math.Pow(m2, 1.5), math.Sqrt(6.0 / n)},
		{"excess kurtosis", m4/(m2*m2) - 3, math.Sqrt(24.0 / n)},
	}
	for _, s := range stats {
		if math.IsNaN(s.value) || math.Abs(s.value/s.sd) > z {
			t.Errorf("%s = %.5f, %.1f standard errors from 0 (bound ±%.2f)", s.name, s.value, s.value/s.sd, z)
		}
	}
}

// binomialTails is P(X ≤ k) and P(X ≥ k) for X ~ Binomial(n, p), summed exactly (in
// log space) over the terms that matter: below 10⁻³⁰⁰ of the largest they are dropped.
func binomialTails(n int, p float64, k int) (lower, upper float64) {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	logPMF := func(j int) float64 {
		return lg(n) - lg(j) - lg(n-j) + float64(j)*math.Log(p) + float64(n-j)*math.Log1p(-p)
	}
	for j := k; j >= 0; j-- {
		v := math.Exp(logPMF(j))
		lower += v
		if v < 1e-300 && float64(j) < float64(n)*p {
			break
		}
	}
	for j := k; j <= n; j++ {
		v := math.Exp(logPMF(j))
		upper += v
		if v < 1e-300 && float64(j) > float64(n)*p {
			break
		}
	}
	return min(lower, 1), min(upper, 1)
}

// The counts of 2²³ normals beyond ±3, 4, 5 and 6σ, each two-sided against the exact
// binomial law of the count under the normal law's tail probability: 4 counts at
// 2.5·10⁻⁷ each, false failure ≤ 10⁻⁶. The expected counts are 22 650, 531, 4.8 and
// 0.017: at 6σ only an excess can show (4 or more fail). Power: 80 % for a 4σ tail 28 %
// heavy or 25 % light (655 or more, 416 or fewer). Planted: the radius 2 % too long
// (sd 1.02) fails it (the 4σ count 731 against 531; the 3σ count too).
func TestTails(t *testing.T) {
	const n = 1 << 23
	alpha := 1e-6 / 4
	x := sample(n, 0x5eed0002)
	for _, c := range []float64{3, 4, 5, 6} {
		k := 0
		for _, v := range x {
			if math.Abs(v) > c {
				k++
			}
		}
		q := math.Erfc(c / math.Sqrt2)
		lo, hi := binomialTails(n, q, k)
		if lo < alpha/2 || hi < alpha/2 {
			t.Errorf("%d of %d beyond ±%gσ, expected %.3g: P(X ≤ %d) = %.2g, P(X ≥ %d) = %.2g (bound %.2g each side)",
				k, n, c, q*n, k, lo, k, hi, alpha/2)
		}
	}
}

// A χ² of 2²¹ normals in 1024 bins equiprobable under the normal law (bin ⌊1024·Φ(z)⌋,
// 2048 expected in each), two-sided against the χ²₁₀₂₃ law (its quantiles by Wilson and
// Hilferty's cube-root approximation, accurate to <0.1 % of the quantile at 1023 degrees):
// 1 statistic at 10⁻⁶, false failure ≤ 10⁻⁶. Too small a χ² (values too evenly
// spread, as a stratified or lattice stream would be) fails as too large does. Power: 80 %
// for a noncentrality of ~285, e.g. a scale off by 0.82 % (Fisher information 2 a unit).
// Planted: the angle πv instead of 2πv (every sine positive) fails it (χ² ≈ 526 200).
func TestChiSquareFineBins(t *testing.T) {
	const n, bins = 1 << 21, 1024
	alpha := 1e-6
	df := float64(bins - 1)
	wh := func(z float64) float64 {
		a := 2 / (9 * df)
		return df * math.Pow(1-a+z*math.Sqrt(a), 3)
	}
	z := zTwoSided(alpha)
	lo, hi := wh(-z), wh(z)
	x := sample(n, 0x5eed0003)
	var count [bins]int
	for _, v := range x {
		b := int(bins * 0.5 * math.Erfc(-v/math.Sqrt2))
		count[min(max(b, 0), bins-1)]++
	}
	e := float64(n) / bins
	chi2 := 0.0
	for _, c := range count {
		d := float64(c) - e
		chi2 += d * d / e
	}
	if !(chi2 > lo && chi2 < hi) {
		t.Errorf("χ² = %.1f on %g degrees of freedom, outside [%.1f, %.1f]", chi2, df, lo, hi)
	}
}

// lagCorrelation is Σ x[i]·y[i+lag] / m over the m pairs that exist: for independent
// standard normals its √m multiple is standard normal (the product has variance 1; the
// mean is known, 0, so nothing is estimated).
func lagCorrelation(x, y []float64, lag int) (r float64, m int) {
	for i := range x {
		if j := i + lag; j >= 0 && j < len(y) {
			r += x[i] * y[j]
			m++
		}
	}
	return r / float64(m), m
}

// Streams are independent: the correlations of 2²⁰ normals of trial t with trial t+1's
// and of step s with step s+1's, at lags −8…8 (an overlap shifted by up to two blocks
// shows: a block is 4 of a group's 16 radius words), and of a stream with itself at lags
// 1…4 and 16 (a Box–Muller pair's two normals, 16 apart in a group). 17 + 17 + 5 = 39
// statistics at 2.6·10⁻⁸ each: false failure ≤ 10⁻⁶. Power: 80 % for a correlation of
// 0.0063. Planted, each fails it: trial streams overlapping (word 0 of the counter
// i + trial, so trial t+1 is trial t one block on: lag −4 correlation ¾), the step left
// out of the counter (lag 0 correlation 1), and Box–Muller's cosine for both normals of
// a pair (lag 16 correlation ½).
func TestIndependence(t *testing.T) {
	lags := func(lo, hi int) (l []int) {
		for i := lo; i <= hi; i++ {
			l = append(l, i)
		}
		return l
	}
	const n = 1 << 20
	const seed, trial, step = 0x5eed0004, 41, 9
	z := zTwoSided(1e-6 / 39)
	draw := func(tr uint64, st uint32) []float64 {
		out := make([]float64, n)
		FillWide(out, seed, tr, st)
		return out
	}
	base := draw(trial, step)
	pairs := []struct {
		name string
		y    []float64
		lags []int
	}{
		{fmt.Sprintf("trial %d with %d", trial, trial+1), draw(trial+1, step), lags(-8, 8)},
		{fmt.Sprintf("step %d with %d", step, step+1), draw(trial, step+1), lags(-8, 8)},
		{"the stream with itself", base, []int{1, 2, 3, 4, 16}},
	}
	for _, q := range pairs {
		for _, lag := range q.lags {
			r, m := lagCorrelation(base, q.y, lag)
			if s := r * math.Sqrt(float64(m)); !(math.Abs(s) <= z) {
				t.Errorf("%s at lag %d: correlation %.4f, %.1f standard errors (bound ±%.2f)", q.name, lag, r, s, z)
			}
		}
	}
}
