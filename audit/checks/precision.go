package checks

import (
	"fmt"
	"math"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// Float64 resolution. A certificate is proved in exact arithmetic; the method runs in
// float64, whose values near a parameter θ_j are Spacing(θ_j) apart. A change of θ_j
// smaller than half that spacing is rounded away, a larger one to a whole number of
// spacings. Two quantities follow (Resolution):
//
//   - noise of scale σ added to θ_j survives rounding only where σ is at least the
//     spacing; the coarsest grid is the largest coordinate's, so a Gaussian release is
//     realised on every coordinate only if σ ≥ Spacing(max_j |θ_j|);
//   - a model rounded once per coordinate moves by up to ½‖(Spacing(θ_j))_j‖₂, so two
//     computed models that agree in exact arithmetic may differ by the norm of their
//     coordinates' spacings: a certified distance (a radius, a sensitivity Δ) below it
//     can be kept only by models equal to the bit, and a check of it cannot resolve it.
//
// The norm of the spacings, not the spacing at ‖θ‖₂: rounding acts coordinate by
// coordinate, and the spacing at the norm overstates the largest coordinate's by up to √d.

// Spacing is the distance from x to the next float64 away from zero, ulp(|x|): 2^(e−52)
// for |x| in [2^e, 2^(e+1)), the smallest subnormal at 0. A non-finite x has none (NaN).
func Spacing(x float64) float64 {
	x = math.Abs(x)
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return math.NaN()
	}
	return math.Nextafter(x, math.Inf(1)) - x
}

// Resolution is what float64 resolves of a set of models (see Spacing).
type Resolution struct {
	// Coordinate is the Spacing at the largest |θ_j| of any model: the least noise scale
	// every coordinate keeps.
	Coordinate float64
	// Distance is the largest ‖(Spacing(θ_j))_j‖₂ of any model: the least distance
	// between computed models that rounding cannot make up.
	Distance float64
}

// ModelResolution is the Resolution of models (non-finite values are skipped).
func ModelResolution(models ...[]float64) Resolution {
	var r Resolution
	for _, m := range models {
		ss := 0.0
		for _, v := range m {
			sp := Spacing(v)
			if math.IsNaN(sp) {
				continue
			}
			r.Coordinate = math.Max(r.Coordinate, sp)
			ss += sp * sp
		}
		r.Distance = math.Max(r.Distance, math.Sqrt(ss))
	}
	return r
}

// TrialResolution is the ModelResolution of finished trials: their secret (pre-noise)
// models on both sides, or the published ones where a release keeps no secret.
func TrialResolution(results []trials.TrialResult) Resolution {
	var models [][]float64
	for _, tr := range results {
		for _, r := range []reference.Release{tr.Unlearned, tr.Retrained} {
			if r.Secret != nil {
				models = append(models, r.Secret)
			} else {
				models = append(models, r.Published)
			}
		}
	}
	return ModelResolution(models...)
}

// Unrealisable says why a Gaussian release of noise sigma, certified for a distance
// radius between the models it adds noise to (a sensitivity Δ; 0 when the certificate
// states none), cannot be run in float64 on models of resolution res: "" when σ is at
// least res.Coordinate and the radius at least res.Distance. Below them the mechanism
// run is not the one certified, whatever the arithmetic of the certificate.
func Unrealisable(sigma, radius float64, res Resolution) string {
	var what []string
	if sigma < res.Coordinate {
		what = append(what, fmt.Sprintf("the calibrated σ = %.3g is below float64's spacing %.3g at the parameters' largest coordinate, so the noise is lost in rounding and the published models are (nearly) deterministic", sigma, res.Coordinate))
	}
	if radius > 0 && radius < res.Distance {
		what = append(what, fmt.Sprintf("the certified distance Δ = %.3g is below %.3g, the norm of float64's spacings at the parameters, so rounding alone can put two computed models further apart than Δ", radius, res.Distance))
	}
	if len(what) == 0 {
		return ""
	}
	return strings.Join(what, "; ") + ": the mechanism certified cannot be realised at float64 precision (both grow as the regularisation or the iterations are lowered)"
}

// AtPrecision holds a certificate's finding on the noise (σ recomputed against the σ
// used) to the float64 resolution of the trials' models: when σ or the certified
// distance is below TrialResolution (Unrealisable), the certificate FAILs, naming the
// cause, with the resolution as its measurement and the offending constant as its bound,
// so the figures agree with the verdict; its detail keeps the arithmetic, which may be
// right: the mechanism it certifies is not the one a float64 implementation runs.
// Otherwise f is returned as it is.
func AtPrecision(f verdict.Finding, sigma, radius float64, results []trials.TrialResult) verdict.Finding {
	res := TrialResolution(results)
	why := Unrealisable(sigma, radius, res)
	if why == "" {
		return f
	}
	measured, bound := res.Coordinate, sigma
	if radius > 0 && radius < res.Distance && (sigma >= res.Coordinate || radius/res.Distance < sigma/res.Coordinate) {
		measured, bound = res.Distance, radius // the constant further below its resolution
	}
	arithmetic := fmt.Sprintf("the arithmetic: %s: %.6g against %.6g, %s", f.Title, f.Measured, f.Bound, f.Verdict)
	if f.Detail != "" {
		arithmetic += " (" + f.Detail + ")"
	}
	f.Title = "float64's resolution at the parameters (must not exceed the σ used, nor the certified distance Δ)"
	f.Verdict, f.Measured, f.Bound, f.Comparison = verdict.Fail, measured, bound, "≤"
	f.Detail = why + "; " + arithmetic
	return f
}

// DistanceCheck is the deterministic check dist ≤ bound of a distance between models
// (the worst trial's), where dist may overstate the true distance by oracleErr (the
// certified error of a computed reference point, 0 when both ends are the trials' own
// models) and the models are known no finer than res, float64's distance resolution at
// them (Resolution.Distance). Its Measured is dist − oracleErr (at least 0): only what
// exceeds the error is evidence against the bound. It FAILs as Deterministic would on
// that value; it PASSes only when the check resolves the bound (oracleErr + res below
// it) and the whole interval, up to dist + oracleErr, is within it. Otherwise it is
// INCONCLUSIVE and says why: no number of trials decides a bound below what float64
// resolves.
func DistanceCheck(check, title string, kind verdict.Kind, dist, oracleErr, res, bound float64, trials int, detail string) verdict.Finding {
	f := verdict.Deterministic(check, title, kind, math.Max(0, dist-oracleErr), bound, trials, detail)
	if f.Verdict == verdict.Fail {
		return f
	}
	floor := oracleErr + res
	switch {
	case !(floor < bound):
		f.Verdict = verdict.Inconclusive
		f.Detail = fmt.Sprintf("the bound %.3g is below what this check resolves, %.3g (the norm of float64's spacings at the models, %.3g", bound, floor, res)
		if oracleErr > 0 {
			f.Detail += fmt.Sprintf(", plus the reference point's certified error %.3g", oracleErr)
		}
		f.Detail += "), so it cannot show a violation of it: INCONCLUSIVE whatever the trials; " + detail
	case dist+oracleErr > bound*(1+1e-9):
		f.Verdict = verdict.Inconclusive
		f.Detail = fmt.Sprintf("the distance %.3g, known to ±%.3g, straddles the bound %.3g: INCONCLUSIVE; %s", dist, oracleErr, bound, detail)
	}
	return f
}

// A ReleaseScaler is a subject that publishes its models with Gaussian noise and can say,
// before any trial, the noise σ it adds, the distance Δ its certificate bounds between
// the models it adds noise to, and the radius of the ball its parameters lie in: what a
// front end needs to warn that the constants may be below float64's resolution
// (PrecisionWarning) before it spends the trials.
type ReleaseScaler interface {
	ReleaseScales() (sigma, delta, radius float64)
}

// MaxReleaseScale bounds the noise σ and the certified distance Δ a release may have: the
// checks square them and sum squares over the coordinates, and 1e150² = 1e300 leaves a
// factor above 10⁸ (coordinates, or the ratio of σ to a model's entries) before float64's
// largest, 1.8e308; beyond it the published models or their squared norms overflow.
const MaxReleaseScale = 1e150

// Unrepresentable says, before the trials, why s's release cannot be computed in float64:
// its σ or Δ not finite or above MaxReleaseScale (a claim's ε or a loss's λ near zero makes
// them so); "" when s is no ReleaseScaler or they are within it. A trial would otherwise
// fail with a non-finite model coordinate, blamed on the trial, not on the setting.
func Unrepresentable(s trials.Subject) string {
	rs, ok := s.(ReleaseScaler)
	if !ok {
		return ""
	}
	sigma, delta, _ := rs.ReleaseScales()
	if sigma <= MaxReleaseScale && delta <= MaxReleaseScale {
		return ""
	}
	return fmt.Sprintf("%s: the certificate's noise σ = %.3g and distance Δ = %.3g are beyond what float64 computes with (%.0e): the published models would overflow; they grow as the claim's ε or the loss's λ approach 0", s.Name(), sigma, delta, MaxReleaseScale)
}

// PrecisionWarning is a warning, before the trials, that s's noise or certified distance
// may be lost to rounding: σ or Δ below Spacing(radius), the spacing at the largest
// magnitude a parameter can have. The trials' models may be smaller, so it says "may";
// AtPrecision decides on the models themselves. "" when s is no ReleaseScaler or its
// constants clear the spacing.
func PrecisionWarning(s trials.Subject) string {
	rs, ok := s.(ReleaseScaler)
	if !ok {
		return ""
	}
	sigma, delta, radius := rs.ReleaseScales()
	sp := Spacing(radius)
	if !(sigma < sp || delta < sp) {
		return ""
	}
	return fmt.Sprintf("%s: σ = %.3g and Δ = %.3g, and float64's spacing at parameters as large as its radius %.3g is %.3g: the noise or the certified distance may be lost in rounding, and the certificate's finding will FAIL if it is",
		s.Name(), sigma, delta, radius, sp)
}
