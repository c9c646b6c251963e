package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
)

func runBounds(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, "usage: audit bounds d2d [flags]   (run \"audit bounds d2d -h\" for the flags)")
		if len(args) == 0 {
			return usagef("bounds: name a method (d2d)")
		}
		return flag.ErrHelp
	}
	switch args[0] {
	case "d2d":
		return runBoundsD2D(args[1:], stdout, stderr)
	}
	return usagef("bounds: unknown method %q; want d2d", args[0])
}

// d2dBounds is the JSON output of "audit bounds d2d".
type d2dBounds struct {
	Variant           string  `json:"variant"`
	Sigma             float64 `json:"sigma"`
	Gamma             float64 `json:"gamma"`
	StepSize          float64 `json:"step_size"`
	Iterations        int     `json:"iterations"` // T_1, the iterations of the first update
	LearnerIterations int     `json:"learner_iterations,omitempty"`
	MinIterations     int     `json:"min_iterations,omitempty"` // perfect: I_min
	Sensitivity       float64 `json:"sensitivity"`              // Δ the noise is calibrated to
	Radius            float64 `json:"unlearning_radius"`        // distance to θ* the proof needs
	Rho               float64 `json:"rho"`
	EpsilonExact      float64 `json:"epsilon_exact"` // exact Gaussian ε at the mechanism's δ
	SensitivityPaper  float64 `json:"sensitivity_as_printed,omitempty"`
	EpsilonPaper      float64 `json:"epsilon_as_printed,omitempty"`
}

func runBoundsD2D(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bounds d2d", flag.ContinueOnError)
	fs.SetOutput(stderr)
	variant := fs.String("variant", "strongly-convex", "strongly-convex (Thm 3.1, secret state) or perfect (Thm 3.2)")
	lip := fs.Float64("lipschitz", 0, "per-example Lipschitz constant L (required)")
	smooth := fs.Float64("smoothness", 0, "per-example smoothness M (required)")
	sc := fs.Float64("strong-convexity", 0, "per-example strong convexity m (required)")
	n := fs.Int("n", 0, "size of the initial dataset (required)")
	iters := fs.Int("iterations", 0, "iteration budget I per update (required)")
	eps := fs.Float64("epsilon", 0, "target ε (required)")
	delta := fs.Float64("delta", 0, "target δ (required)")
	dim := fs.Int("dimension", 0, "parameter dimension d (required for perfect)")
	radius := fs.Float64("radius", 0, "radius R of Θ (optional: gives the learner's iteration count)")
	floor := fs.Int("n-floor", 0, "guaranteed lower bound on every n_i (0: n/2, the paper's Assumption 2.6)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	set := setFlags(fs)
	var missing []error
	for _, name := range []string{"lipschitz", "smoothness", "strong-convexity", "n", "iterations", "epsilon", "delta"} {
		if !set[name] {
			missing = append(missing, fmt.Errorf("--%s is required", name))
		}
	}
	mode, err := d2d.ParseMode(*variant)
	if err != nil {
		missing = append(missing, fmt.Errorf("--variant: %w", err))
	}
	if mode == d2d.Perfect && !set["dimension"] {
		missing = append(missing, errors.New("--dimension is required for the perfect variant"))
	}
	if len(missing) > 0 {
		return usageError{fmt.Errorf("bounds d2d: %w", errors.Join(missing...))}
	}
	p := d2d.Params{
		Constants: reference.Constants{Lipschitz: *lip, Smoothness: *smooth, StrongConvexity: *sc},
		Radius:    *radius, N: *n, NFloor: *floor, Dim: *dim, Budget: *iters, Epsilon: *eps, Delta: *delta,
	}
	if !set["radius"] {
		p.Radius = 1 // only the learner's iteration count depends on R; it is not reported
	}
	plan, err := d2d.NewPlan(mode, p)
	if err != nil {
		return usageError{fmt.Errorf("bounds: %w", err)}
	}
	out := d2dBounds{
		Variant: mode.String(), Sigma: plan.Sigma, Gamma: plan.Gamma, StepSize: plan.StepSize,
		Iterations: plan.UpdateIterations(1), Sensitivity: plan.Sensitivity(), Radius: plan.RadiusAt(1), Rho: plan.Rho(),
	}
	if plan.Sigma > 0 {
		out.EpsilonExact = dp.GaussianExactEpsilon(plan.Sensitivity()/plan.Sigma, plan.MechanismDelta())
	}
	if set["radius"] {
		out.LearnerIterations = plan.LearnIterations(*n)
	}
	if mode == d2d.Perfect {
		out.MinIterations = p.PerfectMinBudget()
		_, printed := p.PerfectSensitivity(plan.Sigma)
		out.SensitivityPaper = printed
		out.EpsilonPaper = p.PerfectCertifiedEpsilon(printed, plan.Sigma)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	row := func(k string, v any, note string) { fmt.Fprintf(tw, "%s\t%v\t%s\n", k, v, note) }
	row("variant", out.Variant, map[d2d.Mode]string{d2d.SecretState: "Neel et al. 2020, Thm 3.1", d2d.Perfect: "Neel et al. 2020, Thm 3.2"}[mode])
	row("sigma", fmtG(out.Sigma), "publishing noise σ")
	row("gamma", fmtG(out.Gamma), "contraction (M−m)/(M+m)")
	row("step_size", fmtG(out.StepSize), "η = 2/(M+m)")
	row("iterations", out.Iterations, "T_1, iterations of the first update")
	if mode == d2d.Perfect {
		row("min_iterations", out.MinIterations, "I_min")
	}
	if set["radius"] {
		row("learner_iterations", out.LearnerIterations, "T(n) of the learner")
	}
	row("sensitivity", fmtG(out.Sensitivity), "Δ the noise is calibrated to")
	row("unlearning_radius", fmtG(out.Radius), "‖θ̂_i − θ*_i‖ the proof needs")
	row("rho", fmtG(out.Rho), "D_α ≤ α·ρ")
	row("epsilon_exact", fmtG(out.EpsilonExact), "exact Gaussian ε at the mechanism's δ")
	if mode == d2d.Perfect {
		row("sensitivity_as_printed", fmtG(out.SensitivityPaper), "the proof's Δ (spec FLAG)")
		row("epsilon_as_printed", fmtG(out.EpsilonPaper), "ε that Δ would certify")
	}
	return tw.Flush()
}

func fmtG(v float64) string {
	if math.IsInf(v, 1) {
		return "+Inf"
	}
	return fmt.Sprintf("%.10g", v)
}
