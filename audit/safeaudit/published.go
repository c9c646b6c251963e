package safeaudit

import (
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/reference/safe"
	"gonum.org/v1/gonum/floats"
)

// publishedTolerance is the rounding the published model's check allows, relative to γ:
// the recursion and the recomputed gradient differ by ~1e-16 relative, which the
// normalisation can magnify by 1/‖g_T‖ at most a few orders.
const publishedTolerance = 1e-9

// publishedFinding checks what the trials publish, not the subject's own run: every
// trial's secret model (the release before noise) must be SAFE's step after the last
// round, w₀ − γ·g_T/‖g_T‖, with γ = √W/(K√T) recomputed from the declared constants and
// g_T the surrogate's gradient at w₀ recomputed from the records left (not by the
// recursion) and the deleted records with SAFE's targets. It is two-sided (a distance): a
// step too long or too short, a step along an old round's direction (a request not
// served), no step at all (w₀) are all FAILs. It is made for full SAFE only (ok false
// under an ablation, whose gradient is another).
func (s *Subject) publishedFinding(results []trials.TrialResult) (verdict.Finding, bool) {
	c := s.setup
	if c.Config.Ablation != safe.Full || len(s.rounds) == 0 {
		return verdict.Finding{}, false
	}
	gamma := c.Config.Gamma
	if gamma <= 0 {
		gamma = Gamma(s.bound, c.Config.K, len(c.Stream))
	}
	last := s.rounds[len(s.rounds)-1]
	g := make([]float64, c.Model.Dim())
	safe.RiskGradient(g, c.Model, s.w0, c.Train, last.left, s.u.ForgetPoints(), s.u.Targets(), c.Config.Lambda, c.Config.KL)
	want := make([]float64, len(g))
	copy(want, s.w0)
	if n := floats.Norm(g, 2); n > 0 {
		floats.AddScaled(want, -gamma/n, g)
	}
	worst, at := 0.0, -1
	for _, tr := range results {
		if len(tr.Unlearned.Secret) != len(want) {
			worst, at = math.Inf(1), tr.Index
			break
		}
		if d := floats.Distance(tr.Unlearned.Secret, want, 2) / gamma; d > worst || at < 0 {
			worst, at = d, tr.Index
		}
	}
	detail := fmt.Sprintf("γ = √W/(K√T) = %.4g with W = %.4g, K = %g, T = %d; the gradient recomputed on the %d records left and the %d deleted records' targets; worst trial %d",
		gamma, s.bound, c.Config.K, len(c.Stream), len(last.left), len(last.forgot), at)
	return verdict.Deterministic("safe/implementation/published", "every trial's published model before noise is w₀ − γ·g_T/‖g_T‖, SAFE's step for the requests served (distance relative to γ)", verdict.Implementation,
		worst, publishedTolerance, len(results), detail), true
}
