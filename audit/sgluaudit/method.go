package sgluaudit

import (
	"context"
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

func init() { audit.MustRegister(Method{}) }

// Method is SGLU's audit behind the contract the front ends drive (audit.Method).
type Method struct{}

// Name is "sglu".
func (Method) Name() string { return "sglu" }

// Summary is one line for help output.
func (Method) Summary() string {
	return "Stochastic Gradient Langevin Unlearning (Chien, Wang, Chen, Li 2024): projected noisy mini-batch SGD, Thms 3.2, 3.11"
}

// DemoVariants is the one demo variant, "sglu".
func (Method) DemoVariants() []audit.Variant {
	return []audit.Variant{{Name: "sglu", Summary: "PNSGD on fixed cyclic batches, each deletion served by replacing the record in its slot"}}
}

// DemoSettings are the batch size, the noise, the learning epochs, the lockstep size and
// its precision, declared once (demoSettings) for the flags, a spec's method.params and Demo.
type DemoSettings struct {
	Batch     int
	Sigma     float64
	Epochs    int
	Precision string // "float64" or "float32"
	Lockstep  int
}

// demoSettings binds each of s's fields to its Param.
func demoSettings(s *DemoSettings) []audit.Setting {
	return []audit.Setting{
		audit.IntSetting(&s.Batch, audit.Param{Name: "sglu-batch", Usage: "SGLU: mini-batch size b (the data are cut to a multiple of it)", Default: "32", Kind: audit.Integer, Range: "[1, 1e7]"}),
		audit.FloatSetting(&s.Sigma, audit.Param{Name: "sglu-sigma", Usage: "SGLU: noise σ (each step adds √(2ησ²)·N(0, I))", Default: "0.05", Kind: audit.Number, Range: "(0, inf)"}),
		audit.IntSetting(&s.Epochs, audit.Param{Name: "sglu-epochs", Usage: "SGLU: learning epochs T (0: enough that Theorem 3.2's initial-law term 2R·c^{Tn/b} is below Z_B/1000)", Default: "0", Kind: audit.Integer, Range: "[0, 1e5]"}),
		audit.StringSetting(&s.Precision, audit.Param{Name: "sglu-precision", Usage: "SGLU: the lockstep gradients' precision: float64, or float32 to measure what it changes (needs --sglu-lockstep)", Default: "float64", Kind: audit.Choice, Choices: []string{"float64", "float32"}}),
		audit.IntSetting(&s.Lockstep, audit.Param{Name: "sglu-lockstep", Usage: "SGLU: run up to this many trials in lockstep, one pass over each batch for all (0: one at a time, sglu.Model; the trials then differ by rounding only)", Default: "32", Kind: audit.Integer, Range: "[0, 1024]"}),
	}
}

// DemoParams are the settings' Params.
func (Method) DemoParams() []audit.Param { return audit.SettingParams(demoSettings(new(DemoSettings))) }

// Demo audits SGLU on 𝒟₀ with the demo's deletions as its removal requests (SGLU serves
// removals only, by replacing the record in its batch slot), the data cut to a multiple
// of the batch size as the paper cuts its training set.
func (Method) Demo(ctx context.Context, s audit.DemoSetup, variants []string, args audit.Args) ([]audit.Audited, error) {
	var set DemoSettings
	if err := audit.ReadSettings(args, demoSettings(&set)); err != nil {
		return nil, err
	}
	b, sigma, T, lockstep, precision := set.Batch, set.Sigma, set.Epochs, set.Lockstep, set.Precision
	if T < 0 {
		return nil, fmt.Errorf("--sglu-epochs %d: want 0 (automatic) or more", T)
	}
	if precision == "float32" && lockstep < 1 {
		return nil, fmt.Errorf("--sglu-precision float32: runs in lockstep only; set --sglu-lockstep")
	}
	if b <= 0 || b > s.Data.Len() {
		return nil, fmt.Errorf("--sglu-batch %d: want 1 … %d", b, s.Data.Len())
	}
	if len(variants) == 0 { // the settings are checked all the same: a typo is not silent
		return nil, nil
	}
	data, err := TrimToBatches(s.Data, b, s.Deletions)
	if err != nil {
		return nil, err
	}
	loss := reference.Logistic{Lambda: s.Lambda}
	if T == 0 {
		T = BurnIn(LogisticProblem(loss, data, b, s.Radius), 1e-3)
	}
	sub, err := New(ctx, Setup{Loss: loss, Data: data, Removals: s.Deletions, Batch: b,
		Sigma: sigma, Epochs: T, Radius: s.Radius, Epsilon: s.Epsilon, Delta: s.Delta, Seed: s.Seed, Lockstep: lockstep, Float32: precision == "float32"})
	if err != nil {
		return nil, err
	}
	opt := s.CheckOptions()
	return []audit.Audited{{Subject: sub, Check: func(ctx context.Context, r []trials.TrialResult) ([]verdict.Finding, error) {
		return Check(ctx, sub, r, opt)
	}, Controls: Controls(sub, opt)}}, nil
}
