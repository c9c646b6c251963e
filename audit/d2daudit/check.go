package d2daudit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/methodkit"
	"github.com/unlearnaudit/unlearnaudit/internal/steps"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"github.com/unlearnaudit/unlearnaudit/retrain"
)

// Check runs the three families of D2D checks on finished trials of s (or of a subject
// standing in for it, such as a planted-bug fixture):
//
//   - certificate: σ recomputed from the declared constants against the σ used, and the
//     declared constants against the data (the exact largest gradient norm on Θ over every
//     record that appears, the loss's smoothness and strong convexity);
//   - implementation: on every trial, the distance from the unlearned secret model to the
//     exact minimiser on 𝒟_k within the radius the proof needs (Eq. 3 or Eq. 13), its
//     distance to the retrain within Δ, and the retrain within the learner's radius (Eq. 2);
//   - release: the divergence of the published laws against the claim (checks.GaussianRelease);
//   - empirical: a distinguishing game on the published models alone, which needs no
//     secret state (checks.EmpiricalRelease).
func Check(ctx context.Context, s *Subject, results []trials.TrialResult, opt audit.CheckOptions) ([]verdict.Finding, error) {
	if len(results) == 0 {
		return nil, fmt.Errorf("d2d check: no trials")
	}
	c := s.Claim()
	pub, err := published(checks.GaussianRelease{Sigma: s.plan.Sigma, Rho: c.Rho, Epsilon: s.setup.Params.Epsilon, Delta: s.plan.MechanismDelta()},
		c.Epsilon, c.Delta, c.Rho, s.setup.Loss, s.universe, s.setup.Updates)
	if err != nil {
		return nil, fmt.Errorf("d2d check: %w", err)
	}
	// the checks, for a progress bar: certificate, implementation, then the published ones
	st, ctx := steps.Count(ctx, append([]bool{true, true}, pub.Steps(opt)...)...)
	fs := s.certificateFindings()
	fs[0] = checks.AtPrecision(fs[0], s.plan.Sigma, s.plan.Sensitivity(), results)
	st.Step()
	impl, err := s.implementationFindings(ctx, results, opt.Seed)
	if err != nil {
		return nil, err
	}
	st.Step()
	fs = append(fs, impl...)
	pf, err := pub.Check(ctx, st, opt, results)
	if err != nil {
		return nil, err
	}
	return append(fs, pf...), nil
}

// published is the published-model phase of every D2D subject (methodkit.Published): the
// Gaussian release against the claim (rel), the distinguishing game against (ε, δ) with the
// claim's Rényi slope rho, and the membership attack on the records the requests delete
// (none when they only add).
func published(rel checks.GaussianRelease, eps, delta, rho float64, loss reference.Loss, universe *reference.Dataset, updates []reference.Update) (methodkit.Published, error) {
	p := methodkit.Published{Prefix: "d2d", Release: &rel, Epsilon: eps, Delta: delta, Rho: rho}
	var ids []int64
	seen := map[int64]bool{}
	for _, u := range updates {
		if u.Kind == reference.Delete && !seen[u.ID] {
			ids, seen[u.ID] = append(ids, u.ID), true
		}
	}
	if len(ids) == 0 {
		return p, nil
	}
	deleted, err := universe.Subset(ids)
	if err != nil {
		return p, err
	}
	p.Members = &checks.MembershipRelease{Loss: loss, Deleted: deleted}
	return p, nil
}

func (s *Subject) certificateFindings() []verdict.Finding {
	p := s.setup.Params
	return append([]verdict.Finding{
		verdict.Deterministic("d2d/certificate/sigma", "σ the theorem requires, recomputed from the declared constants (must not exceed the σ used)",
			verdict.Certificate, s.required, s.plan.Sigma, 0,
			fmt.Sprintf("%s with L=%.6g, M=%.6g, m=%.6g, n=%d, I=%d, ε=%g, δ=%g", s.Claim().Source, p.Lipschitz, p.Smoothness, p.StrongConvexity, p.N, p.Budget, p.Epsilon, p.Delta)),
	}, constantFindings(s.setup.Loss, s.universe, p.Constants, p.Radius)...)
}

// constantFindings check declared constants against the data: the exact largest gradient
// norm on Θ over every record that appears, the loss's smoothness and strong convexity.
func constantFindings(loss reference.Loss, universe *reference.Dataset, declared reference.Constants, radius float64) []verdict.Finding {
	tight := loss.TightConstants(universe, radius)
	return []verdict.Finding{
		verdict.Deterministic("d2d/certificate/lipschitz", "largest per-example gradient norm on Θ, exact (must not exceed the declared L)",
			verdict.Certificate, tight.Lipschitz, declared.Lipschitz, 0,
			fmt.Sprintf("sup over ‖θ‖ ≤ %g of ‖∇f_z(θ)‖ for %s, over the %d records that appear in any 𝒟_i", radius, loss.Name(), universe.Len())),
		verdict.Deterministic("d2d/certificate/smoothness", "per-example smoothness of the loss on the data (must not exceed the declared M)",
			verdict.Certificate, tight.Smoothness, declared.Smoothness, 0,
			fmt.Sprintf("max‖x‖²·sup φ'' + λ for %s", loss.Name())),
		verdict.Deterministic("d2d/certificate/strong-convexity", "declared strong convexity m (must not exceed the loss's λ)",
			verdict.Certificate, declared.StrongConvexity, tight.StrongConvexity, 0,
			fmt.Sprintf("%s is λ-strongly convex per example", loss.Name())),
	}
}

func (s *Subject) implementationFindings(ctx context.Context, results []trials.TrialResult, seed uint64) ([]verdict.Finding, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := s.setup.Params
	bound := s.plan.RadiusAt(len(s.setup.Updates))
	obj := s.plan.Loss(s.setup.Loss).Objective(s.final)
	opt, oracleErr, err := preciseMinimiser(obj, p.Radius, bound)
	if err != nil {
		return nil, fmt.Errorf("d2d check: exact minimiser on 𝒟_k: %w", err)
	}
	var radius, gap, learn float64
	for _, tr := range results {
		if tr.Unlearned.Secret == nil || tr.Retrained.Secret == nil {
			return nil, fmt.Errorf("d2d check: trial %d has no secret model", tr.Index)
		}
		radius = math.Max(radius, reference.Distance(tr.Unlearned.Secret, opt.Theta))
		gap = math.Max(gap, reference.Distance(tr.Unlearned.Secret, tr.Retrained.Secret))
		learn = math.Max(learn, reference.Distance(tr.Retrained.Secret, opt.Theta))
	}
	n := len(results)
	// A distance to the computed θ̂* overstates the one to θ* by at most oracleErr: only
	// what exceeds it is evidence against the bound, and only what exceeds it and
	// float64's resolution at the models is resolved (checks.DistanceCheck).
	res := checks.TrialResolution(results).Distance
	oracle := fmt.Sprintf("θ* by Hessian-free trust-region Newton to residual %.2g (on the sphere: %v); distances to it less its certified error %.2g", opt.Residual, opt.OnBoundary, oracleErr)
	fs := []verdict.Finding{
		checks.DistanceCheck("d2d/implementation/radius", "distance of the unlearned secret model to the exact minimiser on 𝒟_k (worst trial)",
			verdict.Implementation, radius, oracleErr, res, bound, n, oracle),
		checks.DistanceCheck("d2d/implementation/retrain-gap", "distance of the unlearned secret model to the retrain's (worst trial), against Δ",
			verdict.Implementation, gap, 0, res, s.plan.Sensitivity(), n, "the mean gap the Gaussian mechanism is calibrated to"),
		checks.DistanceCheck("d2d/implementation/learner-radius", "distance of the retrain A(𝒟_k) to the exact minimiser (worst trial)",
			verdict.Implementation, learn, oracleErr, res, s.plan.LearnRadius(s.final.Len()), n, "Eq. 2: (2L/(m·n_k))·γ^I; "+oracle),
	}
	if s.setup.Mode == d2d.Perfect { // Eq. 13 holds with probability ≥ 1 − δ/2 per trial: Eq. 13 holds with probability ≥ 1 − δ/2 per trial
		conf := math.Max(0, 1-float64(n)*p.Delta/2)
		fs[0].Confidence, fs[1].Confidence = conf, conf
		fs[0].Detail += fmt.Sprintf("; Eq. 13 holds with probability ≥ 1 − δ/2 per trial, so a FAIL is a false alarm with probability ≤ %.2g", float64(n)*p.Delta/2)
	}
	if len(s.setup.Updates) == 0 {
		return fs, nil
	}
	first := slices.MinFunc(results, func(a, b trials.TrialResult) int { return a.Index - b.Index })
	radiusTrace, gapTrace, epsTrace, ok, err := s.requestTraces(ctx, seed, first)
	if err != nil {
		return nil, err
	}
	if !ok { // a stand-in subject: its trials are not this subject's replay
		return fs, nil
	}
	for _, t := range []struct {
		f *verdict.Finding
		t verdict.Trace
	}{{&fs[0], radiusTrace}, {&fs[1], gapTrace}, {&fs[1], epsTrace}} {
		t.t.Name += fmt.Sprintf(" (trial %d)", first.Index)
		if err := t.f.AddTrace(t.t); err != nil {
			return nil, fmt.Errorf("d2d check: %w", err)
		}
	}
	return fs, nil
}

// preciseMinimiser computes θ* for a check whose bound is `bound`, to a residual whose
// certified error is well below it, and returns that error. For an m-strongly convex,
// M-smooth f on a convex set, a point x with projected-gradient residual r = ‖x − P(x − ∇f(x))‖
// is within r·(1 + (1 + M)/m) of the minimiser (strong monotonicity of ∇f at x⁺ = P(x − ∇f)
// and x*, and the projection's optimality condition). The tolerance asked for puts that
// error at 1 % of the bound, but not below 1e-14, about the rounding floor of a gradient of
// unit-scale data; where the solver stops above it, the error of what it reached is used.
func preciseMinimiser(obj *reference.Objective, radius, bound float64) (retrain.Result, float64, error) {
	m := obj.Loss().Regularization()
	c := obj.Loss().Constants(obj.Data(), radius)
	factor := 1 + (1+c.Smoothness)/m
	opt, err := retrain.Minimize(obj, radius, retrain.Options{Tolerance: math.Max(1e-14, bound/100/factor)})
	if err != nil && !(errors.Is(err, retrain.ErrNotConverged) && opt.Residual <= 1e-10) {
		return retrain.Result{}, 0, err
	}
	return opt, opt.Residual * factor, nil
}
