package d2daudit

import (
	"context"
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
		Params: []audit.Param{
			{Name: "lipschitz", Usage: "per-example Lipschitz constant L (required)", Default: "0", Kind: audit.Number, Range: "(0, inf)"},
			{Name: "smoothness", Usage: "per-example smoothness M (required)", Default: "0", Kind: audit.Number, Range: "(0, inf)"},
			{Name: "strong-convexity", Usage: "per-example strong convexity m (required except for the convex variants, where it defaults to 0)", Default: "0", Kind: audit.Number, Range: "[0, inf)"},
			{Name: "n", Usage: "size of the initial dataset (required)", Default: "0", Unit: "records", Kind: audit.Integer, Range: "[1, 1e12]"},
			{Name: "iterations", Usage: "iteration budget I per update (required)", Default: "0", Unit: "gradient steps", Kind: audit.Number, Range: "[1, 1e9]"},
			{Name: "epsilon", Usage: "target ε (required)", Default: "0", Kind: audit.Number, Range: "(0, inf)"},
			{Name: "delta", Usage: "target δ (required)", Default: "0", Kind: audit.Number, Range: "(0, 1)"},
			{Name: "dimension", Usage: "parameter dimension d (required for perfect, convex and distributed)", Default: "0", Kind: audit.Integer, Range: "[1, 1e9]"},
			{Name: "radius", Usage: "radius R of Θ (required for convex and distributed; otherwise it adds the learner's iteration count)", Default: "0", Kind: audit.Number, Range: "(0, inf)"},
			{Name: "n-floor", Usage: "guaranteed lower bound on every n_i (0: n/2, the paper's Assumption 2.6)", Default: "0", Unit: "records", Kind: audit.Integer, Range: "[0, 1e12]"},
			{Name: "xi", Usage: "ξ: convex-weak T_i = i^{2ξ}I (default 1); distributed B = n^ξ, 1 ≤ ξ ≤ 4/3 (required)", Default: "0", Kind: audit.Number, Range: "(0, 100]"},
			{Name: "partitions", Usage: "distributed: K partitions (0: ⌊√⌈n^ξ⌉⌋)", Default: "0", Kind: audit.Integer, Range: "[0, 1e9]"},
			{Name: "copies", Usage: "distributed: C copies (0: 1)", Default: "0", Kind: audit.Integer, Range: "[0, 1e6]"},
			{Name: "schedule", Usage: "distributed: update budget, paper (Thm 4.5) or fixed (spec §3.9.4)", Default: "paper", Kind: audit.Choice, Choices: []string{"paper", "fixed"}},
			{Name: "exponent", Usage: "convex-strong: the regulariser exponent, corrected (2/5) or printed (4/5)", Default: "corrected", Kind: audit.Choice, Choices: []string{"corrected", "printed"}},
			{Name: "sigma-constant", Usage: "convex-weak: the σ constant, corrected (4√2·c_ξ) or printed (2√2)", Default: "corrected", Kind: audit.Choice, Choices: []string{"corrected", "printed"}},
			{Name: "update-index", Usage: "the update i whose iteration count T_i is reported", Default: "1", Kind: audit.Integer, Range: "[1, 1e6]"},
		},
		Compute: certificate,
	}
}

// certificate computes the rows of one variant's certificate.
func certificate(_ context.Context, variant string, args audit.Args) ([]verdict.Row, error) {
	r := audit.ArgReader{Args: args}
	what := "--variant " + variant
	r.Require(what, "lipschitz", "smoothness", "n", "iterations", "epsilon", "delta")
	consts := reference.Constants{Lipschitz: r.Float("lipschitz"), Smoothness: r.Float("smoothness"), StrongConvexity: r.Float("strong-convexity")}
	n, iters, eps, delta := r.Int("n"), r.Float("iterations"), r.Float("epsilon"), r.Float("delta")
	dim, radius, xi, index := r.Int("dimension"), r.Float("radius"), r.Float("xi"), r.Int("update-index")
	reading := func(name string) d2d.Reading {
		v, err := audit.Choose(args, name, []string{"corrected", "printed"}, []d2d.Reading{d2d.Corrected, d2d.AsPrinted})
		r.Fail(err)
		return v
	}
	if index < 1 {
		r.Failf("--update-index %d: want ≥ 1", index)
	}
	var rows []verdict.Row
	add := func(key string, val any, note string) {
		rows = append(rows, verdict.Row{Key: key, Value: val, Note: note})
	}
	if variant == "distributed" {
		r.Require(what, "strong-convexity", "dimension", "radius", "xi")
		sched, err := d2d.ParseSchedule(args.String("schedule"))
		if err != nil {
			r.Fail(fmt.Errorf("--schedule: %w", err))
		}
		partitions, copies := r.Int("partitions"), r.Int("copies")
		if err := r.Err(); err != nil {
			return nil, err
		}
		plan, err := d2d.NewDistPlan(d2d.DistParams{Constants: consts, Radius: radius, N: n, Dim: dim, Xi: xi, Budget: iters,
			Epsilon: eps, Delta: delta, Copies: copies, Partitions: partitions, Schedule: sched})
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
		r.Require(what, "strong-convexity", "dimension")
	case mode.Convex():
		r.Require(what, "dimension", "radius")
	default:
		r.Require(what, "strong-convexity")
	}
	if iters != math.Trunc(iters) {
		r.Failf("--iterations %v: this variant needs a whole number", iters)
	}
	p := d2d.Params{Constants: consts, Radius: radius, N: n, NFloor: r.Int("n-floor"), Dim: dim, Budget: int(iters), Epsilon: eps, Delta: delta, Xi: xi,
		Exponent: reading("exponent"), SigmaConstant: reading("sigma-constant")}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if !args.Given("radius") {
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
	if args.Given("radius") {
		add("learner_iterations", plan.LearnIterations(n), "T(n) of the learner")
	}
	add("sensitivity", plan.Sensitivity(), "Δ the proof certifies")
	add("unlearning_radius", plan.RadiusAt(index), fmt.Sprintf("‖θ̂_%d − θ*‖ the proof needs", index))
	add("rho", plan.Rho(), "D_α ≤ α·ρ")
	add("epsilon_exact", dp.GaussianExactEpsilon(plan.Sensitivity()/plan.Sigma, plan.MechanismDelta()), "exact Gaussian ε at the mechanism's δ")
	add("certified_sigma", plan.CertifiedSigma(), "σ the proof needs with the corrected readings")
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
