package verify

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// NoisyModels are what such a pipeline hands over: its published models, and for each of
// them the parameters before the noise. Row i of PreUnlearned and row i of PreRetrained
// are pair i, coupled as the proof couples them (the same data order, the same shared
// randomness); row i of Unlearned is row i of PreUnlearned plus the noise drawn for it,
// and likewise on the retrained side.
type NoisyModels struct {
	Unlearned, Retrained       *mat.Dense // published, one model a row
	PreUnlearned, PreRetrained *mat.Dense // before the noise, one model a row, paired by row
	// Pairs, when set, names pair i in messages (e.g. its pre-noise unlearned file);
	// otherwise pairs are named by their row.
	Pairs []string
}

// pair names pair i.
func (m NoisyModels) pair(i int) string {
	if i < len(m.Pairs) {
		return fmt.Sprintf("pair %d (%s)", i, m.Pairs[i])
	}
	return fmt.Sprintf("pair %d (row %d)", i, i)
}

// VerifyNoisy audits a pipeline that publishes its models with Gaussian noise by the three
// checks the toolkit runs on its own methods, on the pipeline's declared certificate
// (s.Noise) and the parameters it hands over (m):
//
//  1. certificate: the σ the Gaussian mechanism needs for the claim (ε, δ) at Δ, exact
//     (Balle–Wang's analytic calibration), against the declared σ;
//  2. implementation: every pair's pre-noise gap ‖θ_u − θ_r‖ within Δ;
//  3. release: the noise (published − pre-noise) measured two-sided against σ on each side
//     (noiseScaleFinding), with its power against the claim's named alternative.
//
// Together they prove the claim for the pairs given: the published laws of a pair are
// N(θ_u, σ²I) and N(θ_r, σ²I) at distance at most Δ, which the calibration makes
// (ε, δ)-indistinguishable. They decide the verdict (Claim.Required), so a PASS is earned
// with tens of models where the black-box game needs orders of magnitude more; the game
// on the published models (VerifyModels, with the data ds when given) stays beside them
// as supporting evidence when each side has MinEmpiricalTrials models.
func VerifyNoisy(ctx context.Context, m NoisyModels, ds *reference.Dataset, s *spec.Spec) (verdict.Claim, []verdict.Finding, error) {
	if s.Noise == nil {
		return verdict.Claim{}, nil, fmt.Errorf("verify: the pre-noise route needs the certificate declared: the spec's \"noise\": {\"sensitivity\": Δ, \"sigma\": σ}")
	}
	n, d, err := paired(m.PreUnlearned, m.PreRetrained, "verify: pre-noise parameters", "have %d parameters")
	if err != nil {
		return verdict.Claim{}, nil, err
	}
	for _, side := range []struct {
		name string
		pub  *mat.Dense
	}{{"unlearned", m.Unlearned}, {"retrained", m.Retrained}} {
		if side.pub == nil {
			return verdict.Claim{}, nil, fmt.Errorf("verify: no published %s models: the noise is published − pre-noise", side.name)
		}
		if r, c := side.pub.Dims(); r != n || c != d {
			return verdict.Claim{}, nil, fmt.Errorf("verify: %d published %s models of %d parameters, %d pre-noise ones of %d: want the same models in the same order, before and after the noise", r, side.name, c, n, d)
		}
	}
	if n < 2 {
		return verdict.Claim{}, nil, fmt.Errorf("verify: %d pair of models; the noise check needs at least 2 a side", n)
	}
	noise := func(pub, pre *mat.Dense, side string) (*mat.Dense, error) {
		var r mat.Dense
		r.Sub(pub, pre)
		for i := range n {
			for j, v := range r.RawRowView(i) {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("verify: %s model %d, parameter %d: published − pre-noise is %v; want finite parameters", side, i, j, v)
				}
			}
		}
		return &r, nil
	}
	nu, err := noise(m.Unlearned, m.PreUnlearned, "unlearned")
	if err != nil {
		return verdict.Claim{}, nil, err
	}
	nr, err := noise(m.Retrained, m.PreRetrained, "retrained")
	if err != nil {
		return verdict.Claim{}, nil, err
	}
	c := *s.Noise
	need, err := dp.AnalyticGaussianSigma(c.Sensitivity, s.Epsilon, s.Delta)
	if err != nil {
		return verdict.Claim{}, nil, fmt.Errorf("verify: %w", err)
	}
	findings := []verdict.Finding{
		noiseCertificateFinding(c, need, s.Epsilon, s.Delta),
		preNoiseGapFinding(m, c.Sensitivity),
		noiseScaleFinding(nu, nr, c, s),
	}
	claim := s.SavedClaim("published with Gaussian noise", "the law of the published models after the deletions vs of models retrained without the deleted records, each pair's parameters before the noise coupled as the proof couples them")
	claim.Guarantee = "(ε, δ)-unlearning by output perturbation (the Gaussian mechanism)"
	claim.Required = verdict.StateHolding
	claim.Assumptions = []string{
		"the pre-noise parameters given are those the noise was added to: published = pre-noise + noise, model by model",
		"the noise is drawn afresh for every published model, independent of the data and of the pre-noise parameters, N(0, σ²) in every coordinate",
		"Δ bounds the pre-noise gap of every pair the pipeline can produce, as its proof states: the implementation check measures it on the pairs given, not on pairs not given",
		"the models given are all the runs made (none selected after the fact)",
	}
	claim.Constants = []verdict.Value{{Name: "Δ (declared L2 sensitivity)", Value: c.Sensitivity}, {Name: "σ (declared noise)", Value: c.Sigma}}
	claim.Derivation = []verdict.Step{
		{Quantity: "σ needed", Formula: "least σ with δ_Gauss(ε; Δ/σ) ≤ δ (Balle–Wang 2018, analytic Gaussian mechanism)", Value: need},
		{Quantity: "ε at the declared σ", Formula: "exact ε at δ of N(0, σ²) vs N(Δ, σ²)", Value: checks.ExactEps(c.Sensitivity, c.Sigma*c.Sigma, s.Delta)},
	}
	if n < checks.MinEmpiricalTrials {
		claim.Notes = append(claim.Notes, fmt.Sprintf("the black-box game on the published models needs %d models a side; with %d it was not played", checks.MinEmpiricalTrials, n))
		return claim, findings, nil
	}
	_, game, err := VerifyModels(ctx, m.Unlearned, m.Retrained, ds, s)
	if err != nil {
		return verdict.Claim{}, nil, err
	}
	return claim, append(findings, game...), nil
}

// noiseCertificateFinding is the certificate check: the σ the Gaussian mechanism needs for
// (ε, δ) at Δ (need, exact) is at most the declared σ.
func noiseCertificateFinding(c spec.NoiseCertificate, need, eps, delta float64) verdict.Finding {
	at := checks.ExactEps(c.Sensitivity, c.Sigma*c.Sigma, delta)
	detail := fmt.Sprintf("the Gaussian mechanism at Δ = %.6g needs σ ≥ %.6g for ε = %g at δ = %g (exact: Balle–Wang's analytic calibration); the declared σ = %.6g is %.4g× that, and its exact ε at δ is %.4g",
		c.Sensitivity, need, eps, delta, c.Sigma, c.Sigma/need, at)
	f := verdict.Deterministic("verify/certificate/gaussian-sigma", "σ the Gaussian mechanism needs for the claim at the declared Δ, against the declared σ",
		verdict.Certificate, need, c.Sigma, 0, detail)
	if f.Verdict == verdict.Fail {
		f.Detail = fmt.Sprintf("σ too small for the claim: the declared σ = %.6g is below the σ = %.6g the Gaussian mechanism needs for ε = %g at δ = %g with Δ = %.6g (exact: Balle–Wang's analytic calibration); at the declared σ its exact ε is %.4g",
			c.Sigma, need, eps, delta, c.Sensitivity, at)
	}
	return f
}

// preNoiseGapFinding is the implementation check: every pair's pre-noise gap is within Δ.
// A FAIL names the widest pair and its gap, and how many pairs exceed Δ.
func preNoiseGapFinding(m NoisyModels, delta float64) verdict.Finding {
	n, _ := m.PreUnlearned.Dims()
	worst, at := -1.0, 0
	var over []string
	for i := range n {
		g := reference.Distance(m.PreUnlearned.RawRowView(i), m.PreRetrained.RawRowView(i))
		if g > worst || math.IsNaN(g) {
			worst, at = g, i
		}
		if !verdict.FloatTolerance(g, delta) || math.IsNaN(g) {
			over = append(over, fmt.Sprintf("%s: %.6g", m.pair(i), g))
		}
	}
	detail := fmt.Sprintf("the widest of the %d pairs before the noise is %s, ‖θ_u − θ_r‖ = %.6g, %.4g of Δ = %.6g; deterministic on the pairs given",
		n, m.pair(at), worst, worst/delta, delta)
	f := verdict.Deterministic("verify/implementation/pre-noise-gap", "largest pre-noise gap ‖θ_unlearned − θ_retrained‖ of a pair, against the declared Δ",
		verdict.Implementation, worst, delta, n, detail)
	if f.Verdict == verdict.Fail {
		shown := over
		if len(shown) > 5 {
			shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(over)-5))
		}
		f.Detail = fmt.Sprintf("gap beyond Δ: %s has ‖θ_u − θ_r‖ = %.6g before the noise, above the declared Δ = %.6g; %d of %d pairs exceed Δ (%s)",
			m.pair(at), worst, delta, len(over), n, strings.Join(shown, "; "))
	}
	return f
}

// noiseScaleFinding is the release check: on each side, Σ noise²/σ² against χ² with n·d
// degrees of freedom, two-sided (too little noise voids the certificate; too much means
// the release is not the mechanism certified). The four tails share 1 − Confidence
// (Bonferroni). The finding reports the side with the smaller p-value: its variance ratio
// σ̂²/σ² and the interval whose excluding 1 is the FAIL rule. A PASS also needs power:
// with probability PowerTarget, the test must catch the claim's named alternative, noise
// so small that the exact ε at Δ is PowerAgainst × the claimed ε.
func noiseScaleFinding(nu, nr *mat.Dense, c spec.NoiseCertificate, s *spec.Spec) verdict.Finding {
	n, d := nu.Dims()
	k := n * d
	a := (1 - s.Confidence) / 4 // each tail of each side
	sig2 := c.Sigma * c.Sigma
	chi := distuv.ChiSquared{K: float64(k)}
	type side struct {
		name     string
		ss, p    float64
		ratio    float64
		interval verdict.Interval
	}
	var sides []side
	for _, x := range []struct {
		name string
		r    *mat.Dense
	}{{"unlearned", nu}, {"retrained", nr}} {
		var ss float64
		for i := range n {
			for _, v := range x.r.RawRowView(i) {
				ss += v * v
			}
		}
		stat := ss / sig2
		iv := checks.VarianceInterval(ss, k, 2*a)
		sides = append(sides, side{name: x.name, ss: ss, p: math.Min(1, 2*math.Min(chi.CDF(stat), chi.Survival(stat))),
			ratio: stat / float64(k), interval: verdict.Interval{Lower: iv.Lower / sig2, Upper: iv.Upper / sig2}})
	}
	pick := sides[0]
	if sides[1].p < pick.p {
		pick = sides[1]
	}
	test := verdict.NewVarianceTest(k, 2*a)
	lower := func(t verdict.VarianceTest, r float64) float64 { // the chance the low tail rejects at variance r·σ²
		return distuv.ChiSquared{K: t.K}.CDF(t.Lower / r)
	}
	// the alternative at F×: noise small enough that the exact ε at Δ is F× the claimed ε,
	// or F× the declared σ's own ε when that is larger (the certificate check fails then),
	// so that the alternative always has less noise than declared
	base := math.Max(s.Epsilon, checks.ExactEps(c.Sensitivity, sig2, s.Delta))
	ratioAt := func(f float64) float64 {
		sg, err := dp.AnalyticGaussianSigma(c.Sensitivity, f*base, s.Delta)
		if err != nil {
			return math.NaN()
		}
		return sg * sg / sig2
	}
	pw := &verdict.Power{Against: s.PowerAgainst, Power: lower(test, ratioAt(s.PowerAgainst))}
	pw.SmallestFactor = checks.LeastTrue(1, false, func(f float64) bool { return lower(test, ratioAt(f)) >= verdict.PowerTarget })
	lo, hi := varianceResolved(test)
	f := verdict.Finding{
		Check: "verify/release/noise-scale", Kind: verdict.Release,
		Title:    "noise variance ÷ declared σ² (published − pre-noise, the side further from the declaration)",
		Measured: pick.ratio, Interval: &pick.interval, Bound: 1, Comparison: "=",
		Confidence: s.Confidence, Trials: n, Power: pw,
	}
	sigmaHat := func(x side) float64 { return math.Sqrt(x.ss / float64(k)) }
	measured := fmt.Sprintf("σ̂ = %.6g unlearned, %.6g retrained, against the declared σ = %.6g (Σ noise²/σ² against χ² with %d models × %d parameters = %d degrees of freedom a side, two-sided, each tail of each side at %.3g; the interval is the side's at %.4g %%, so that the four tails share 1 − %.4g)",
		sigmaHat(sides[0]), sigmaHat(sides[1]), c.Sigma, n, d, k, a, 100*(1-2*a), s.Confidence)
	power := fmt.Sprintf("at %d models a side it catches a noise variance ≤ %.4g× or ≥ %.4g× the declared with %.0f %% power", n, lo, hi, 100*verdict.PowerTarget)
	switch {
	case pick.p < 2*a && pick.ratio < 1:
		f.Verdict = verdict.Fail
		f.Detail = fmt.Sprintf("noise smaller than declared: on the %s side the variance is %.4g× σ², interval [%.4g, %.4g] below 1 (p = %.3g): the published models carry less noise than the certificate analyses; %s; %s",
			pick.name, pick.ratio, pick.interval.Lower, pick.interval.Upper, pick.p, measured, power)
	case pick.p < 2*a:
		f.Verdict = verdict.Fail
		f.Detail = fmt.Sprintf("noise larger than declared: on the %s side the variance is %.4g× σ², interval [%.4g, %.4g] above 1 (p = %.3g): the release is not the mechanism certified; %s; %s",
			pick.name, pick.ratio, pick.interval.Lower, pick.interval.Upper, pick.p, measured, power)
	default:
		f.Verdict = verdict.Pass
		f.Detail = fmt.Sprintf("the noise is as declared on both sides: %s; %s", measured, power)
		if !pw.Sufficient() {
			f.Verdict = verdict.Inconclusive
			// the models a side at which the test, at the same level, catches the alternative
			r := ratioAt(s.PowerAgainst)
			m := checks.LeastTrue(float64(n), true, func(m float64) bool { return lower(verdict.NewVarianceTest(int(m)*d, 2*a), r) >= verdict.PowerTarget })
			if math.IsInf(m, 1) || math.IsNaN(r) {
				f.Detail += fmt.Sprintf("; no count of models up to 10⁹ a side catches the %g× alternative with %.0f %% power", s.PowerAgainst, 100*verdict.PowerTarget)
				break
			}
			f.TrialsNeeded, pw.TrialsNeeded = int(m), int(m)
			f.Detail += fmt.Sprintf("; too few models to catch the %g× alternative (variance %.4g× the declared) with %.0f %% power: %d a side would", s.PowerAgainst, r, 100*verdict.PowerTarget, int(m))
		}
	}
	return f
}

// varianceResolved are the variance ratios below 1 and above 1 that t rejects with
// probability PowerTarget: lo the largest r < 1, hi the least r > 1.
func varianceResolved(t verdict.VarianceTest) (lo, hi float64) {
	hi = checks.LeastTrue(1.0001, false, func(r float64) bool { return t.Power(r) >= verdict.PowerTarget })
	inv := checks.LeastTrue(1.0001, false, func(f float64) bool { return t.Power(1/f) >= verdict.PowerTarget })
	return 1 / inv, hi
}
