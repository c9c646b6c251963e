package checks

import (
	"fmt"
	"math"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"gonum.org/v1/gonum/stat/distuv"
)

// GaussianRelease checks a method that publishes its secret model plus isotropic Gaussian
// noise, N(θ̂, σ²I), against a claim about the published laws of the unlearned model and
// the retrain.
//
// Conditional on a trial's history, both published laws are Gaussians whose means are the
// trials' secret models (known exactly) and whose noise is what the implementation really
// added (measured from published − secret). The check
//
//  1. tests the noise: on each side, that its scale is the calibrated σ (a two-sided
//     chi-square test: weaker noise voids the certificate, stronger noise is not the
//     mechanism certified) and that it is centred on the secret model (an F test); across
//     sides, that both add noise of one scale (an F test);
//  2. bounds D_α between the two published laws at the worst trial. When the noise tests
//     accept the equal-noise model the theorem analyses, the interval comes from the pooled
//     variance (noise stronger than calibrated only lowers the divergence); otherwise it is
//     the rigorous bound over every pair of variances in the two per-side intervals (a side
//     with no noise at all makes the divergence +Inf);
//  3. converts the distance of means to the exact (ε, δ) of the Gaussian mechanism.
//
// Verdicts follow the package rule; in addition, a rejected noise test is a FAIL: the
// release is not the mechanism the certificate analysed. The tests share the
// false-alarm budget 1 − Confidence (Bonferroni).
type GaussianRelease struct {
	Prefix     string  // check identifier prefix, e.g. "d2d"
	Sigma      float64 // the calibrated noise scale σ
	Rho        float64 // claimed Rényi curve: D_α ≤ α·ρ
	Epsilon    float64 // claimed ε of the mechanism step
	Delta      float64 // δ of the mechanism step
	Alpha      float64 // Rényi order reported; 0 means 2
	Confidence float64 // 0 means 0.95
}

// noiseStats summarises published − secret on one side.
type noiseStats struct {
	n, d     int
	ss       float64 // Σ‖r_k‖²
	ssWithin float64 // Σ‖r_k − r̄‖²
	meanSq   float64 // ‖r̄‖²
}

func residualStats(results []trials.TrialResult, side func(trials.TrialResult) reference.Release) (noiseStats, error) {
	st := noiseStats{n: len(results)}
	var mean []float64
	for _, tr := range results {
		rel := side(tr)
		if len(rel.Secret) != len(rel.Published) {
			return st, fmt.Errorf("trial %d: release has no secret model of the published length; the Gaussian release check needs it", tr.Index)
		}
		if mean == nil {
			st.d = len(rel.Published)
			mean = make([]float64, st.d)
		}
		for j, p := range rel.Published {
			r := p - rel.Secret[j]
			st.ss += r * r
			mean[j] += r / float64(st.n)
		}
	}
	for _, v := range mean {
		st.meanSq += v * v
	}
	st.ssWithin = math.Max(0, st.ss-float64(st.n)*st.meanSq)
	return st, nil
}

// varianceInterval is the two-sided chi-square interval for σ² from a sum of squares with
// the given degrees of freedom, at level 1 − a.
func VarianceInterval(ss float64, dof int, a float64) verdict.Interval {
	c := distuv.ChiSquared{K: float64(dof)}
	return verdict.Interval{Lower: ss / c.Quantile(1-a/2), Upper: ss / c.Quantile(a/2)}
}

// centredPValue is the F-test p-value of H0: the residual mean is zero.
func (st noiseStats) centredPValue() float64 {
	if st.ss == 0 || st.n < 2 {
		return 1 // no noise at all: trivially centred; the scale test speaks instead
	}
	within := st.ssWithin / float64(st.d*(st.n-1))
	if within == 0 {
		return 0
	}
	f := (float64(st.n) * st.meanSq / float64(st.d)) / within
	return 1 - distuv.F{D1: float64(st.d), D2: float64(st.d * (st.n - 1))}.CDF(f)
}

// renyiScaleTerm is the per-dimension divergence of zero-mean Gaussians with variance ratio
// r = a/b: D_α(N(0,a)‖N(0,b)) = −[ln(α + (1−α)r) − (1−α) ln r] / (2(α−1)). It is 0 at r = 1,
// decreasing below 1 and increasing above it, +Inf at r = 0 and at r ≥ α/(α−1).
func renyiScaleTerm(alpha, r float64) float64 {
	if r == 1 {
		return 0
	}
	s := alpha + (1-alpha)*r
	if r <= 0 || s <= 0 || math.IsInf(r, 1) {
		return math.Inf(1)
	}
	return -(math.Log(s) - (1-alpha)*math.Log(r)) / (2 * (alpha - 1))
}

// renyiBox bounds D_α(N(μ₁, aI_d) ‖ N(μ₂, bI_d)), ‖μ₁−μ₂‖ = dist, over a ∈ A, b ∈ B, by
// bounding its two terms separately: α dist²/(2(αb + (1−α)a)) and d·renyiScaleTerm(a/b).
func renyiBox(alpha, dist float64, d int, A, B verdict.Interval) verdict.Interval {
	mean := func(s float64) float64 {
		if dist == 0 {
			return 0
		}
		if s <= 0 {
			return math.Inf(1)
		}
		return alpha * dist * dist / (2 * s)
	}
	rLo, rHi := VarianceRatio(A.Lower, B.Upper), VarianceRatio(A.Upper, B.Lower)
	var gMin float64
	switch {
	case rHi < 1:
		gMin = renyiScaleTerm(alpha, rHi)
	case rLo > 1:
		gMin = renyiScaleTerm(alpha, rLo)
	}
	gMax := math.Max(renyiScaleTerm(alpha, rLo), renyiScaleTerm(alpha, rHi))
	return verdict.Interval{
		Lower: mean(alpha*B.Upper+(1-alpha)*A.Lower) + float64(d)*gMin,
		Upper: mean(alpha*B.Lower+(1-alpha)*A.Upper) + float64(d)*gMax,
	}
}

func VarianceRatio(a, b float64) float64 {
	switch {
	case a == 0 && b == 0:
		return 1 // both sides noiseless: equal (degenerate) laws
	case b == 0:
		return math.Inf(1)
	}
	return a / b
}

// Check runs the release check on finished trials.
func (g GaussianRelease) Check(results []trials.TrialResult) ([]verdict.Finding, error) {
	if len(results) < 2 {
		return nil, fmt.Errorf("gaussian release check: %d trials; want at least 2", len(results))
	}
	alpha := g.Alpha
	if alpha == 0 {
		alpha = 2
	}
	conf := g.Confidence
	if conf == 0 {
		conf = 0.95
	}
	un, err := residualStats(results, func(t trials.TrialResult) reference.Release { return t.Unlearned })
	if err != nil {
		return nil, fmt.Errorf("gaussian release check, unlearned side: %w", err)
	}
	re, err := residualStats(results, func(t trials.TrialResult) reference.Release { return t.Retrained })
	if err != nil {
		return nil, fmt.Errorf("gaussian release check, retrained side: %w", err)
	}
	if un.d != re.d || un.d == 0 {
		return nil, fmt.Errorf("gaussian release check: unlearned models have %d coordinates, retrained %d", un.d, re.d)
	}
	d, n := un.d, len(results)
	var worst float64
	for _, tr := range results {
		// Methods whose proof couples the retrain to the run's random choices (D2D's
		// distributed descent) compare with that coupled retrain: conditional on those
		// choices both laws are Gaussian with these means, and the published laws are
		// mixtures of such pairs, whose divergence is at most the worst pair's.
		other := tr.Retrained.Secret
		if tr.Unlearned.Coupled != nil {
			other = tr.Unlearned.Coupled
		}
		worst = math.Max(worst, reference.Distance(tr.Unlearned.Secret, other))
	}

	// The model tests share 1 − conf (Bonferroni, seven shares of a): on each side, the
	// noise scale equal to the calibrated σ (two-sided, 2a: weaker noise voids the
	// certificate, stronger means the release is not the mechanism certified) and centred
	// on the secret model (a); across sides, equal noise scales (a).
	a := (1 - conf) / 7
	sig2 := g.Sigma * g.Sigma
	var failures []string
	sides := []struct {
		name string
		st   noiseStats
		iv   verdict.Interval // two-sided interval at level 1 − 2a, so each end is a one-sided bound at a
	}{{"unlearned", un, VarianceInterval(un.ss, n*d, 2*a)}, {"retrained", re, VarianceInterval(re.ss, n*d, 2*a)}}
	for _, s := range sides {
		if s.iv.Upper < sig2 {
			failures = append(failures, fmt.Sprintf("%s side: noise σ̂ = %.4g, its %.4g%% upper bound %.4g is below the calibrated σ = %.4g",
				s.name, math.Sqrt(s.st.ss/float64(n*d)), 100*(1-a), math.Sqrt(s.iv.Upper), g.Sigma))
		}
		if s.iv.Lower > sig2 {
			failures = append(failures, fmt.Sprintf("%s side: noise σ̂ = %.4g, its %.4g%% lower bound %.4g is above the calibrated σ = %.4g: not the mechanism certified",
				s.name, math.Sqrt(s.st.ss/float64(n*d)), 100*(1-a), math.Sqrt(s.iv.Lower), g.Sigma))
		}
		if p := s.st.centredPValue(); p < a {
			failures = append(failures, fmt.Sprintf("%s side: published models are not centred on the secret model (F-test p = %.3g)", s.name, p))
		}
	}
	if p := equalScalePValue(un.ss, re.ss, n*d); p < a {
		failures = append(failures, fmt.Sprintf("the two sides add noise of different scales (σ̂ = %.4g unlearned, %.4g retrained; F-test p = %.3g)",
			math.Sqrt(un.ss/float64(n*d)), math.Sqrt(re.ss/float64(n*d)), p))
	}
	equalModel := len(failures) == 0

	claimD := alpha * g.Rho
	var dIv, epsIv verdict.Interval
	var dPoint, epsPoint float64
	if equalModel {
		pooled := VarianceInterval(un.ss+re.ss, 2*n*d, 1-conf)
		v := (un.ss + re.ss) / float64(2*n*d)
		dOf := func(v float64) float64 { return dp.RenyiGaussianIsotropic(alpha, worst, d, math.Sqrt(v), math.Sqrt(v)) }
		dIv = verdict.Interval{Lower: dOf(pooled.Upper), Upper: dOf(pooled.Lower)}
		dPoint = dOf(v)
		lo, _ := exactEpsBounds(worst, pooled.Upper, g.Delta)
		_, hi := exactEpsBounds(worst, pooled.Lower, g.Delta)
		epsIv = verdict.Interval{Lower: lo, Upper: hi}
		_, epsPoint = exactEpsBounds(worst, v, g.Delta)
	} else {
		vu, vr := un.ss/float64(n*d), re.ss/float64(n*d)
		f := renyiBox(alpha, worst, d, sides[0].iv, sides[1].iv)
		b := renyiBox(alpha, worst, d, sides[1].iv, sides[0].iv)
		dIv = verdict.Interval{Lower: math.Max(f.Lower, b.Lower), Upper: math.Max(f.Upper, b.Upper)}
		dPoint = math.Max(dp.RenyiGaussianIsotropic(alpha, worst, d, math.Sqrt(vu), math.Sqrt(vr)),
			dp.RenyiGaussianIsotropic(alpha, worst, d, math.Sqrt(vr), math.Sqrt(vu)))
		lo := math.Min(sides[0].iv.Lower, sides[1].iv.Lower)
		hi := math.Max(sides[0].iv.Upper, sides[1].iv.Upper)
		epsLo, _ := exactEpsBounds(worst, hi, g.Delta)
		_, epsHi := exactEpsBounds(worst, lo, g.Delta)
		epsIv = verdict.Interval{Lower: epsLo, Upper: epsHi}
		_, epsPoint = exactEpsBounds(worst, math.Min(vu, vr), g.Delta)
	}

	model := fmt.Sprintf("noise tests accept the equal-noise Gaussian model the theorem analyses (σ̂ = %.4g unlearned, %.4g retrained; calibrated σ = %.4g)",
		math.Sqrt(un.ss/float64(n*d)), math.Sqrt(re.ss/float64(n*d)), g.Sigma)
	if !equalModel {
		model = strings.Join(failures, "; ")
	}
	// the power of each side's two-sided scale test (level 2a), stated so a PASS says what
	// it could have caught
	scale := verdict.NewVarianceTest(n*d, 2*a)
	renyi := verdict.Finding{
		Check: g.Prefix + "/release/renyi", Kind: verdict.Release,
		Title:    fmt.Sprintf("Rényi divergence D_%g of the published laws (worst trial)", alpha),
		Measured: dPoint, Interval: &dIv, Bound: claimD, Comparison: "≤", Confidence: conf, Trials: n,
		Detail: fmt.Sprintf("max over trials of ‖θ̂_unlearned − θ̂_retrained‖ = %.4g; %s; each side's noise-scale test (two-sided χ², %d degrees of freedom) catches a variance off by %.3g× either way with 80 %% power",
			worst, model, n*d, verdict.RoundUp3(scale.Resolves())),
	}
	renyi.Verdict = verdict.DecideUpper(dIv, claimD)
	exact := verdict.Finding{
		Check: g.Prefix + "/release/exact-epsilon", Kind: verdict.Release,
		Title:    fmt.Sprintf("exact (ε, δ) of the published laws at δ = %.3g (worst trial)", g.Delta),
		Measured: epsPoint, Interval: &epsIv, Bound: g.Epsilon, Comparison: "≤", Confidence: conf, Trials: n,
		Detail: "Gaussian-mechanism privacy profile (Balle–Wang 2018) of the two published laws",
	}
	exact.Verdict = verdict.DecideUpper(epsIv, g.Epsilon)
	if epsIv.Upper > dp.MaxExactEpsilon && !math.IsInf(epsIv.Upper, 1) {
		exact.Detail += fmt.Sprintf("; beyond ε = %g the privacy profile is bounded, not solved: ε ≥ s²/2 (δ(s²/2) ≥ ½ − 1/(s√(2π)) > δ) and ε ≤ ρ + 2√(ρ ln(1/δ)), ρ = s²/2 (zCDP), s = distance/σ; the measurement is the upper bound", dp.MaxExactEpsilon)
	}
	if why := g.infiniteCause(un, re, worst, results); why != "" {
		for _, f := range []*verdict.Finding{&renyi, &exact} {
			if math.IsInf(f.Measured, 1) || math.IsInf(f.Interval.Upper, 1) {
				f.Detail = why + "; " + f.Detail
			}
		}
	}
	if math.IsNaN(claimD) || math.IsInf(claimD, 0) {
		// the claim's ρ is not a number to compare with (issue 41, item 12: the HF demo at
		// --hf-eta 5e-324 calibrates σ = 0, and ρ = Δ²/(2σ²) is 0/0): say so first
		cause := "the certified distance or noise overflows float64"
		if g.Sigma == 0 {
			cause = "the calibrated σ is 0 (the settings put it below float64's smallest number), and a noise of 0 certifies no finite ρ"
		}
		renyi.Detail = fmt.Sprintf("the bound α·ρ = %g × %g is %v because %s: no divergence can be compared with it; ", alpha, g.Rho, claimD, cause) + renyi.Detail
	}
	if len(failures) > 0 {
		renyi.Verdict, exact.Verdict = verdict.Fail, verdict.Fail
	}
	for _, f := range []*verdict.Finding{&renyi, &exact} {
		if f.Verdict == verdict.Inconclusive && equalModel {
			f.TrialsNeeded = trialsToDecide(n, func(m int) verdict.Verdict {
				pooled := VarianceInterval(un.ss/float64(n)*float64(m)+re.ss/float64(n)*float64(m), 2*m*d, 1-conf)
				if f == &renyi {
					return verdict.DecideUpper(verdict.Interval{
						Lower: dp.RenyiGaussianIsotropic(alpha, worst, d, math.Sqrt(pooled.Upper), math.Sqrt(pooled.Upper)),
						Upper: dp.RenyiGaussianIsotropic(alpha, worst, d, math.Sqrt(pooled.Lower), math.Sqrt(pooled.Lower)),
					}, claimD)
				}
				lo, _ := exactEpsBounds(worst, pooled.Upper, g.Delta)
				_, hi := exactEpsBounds(worst, pooled.Lower, g.Delta)
				return verdict.DecideUpper(verdict.Interval{Lower: lo, Upper: hi}, g.Epsilon)
			})
		}
	}
	return []verdict.Finding{renyi, exact}, nil
}

// equalScalePValue is the two-sided F-test p-value of H0: both sides' noise has the same
// variance, from their sums of squares with dof degrees of freedom each.
func equalScalePValue(ssA, ssB float64, dof int) float64 {
	switch {
	case ssA == 0 && ssB == 0:
		return 1
	case ssA == 0 || ssB == 0:
		return 0
	}
	c := distuv.F{D1: float64(dof), D2: float64(dof)}.CDF(ssA / ssB)
	return math.Min(1, 2*math.Min(c, 1-c))
}

// exactEpsBounds bounds the exact ε at δ of two Gaussians at distance dist with common
// variance v: lo = hi = the exact ε where dp.GaussianExactEpsilon solves it; beyond its
// range (dp.MaxExactEpsilon), where the profile is +Inf in floating point, the bounds
// of s = dist/√v: lo = s²/2, since δ(s²/2) = ½ − e^{s²/2}Φ(−s) ≥ ½ − 1/(s√(2π))
// (Mills' ratio) exceeds δ there (s is above 10³), and hi = ρ + 2√(ρ ln(1/δ)),
// ρ = s²/2, the zCDP conversion (Bun and Steinke 2016, Prop. 1.3). +Inf on both only
// when there is no noise (v = 0) and the means differ.
func exactEpsBounds(dist, v, delta float64) (lo, hi float64) {
	if dist == 0 {
		return 0, 0
	}
	if v == 0 {
		return math.Inf(1), math.Inf(1)
	}
	s := dist / math.Sqrt(v)
	e := dp.GaussianExactEpsilon(s, delta)
	if !math.IsInf(e, 1) || math.IsInf(s, 1) {
		return e, e
	}
	rho := s * s / 2
	return rho, rho + 2*math.Sqrt(rho*math.Log(1/delta))
}

// exactEps is the exact ε at δ of two Gaussians at distance dist with common variance v
// where dp.GaussianExactEpsilon solves it, and beyond its range exactEpsBounds' upper
// bound: the ε a certificate may state for the pair.
func ExactEps(dist, v, delta float64) float64 {
	_, hi := exactEpsBounds(dist, v, delta)
	return hi
}

// trialsToDecide is the least trial count m ≥ n at which decide(m) is not INCONCLUSIVE,
// assuming the point estimates stay where they are; 0 when no count up to 10⁹ decides.
func trialsToDecide(n int, decide func(m int) verdict.Verdict) int {
	m := LeastTrue(float64(n), true, func(m float64) bool { return decide(int(m)) != verdict.Inconclusive })
	if math.IsInf(m, 1) {
		return 0
	}
	return int(m)
}

// infiniteCause says why the release's divergence is +Inf, for the findings that show
// it: a side whose models carry no noise at all (σ̂ = 0) publishes a point mass, which is
// infinitely far from any law that differs from it — and when σ is below float64's spacing
// at the models, the noise was lost in rounding (Unrealisable). "" when a side has noise.
func (g GaussianRelease) infiniteCause(un, re noiseStats, worst float64, results []trials.TrialResult) string {
	var silent []string
	if un.ss == 0 {
		silent = append(silent, "unlearned")
	}
	if re.ss == 0 {
		silent = append(silent, "retrained")
	}
	if len(silent) == 0 {
		return ""
	}
	why := fmt.Sprintf("+Inf because the %s side's published models equal their secret ones (σ̂ = 0): a law with no noise is infinitely far from any other (the secret models are %.3g apart)",
		strings.Join(silent, " and the "), worst)
	if r := Unrealisable(g.Sigma, 0, TrialResolution(results)); r != "" {
		why += "; " + r
	}
	return why
}

// leastTrue is the least x ≥ from at which ok, monotone in x, holds: to 4 significant
// digits, or the least integer when integer is set (from being one); +Inf when none up
// to 10⁹ does.
func LeastTrue(from float64, integer bool, ok func(float64) bool) float64 {
	if ok(from) {
		return from
	}
	lo, hi := from, 2*from
	for !ok(hi) {
		lo, hi = hi, 2*hi
		if hi > 1e9 {
			return math.Inf(1)
		}
	}
	for (integer && hi-lo > 1) || (!integer && hi-lo > 1e-4*hi) {
		mid := (lo + hi) / 2
		if integer {
			mid = math.Floor(mid)
		}
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
