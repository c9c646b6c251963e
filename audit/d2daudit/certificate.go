package d2daudit

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
)

// Bounds computes Descent-to-Delete's certificates from declared constants: γ, η, the
// iterations, the sensitivity and the σ each theorem requires, with both readings where
// the spec flags a formula.
func (Method) Bounds() audit.Bounds {
	return audit.Bounds{
		About:   "Computes Descent-to-Delete's certificates (Neel, Roth, Sharifi-Malvajerdi 2020) from declared constants:\nγ, η, the iterations, the sensitivity and the σ each theorem requires, both readings where the spec flags\na formula.",
		Example: "--variant strongly-convex --lipschitz 1 --smoothness 4 --strong-convexity 0.05 --n 1000 --iterations 5 --epsilon 1 --delta 1e-6",
		Variants: []audit.Variant{
			{Name: d2d.SecretState.String(), Summary: "Thm 3.1"},
			{Name: d2d.Perfect.String(), Summary: "Thm 3.2"},
			{Name: d2d.ConvexStrong.String(), Summary: "Thm 3.4"},
			{Name: d2d.ConvexWeak.String(), Summary: "Thm 3.5, Rem. 3.6"},
			{Name: "distributed", Summary: "Thm 4.5"},
		},
		Params:  audit.SettingParams(boundSettings(new(BoundSettings))),
		Compute: certificate,
	}
}

// BoundSettings are the certificate's declared constants, declared once (boundSettings)
// for the flags and the computation. The constants a variant requires, and the radius whose
// absence changes what is reported, record whether they were given.
type BoundSettings struct {
	Lipschitz, Smoothness, StrongConvexity audit.Given[float64]
	N                                      audit.Given[int]
	Iterations, Epsilon, Delta             audit.Given[float64]
	Dimension                              audit.Given[int]
	Radius                                 audit.Given[float64]
	NFloor                                 int
	Xi                                     audit.Given[float64]
	Partitions, Copies                     int
	Schedule                               string
	Exponent, SigmaConstant                d2d.Reading
	UpdateIndex                            int
}

// boundSettings binds each of s's fields to its Param.
func boundSettings(s *BoundSettings) []audit.Setting {
	readings := []d2d.Reading{d2d.Corrected, d2d.AsPrinted}
	return []audit.Setting{
		audit.GivenSetting(&s.Lipschitz, audit.FloatSetting, audit.Param{Name: "lipschitz", Usage: "per-example Lipschitz constant L (required)", Default: "0", Kind: audit.Number, Range: "(0, inf)"}),
		audit.GivenSetting(&s.Smoothness, audit.FloatSetting, audit.Param{Name: "smoothness", Usage: "per-example smoothness M (required)", Default: "0", Kind: audit.Number, Range: "(0, inf)"}),
		audit.GivenSetting(&s.StrongConvexity, audit.FloatSetting, audit.Param{Name: "strong-convexity", Usage: "per-example strong convexity m (required except for the convex variants, where it defaults to 0)", Default: "0", Kind: audit.Number, Range: "[0, inf)"}),
		audit.GivenSetting(&s.N, audit.IntSetting, audit.Param{Name: "n", Usage: "size of the initial dataset (required)", Default: "0", Unit: "records", Kind: audit.Integer, Range: "[1, 1e12]"}),
		audit.GivenSetting(&s.Iterations, audit.FloatSetting, audit.Param{Name: "iterations", Usage: "iteration budget I per update (required)", Default: "0", Unit: "gradient steps", Kind: audit.Number, Range: "[1, 1e9]"}),
		audit.GivenSetting(&s.Epsilon, audit.FloatSetting, audit.Param{Name: "epsilon", Usage: "target ε (required)", Default: "0", Kind: audit.Number, Range: "(0, inf)"}),
		audit.GivenSetting(&s.Delta, audit.FloatSetting, audit.Param{Name: "delta", Usage: "target δ (required)", Default: "0", Kind: audit.Number, Range: "(0, 1)"}),
		audit.GivenSetting(&s.Dimension, audit.IntSetting, audit.Param{Name: "dimension", Usage: "parameter dimension d (required for perfect, convex and distributed)", Default: "0", Kind: audit.Integer, Range: "[1, 1e9]"}),
		audit.GivenSetting(&s.Radius, audit.FloatSetting, audit.Param{Name: "radius", Usage: "radius R of Θ (required for convex and distributed; otherwise it adds the learner's iteration count)", Default: "0", Kind: audit.Number, Range: "(0, inf)"}),
		audit.IntSetting(&s.NFloor, audit.Param{Name: "n-floor", Usage: "guaranteed lower bound on every n_i (0: n/2, the paper's Assumption 2.6)", Default: "0", Unit: "records", Kind: audit.Integer, Range: "[0, 1e12]"}),
		audit.GivenSetting(&s.Xi, audit.FloatSetting, audit.Param{Name: "xi", Usage: "ξ: convex-weak T_i = i^{2ξ}I (default 1); distributed B = n^ξ, 1 ≤ ξ ≤ 4/3 (required)", Default: "0", Kind: audit.Number, Range: "(0, 100]"}),
		audit.IntSetting(&s.Partitions, audit.Param{Name: "partitions", Usage: "distributed: K partitions (0: ⌊√⌈n^ξ⌉⌋)", Default: "0", Kind: audit.Integer, Range: "[0, 1e9]"}),
		audit.IntSetting(&s.Copies, audit.Param{Name: "copies", Usage: "distributed: C copies (0: 1)", Default: "0", Kind: audit.Integer, Range: "[0, 1e6]"}),
		audit.StringSetting(&s.Schedule, audit.Param{Name: "schedule", Usage: "distributed: update budget, paper (Thm 4.5) or fixed (spec §3.9.4)", Default: "paper", Kind: audit.Choice, Choices: []string{"paper", "fixed"}}),
		audit.ChoiceSetting(&s.Exponent, audit.Param{Name: "exponent", Usage: "convex-strong: the regulariser exponent, corrected (2/5) or printed (4/5)", Default: "corrected", Kind: audit.Choice, Choices: []string{"corrected", "printed"}}, readings),
		audit.ChoiceSetting(&s.SigmaConstant, audit.Param{Name: "sigma-constant", Usage: "convex-weak: the σ constant, corrected (4√2·c_ξ) or printed (2√2)", Default: "corrected", Kind: audit.Choice, Choices: []string{"corrected", "printed"}}, readings),
		audit.IntSetting(&s.UpdateIndex, audit.Param{Name: "update-index", Usage: "the update i whose iteration count T_i is reported", Default: "1", Kind: audit.Integer, Range: "[1, 1e6]"}),
	}
}

// certificate computes the rows of one variant's certificate.
func certificate(_ context.Context, variant string, args audit.Args) ([]verdict.Row, error) {
	var s BoundSettings
	readErr := audit.ReadSettings(args, boundSettings(&s))
	var r audit.ArgReader
	what := "--variant " + variant
	require := func(settings ...audit.Requirable) { r.Fail(errors.Join(audit.Require(what, settings...)...)) }
	require(s.Lipschitz, s.Smoothness, s.N, s.Iterations, s.Epsilon, s.Delta)
	r.Fail(readErr)
	consts := reference.Constants{Lipschitz: s.Lipschitz.Value, Smoothness: s.Smoothness.Value, StrongConvexity: s.StrongConvexity.Value}
	n, iters, eps, delta := s.N.Value, s.Iterations.Value, s.Epsilon.Value, s.Delta.Value
	dim, radius, xi, index := s.Dimension.Value, s.Radius.Value, s.Xi.Value, s.UpdateIndex
	if index < 1 {
		r.Failf("--update-index %d: want ≥ 1", index)
	}
	var rows []verdict.Row
	add := func(key string, val any, note string) {
		rows = append(rows, verdict.Row{Key: key, Value: val, Note: note})
	}
	if variant == "distributed" {
		require(s.StrongConvexity, s.Dimension, s.Radius, s.Xi)
		sched, err := d2d.ParseSchedule(s.Schedule)
		if err != nil {
			r.Fail(fmt.Errorf("--schedule: %w", err))
		}
		partitions, copies := s.Partitions, s.Copies
		if err := r.Err(); err != nil {
			return nil, err
		}
		plan, err := d2d.NewDistPlan(d2d.DistParams{Constants: consts, Radius: radius, N: n, Dim: dim, Xi: xi, Budget: iters,
			Epsilon: eps, Delta: delta, NFloor: s.NFloor, Copies: copies, Partitions: partitions, Schedule: sched})
		if err != nil {
			return nil, err
		}
		ce, first := DistCorrectedEpsilon(plan, index)
		add("variant", "distributed", "Neel et al. 2020, Thm 4.5 ("+sched.String()+" schedule)")
		add("sigma", plan.Sigma, "publishing noise σ")
		add("gamma", plan.Gamma, "contraction (M−m)/(M+m)")
		add("step_size", plan.StepSize, "η = 2/(M+m)")
		add("iterations", plan.UpdateBudget(index), fmt.Sprintf("T_%d, update budget in units of n gradients per copy", index))
		add("learner_iterations", plan.T, "T per partition")
		add("bootstrap_size", plan.B, "B slots")
		add("partitions", plan.K, "K")
		add("a", plan.A, "K n² I / B²")
		add("copies", plan.Params.Copies, "C")
		if plan.Params.Copies > 1 {
			add("warning", "copies > 1 unproven", "the paper's choice among C copies (the argmin of noise-free losses) is not covered by the unlearning proof (spec d2d §3.9.6): C = 1, or noise σ√C on every candidate, is")
		}
		add("sensitivity", plan.Sensitivity(), "Δ the noise is calibrated to")
		add("rho", dp.GaussianRho(plan.Sensitivity(), plan.Sigma), "D_α ≤ α·ρ")
		add("epsilon_exact", dp.GaussianExactEpsilon(plan.Sensitivity()/plan.Sigma, delta/2), "exact Gaussian ε at δ/2")
		add("corrected_epsilon", ce, fmt.Sprintf("ε certified at update %d once untouched partitions keep their error (spec FLAG)", index))
		add("corrected_first_exceeding", first, "first update at which that exceeds ε (0: none)")
		return rows, nil
	}
	mode, err := d2d.ParseMode(variant)
	if err != nil {
		r.Fail(fmt.Errorf("--variant: %w", err))
	}
	switch {
	case mode == d2d.Perfect:
		require(s.StrongConvexity, s.Dimension)
	case mode.Convex():
		require(s.Dimension, s.Radius)
	default:
		require(s.StrongConvexity)
	}
	if iters != math.Trunc(iters) {
		r.Failf("--iterations %v: this variant needs a whole number", iters)
	}
	p := d2d.Params{Constants: consts, Radius: radius, N: n, NFloor: s.NFloor, Dim: dim, Budget: int(iters), Epsilon: eps, Delta: delta, Xi: xi,
		Exponent: s.Exponent, SigmaConstant: s.SigmaConstant}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if !s.Radius.IsSet {
		p.Radius = 1 // only the learner's iteration count depends on R here; it is not reported
	}
	plan, err := d2d.NewPlan(mode, p)
	if err != nil {
		return nil, err
	}
	if err := plan.CheckUpdate(index); err != nil {
		return nil, fmt.Errorf("--update-index: %w; choose a smaller index or ξ", err) // never print a wrapped count
	}
	sources := map[d2d.Mode]string{d2d.SecretState: "Neel et al. 2020, Thm 3.1", d2d.Perfect: "Neel et al. 2020, Thm 3.2",
		d2d.ConvexStrong: "Neel et al. 2020, Thm 3.4", d2d.ConvexWeak: "Neel et al. 2020, Thm 3.5 / Rem. 3.6"}
	add("variant", mode.String(), sources[mode])
	add("sigma", plan.Sigma, "publishing noise σ")
	if mode.Convex() {
		add("regularizer", plan.Reg, "ridge weight m the algorithm adds")
	}
	add("gamma", plan.Gamma, "contraction of one GD step")
	add("step_size", plan.StepSize, "η")
	add("iterations", plan.UpdateIterations(index), fmt.Sprintf("T_%d, iterations of update %d", index, index))
	if mode == d2d.Perfect {
		add("min_iterations", p.PerfectMinBudget(), "I_min")
	}
	if s.Radius.IsSet {
		add("learner_iterations", plan.LearnIterations(n), "T(n) of the learner")
	}
	add("sensitivity", plan.Sensitivity(), "Δ the proof certifies")
	add("unlearning_radius", plan.RadiusAt(index), fmt.Sprintf("‖θ̂_%d − θ*‖ the proof needs", index))
	add("rho", plan.Rho(), "D_α ≤ α·ρ")
	add("epsilon_exact", dp.GaussianExactEpsilon(plan.Sensitivity()/plan.Sigma, plan.MechanismDelta()), "exact Gaussian ε at the mechanism's δ")
	add("certified_sigma", plan.CertifiedSigma(), "σ the proof needs with the corrected readings")
	if cs := plan.CertifiedSigma(); plan.Sigma < cs*(1-1e-12) {
		// spec d2d §3.7: a reading that under-noises is shown, not left to a comparison of rows
		add("warning", "sigma < certified_sigma", fmt.Sprintf("σ = %.6g is %.3g× below the %.6g the proof needs: these settings (a printed reading) do not certify ε", plan.Sigma, cs/plan.Sigma, cs))
	}
	switch mode {
	case d2d.Perfect:
		_, printed := p.PerfectSensitivity(plan.Sigma)
		add("sensitivity_as_printed", printed, "the proof's Δ (spec FLAG)")
		add("epsilon_as_printed", p.PerfectCertifiedEpsilon(printed, plan.Sigma), "ε that Δ would certify")
	case d2d.ConvexStrong:
		other := p
		other.Exponent = 1 - p.Exponent
		if alt, err := d2d.NewPlan(mode, other); err == nil {
			which := map[d2d.Reading]string{d2d.AsPrinted: "the printed exponent 4/5", d2d.Corrected: "the corrected exponent 2/5"}[other.Exponent]
			add("regularizer_other_reading", alt.Reg, "m with "+which+" (spec FLAG)")
			add("sigma_other_reading", alt.Sigma, "σ with "+which)
		}
	case d2d.ConvexWeak:
		x := p.Xi
		if x == 0 {
			x = 1
		}
		add("sigma_constant_needed", d2d.WeakSigmaConstant(x, d2d.Corrected), "4√2·c_ξ; the printed 2√2 suffices iff ξ ≤ 2 (spec FLAG)")
	}
	return rows, nil
}
