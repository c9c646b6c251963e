package d2daudit

import (
	"context"
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
)

func init() { audit.MustRegister(Method{}) }

// Method is Descent-to-Delete's audit behind the contract the front ends drive
// (audit.Method): its demo variants are the four single-machine modes and distributed
// descent.
type Method struct{}

// Name is "d2d".
func (Method) Name() string { return "d2d" }

// Summary is one line for help output.
func (Method) Summary() string {
	return "Descent-to-Delete (Neel, Roth, Sharifi-Malvajerdi 2020): perturbed gradient descent, Thms 3.1, 3.2, 3.4, 3.5, 4.5"
}

var demoModes = []d2d.Mode{d2d.SecretState, d2d.Perfect, d2d.ConvexStrong, d2d.ConvexWeak}

// DemoVariants are the modes' names and "distributed".
func (Method) DemoVariants() []audit.Variant {
	return []audit.Variant{
		{Name: d2d.SecretState.String(), Summary: "strongly convex, secret state (Theorem 3.1)"},
		{Name: d2d.Perfect.String(), Summary: "strongly convex, nothing secret kept (Theorem 3.2)"},
		{Name: d2d.ConvexStrong.String(), Summary: "convex, regularised, strong unlearning (Theorem 3.4)"},
		{Name: d2d.ConvexWeak.String(), Summary: "convex, regularised, weak unlearning (Theorem 3.5)",
			OneRunCost: "deletion i runs ⌈i^{2ξ}·I⌉ descent steps, so m/2 deletions cost about (m/2)^{2ξ+1}·I steps: half a minute at m = 64, ten times that at 128"},
		{Name: "distributed", Summary: "perturbed distributed descent with reservoir sampling (Theorem 4.5)",
			OneRunCost: "each deletion runs about 10·ln(π²i²/(3δ))·I passes over the data: ten seconds at m = 64, twice that at 128"},
	}
}

// UnprefixedParams are d2d's demo parameters named before demo parameters carried their
// method's name: spec files and command lines name them so (audit.UnprefixedParams).
func (Method) UnprefixedParams() []string { return []string{"iterations", "schedule"} }

// DemoSettings are the demo's settings: the iteration budget and distributed descent's
// schedule, declared once (demoSettings) for the flags, a spec's method.params and Demo.
type DemoSettings struct {
	Iterations int    // I per update
	Schedule   string // "fixed" or "paper" (d2d.ParseSchedule)
}

// demoSettings binds each of s's fields to its Param.
func demoSettings(s *DemoSettings) []audit.Setting {
	return []audit.Setting{
		audit.IntSetting(&s.Iterations, audit.Param{Name: "iterations", Usage: "D2D: iteration budget I per update (perfect mode uses at least I_min)", Default: "10", Kind: audit.Integer, Range: "[1, 1e6]"}),
		audit.StringSetting(&s.Schedule, audit.Param{Name: "schedule", Usage: "D2D distributed descent's update budget: fixed (spec §3.9.4) or paper (Thm 4.5, whose certificate fails the corrected accounting)", Default: "fixed", Kind: audit.Choice, Choices: []string{"fixed", "paper"}}),
	}
}

// DemoParams are the settings' Params.
func (Method) DemoParams() []audit.Param { return audit.SettingParams(demoSettings(new(DemoSettings))) }

// Demo builds one subject per wanted mode on the logistic loss (the convex modes on the
// unregularised loss, adding their own ridge term), with constants declared from every
// record the requests touch.
func (Method) Demo(ctx context.Context, s audit.DemoSetup, variants []string, args audit.Args) ([]audit.Audited, error) {
	var set DemoSettings
	if err := audit.ReadSettings(args, demoSettings(&set)); err != nil {
		return nil, err
	}
	iterations := set.Iterations
	if iterations < 1 {
		return nil, fmt.Errorf("--iterations %d: want at least 1", iterations)
	}
	sched, err := d2d.ParseSchedule(set.Schedule) // checked even when unused: a typo is not silent
	if err != nil {
		return nil, fmt.Errorf("--schedule: %w", err)
	}
	wanted := map[string]bool{}
	for _, v := range variants {
		wanted[v] = true
	}
	loss := reference.Logistic{Lambda: s.Lambda}
	opt := s.CheckOptions()
	var out []audit.Audited
	for _, mode := range demoModes {
		if !wanted[mode.String()] {
			continue
		}
		f := reference.Loss(loss)
		if mode.Convex() {
			f = reference.Logistic{} // a convex loss: the variant adds its own ridge term
		}
		p := d2d.Params{Constants: f.Constants(s.All, s.Radius), Radius: s.Radius, Budget: iterations, Epsilon: s.Epsilon, Delta: s.Delta,
			N: s.Data.Len(), Dim: s.Data.Dim()}
		if mode == d2d.Perfect {
			p.Budget = max(p.Budget, p.PerfectMinBudget())
		}
		sub, err := New(ctx, Setup{Mode: mode, Loss: f, Data: s.Data, Updates: s.Updates, Params: p})
		if err != nil {
			return nil, err
		}
		out = append(out, audit.Audited{Subject: sub, Check: func(ctx context.Context, r []trials.TrialResult) ([]verdict.Finding, error) {
			return Check(ctx, sub, r, opt)
		}, Controls: Controls(sub, opt)})
	}
	if wanted["distributed"] {
		sub, err := NewDist(ctx, DistSetup{Loss: loss, Data: s.Data, Updates: s.Updates, Params: d2d.DistParams{
			Constants: loss.Constants(s.All, s.Radius), Radius: s.Radius, Xi: 1.2, Budget: 1, Epsilon: s.Epsilon, Delta: s.Delta, Schedule: sched}})
		if err != nil {
			return nil, err
		}
		out = append(out, audit.Audited{Subject: sub, Check: func(ctx context.Context, r []trials.TrialResult) ([]verdict.Finding, error) {
			return CheckDist(ctx, sub, r, opt)
		}})
	}
	return out, nil
}
