package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/unlearnaudit/unlearnaudit/audit/d2daudit"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

func runBounds(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, "usage: audit bounds d2d|sglu [flags]   (run \"audit bounds d2d -h\" for the flags)")
		if len(args) == 0 {
			return usagef("bounds: name a method (d2d or sglu)")
		}
		return flag.ErrHelp
	}
	switch args[0] {
	case "d2d":
		return runBoundsD2D(args[1:], stdout, stderr)
	case "sglu":
		return runBoundsSGLU(args[1:], stdout, stderr)
	}
	return usagef("bounds: unknown method %q; want d2d or sglu", args[0])
}

// boundRow is one line of the bounds output: a key of the JSON object, its value and what
// it is.
type boundRow struct {
	key  string
	val  any
	note string
}

func runBoundsD2D(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bounds d2d", flag.ContinueOnError)
	fs.SetOutput(stderr)
	variant := fs.String("variant", "strongly-convex", "strongly-convex (Thm 3.1), perfect (Thm 3.2), convex-strong (Thm 3.4), convex-weak (Thm 3.5, Rem. 3.6) or distributed (Thm 4.5)")
	lip := fs.Float64("lipschitz", 0, "per-example Lipschitz constant L (required)")
	smooth := fs.Float64("smoothness", 0, "per-example smoothness M (required)")
	sc := fs.Float64("strong-convexity", 0, "per-example strong convexity m (required except for the convex variants, where it defaults to 0)")
	n := fs.Int("n", 0, "size of the initial dataset (required)")
	iters := fs.Float64("iterations", 0, "iteration budget I per update (required)")
	eps := fs.Float64("epsilon", 0, "target ε (required)")
	delta := fs.Float64("delta", 0, "target δ (required)")
	dim := fs.Int("dimension", 0, "parameter dimension d (required for perfect, convex and distributed)")
	radius := fs.Float64("radius", 0, "radius R of Θ (required for convex and distributed; otherwise it adds the learner's iteration count)")
	floor := fs.Int("n-floor", 0, "guaranteed lower bound on every n_i (0: n/2, the paper's Assumption 2.6)")
	xi := fs.Float64("xi", 0, "ξ: convex-weak T_i = i^{2ξ}I (default 1); distributed B = n^ξ, 1 ≤ ξ ≤ 4/3 (required)")
	partitions := fs.Int("partitions", 0, "distributed: K partitions (0: ⌊√⌈n^ξ⌉⌋)")
	copies := fs.Int("copies", 0, "distributed: C copies (0: 1)")
	schedule := fs.String("schedule", "paper", "distributed: update budget, paper (Thm 4.5) or fixed (spec §3.9.4)")
	exponent := fs.String("exponent", "corrected", "convex-strong: the regulariser exponent, corrected (2/5) or printed (4/5)")
	constant := fs.String("sigma-constant", "corrected", "convex-weak: the σ constant, corrected (4√2·c_ξ) or printed (2√2)")
	index := fs.Int("update-index", 1, "the update i whose iteration count T_i is reported")
	asJSON := fs.Bool("json", false, "print one JSON object")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: audit bounds d2d [flags]\n\nComputes Descent-to-Delete's certificates (Neel, Roth, Sharifi-Malvajerdi 2020) from declared constants:\nγ, η, the iterations, the sensitivity and the σ each theorem requires, both readings where the spec flags\na formula. --json writes the same as one object.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	set := setFlags(fs)
	var problems []error
	need := func(names ...string) {
		for _, name := range names {
			if !set[name] {
				problems = append(problems, fmt.Errorf("--%s is required for --variant %s", name, *variant))
			}
		}
	}
	need("lipschitz", "smoothness", "n", "iterations", "epsilon", "delta")
	reading := func(flagName, v string) d2d.Reading {
		switch v {
		case "corrected":
			return d2d.Corrected
		case "printed":
			return d2d.AsPrinted
		}
		problems = append(problems, fmt.Errorf("--%s %q: want corrected or printed", flagName, v))
		return 0
	}
	if *index < 1 {
		problems = append(problems, fmt.Errorf("--update-index %d: want ≥ 1", *index))
	}
	var rows []boundRow
	add := func(key string, val any, note string) { rows = append(rows, boundRow{key, val, note}) }
	if *variant == "distributed" {
		need("strong-convexity", "dimension", "radius", "xi")
		sched, err := d2d.ParseSchedule(*schedule)
		if err != nil {
			problems = append(problems, fmt.Errorf("--schedule: %w", err))
		}
		if len(problems) > 0 {
			return usageError{fmt.Errorf("bounds d2d: %w", errors.Join(problems...))}
		}
		plan, err := d2d.NewDistPlan(d2d.DistParams{Constants: reference.Constants{Lipschitz: *lip, Smoothness: *smooth, StrongConvexity: *sc},
			Radius: *radius, N: *n, Dim: *dim, Xi: *xi, Budget: *iters, Epsilon: *eps, Delta: *delta, Copies: *copies, Partitions: *partitions, Schedule: sched})
		if err != nil {
			return usageError{fmt.Errorf("bounds: %w", err)}
		}
		ce, first := d2daudit.DistCorrectedEpsilon(plan, *index)
		add("variant", "distributed", "Neel et al. 2020, Thm 4.5 ("+sched.String()+" schedule)")
		add("sigma", plan.Sigma, "publishing noise σ")
		add("gamma", plan.Gamma, "contraction (M−m)/(M+m)")
		add("step_size", plan.StepSize, "η = 2/(M+m)")
		add("iterations", plan.UpdateBudget(*index), fmt.Sprintf("T_%d, update budget in units of n gradients per copy", *index))
		add("learner_iterations", plan.T, "T per partition")
		add("bootstrap_size", plan.B, "B slots")
		add("partitions", plan.K, "K")
		add("a", plan.A, "K n² I / B²")
		add("copies", plan.Params.Copies, "C")
		add("sensitivity", plan.Sensitivity(), "Δ the noise is calibrated to")
		add("rho", dp.GaussianRho(plan.Sensitivity(), plan.Sigma), "D_α ≤ α·ρ")
		add("epsilon_exact", dp.GaussianExactEpsilon(plan.Sensitivity()/plan.Sigma, *delta/2), "exact Gaussian ε at δ/2")
		add("corrected_epsilon", ce, fmt.Sprintf("ε certified at update %d once untouched partitions keep their error (spec FLAG)", *index))
		add("corrected_first_exceeding", first, "first update at which that exceeds ε (0: none)")
		return printBounds(stdout, rows, *asJSON)
	}
	mode, err := d2d.ParseMode(*variant)
	if err != nil {
		problems = append(problems, fmt.Errorf("--variant: %w", err))
	}
	switch {
	case mode == d2d.Perfect:
		need("strong-convexity", "dimension")
	case mode.Convex():
		need("dimension", "radius")
	default:
		need("strong-convexity")
	}
	if *iters != math.Trunc(*iters) {
		problems = append(problems, fmt.Errorf("--iterations %v: this variant needs a whole number", *iters))
	}
	p := d2d.Params{
		Constants: reference.Constants{Lipschitz: *lip, Smoothness: *smooth, StrongConvexity: *sc},
		Radius:    *radius, N: *n, NFloor: *floor, Dim: *dim, Budget: int(*iters), Epsilon: *eps, Delta: *delta, Xi: *xi,
		Exponent: reading("exponent", *exponent), SigmaConstant: reading("sigma-constant", *constant),
	}
	if len(problems) > 0 {
		return usageError{fmt.Errorf("bounds d2d: %w", errors.Join(problems...))}
	}
	if !set["radius"] {
		p.Radius = 1 // only the learner's iteration count depends on R here; it is not reported
	}
	plan, err := d2d.NewPlan(mode, p)
	if err != nil {
		return usageError{fmt.Errorf("bounds: %w", err)}
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
	add("iterations", plan.UpdateIterations(*index), fmt.Sprintf("T_%d, iterations of update %d", *index, *index))
	if mode == d2d.Perfect {
		add("min_iterations", p.PerfectMinBudget(), "I_min")
	}
	if set["radius"] {
		add("learner_iterations", plan.LearnIterations(*n), "T(n) of the learner")
	}
	add("sensitivity", plan.Sensitivity(), "Δ the proof certifies")
	add("unlearning_radius", plan.RadiusAt(*index), fmt.Sprintf("‖θ̂_%d − θ*‖ the proof needs", *index))
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
	return printBounds(stdout, rows, *asJSON)
}

func printBounds(w io.Writer, rows []boundRow, asJSON bool) error {
	if asJSON {
		// an ordered object: keys in the order of the table
		var b []byte
		b = append(b, '{')
		for i, r := range rows {
			if i > 0 {
				b = append(b, ',')
			}
			k, _ := json.Marshal(r.key)
			var v []byte
			if f, ok := r.val.(float64); ok {
				v, _ = reports.Number(f).MarshalJSON()
			} else {
				v, _ = json.Marshal(r.val)
			}
			b = append(append(append(b, k...), ':'), v...)
		}
		b = append(b, '}', '\n')
		_, err := w.Write(b)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range rows {
		v := fmt.Sprint(r.val)
		if f, ok := r.val.(float64); ok {
			v = fmtG(f)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.key, v, r.note)
	}
	return tw.Flush()
}

func fmtG(v float64) string {
	if math.IsInf(v, 1) {
		return "+Inf"
	}
	return fmt.Sprintf("%.10g", v)
}
