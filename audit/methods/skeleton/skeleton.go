// Package skeleton is the smallest complete method audit, the one docs/adding-a-method.md
// walks through: a method that publishes the mean of its data's feature vectors with
// Gaussian noise and serves every request by recomputing the mean (an exact unlearning,
// noised as the Gaussian mechanism for the mean's sensitivity). Copy it, rename it, and
// replace the mean by your method.
//
// It registers itself when imported. It is deliberately not among audit/methods' imports:
// the CLI's demo would then audit it by default, and a new method is added there — the only
// line outside its own package — when it is ready.
package skeleton

import (
	"context"
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/controls"
	"github.com/unlearnaudit/unlearnaudit/audit/methodkit"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
)

func init() { audit.MustRegister(Method{}) }

// Method is the skeleton's audit behind the contract (audit.Method): its name and summary,
// and a demo (audit.Demoer). A method with a certificate from declared constants adds
// Bounds (audit.Certifier); one with its paper's experiments adds Experiments
// (audit.Reproducer).
type Method struct{}

// Name is "skeleton": its subjects are "skeleton/…", its demo parameters "skeleton-…".
func (Method) Name() string { return "skeleton" }

// Summary is one line for help output.
func (Method) Summary() string {
	return "a skeleton method: the data's mean with Gaussian noise, recomputed at every request"
}

// DemoVariants is the one variant.
func (Method) DemoVariants() []audit.Variant {
	return []audit.Variant{{Name: "skeleton-mean", Summary: "the noisy mean, recomputed exactly at every request"}}
}

// Settings are the skeleton's demo settings, declared once (SettingsParams): the flags,
// a spec file's method.params and the values Demo reads are these fields.
type Settings struct {
	// NoiseScale multiplies the σ the certificate needs (1: exactly that σ).
	NoiseScale float64
}

// SettingsParams binds each setting to its Param.
func SettingsParams(s *Settings) []audit.Setting {
	return []audit.Setting{
		audit.FloatSetting(&s.NoiseScale, audit.Param{Name: "skeleton-noise-scale", Usage: "skeleton: the noise as a multiple of the σ the certificate needs",
			Default: "1", Kind: audit.Number, Range: "(0, 1e6]"}),
	}
}

// DemoParams are the settings' Params.
func (Method) DemoParams() []audit.Param { return audit.SettingParams(SettingsParams(new(Settings))) }

// Demo builds the subject on the demo's data and requests. Its setup is quick; a longer
// one passes ctx to whatever loops, so that a cancellation stops it.
func (Method) Demo(ctx context.Context, s audit.DemoSetup, variants []string, args audit.Args) ([]audit.Audited, error) {
	var set Settings
	if err := audit.ReadSettings(args, SettingsParams(&set)); err != nil { // checked even when no variant is wanted: a typo is not silent
		return nil, err
	}
	if len(variants) == 0 {
		return nil, nil
	}
	sub, err := New(ctx, s.Data, s.Updates, s.All.MaxRowNorm(), set.NoiseScale, s.Epsilon, s.Delta)
	if err != nil {
		return nil, err
	}
	opt := s.CheckOptions()
	check := func(ctx context.Context, r []trials.TrialResult) ([]verdict.Finding, error) {
		return Check(ctx, sub, r, opt)
	}
	set2 := controls.Set{Of: sub, Check: check}
	return []audit.Audited{{Subject: sub, Check: check, Controls: []audit.Control{
		set2.Mutant(controls.WeakNoise, "publishes with a tenth of the noise the certificate needs", set2.NoiseDividedBy(10)),
	}}}, nil
}

// Subject is the noisy mean of one data set and request sequence (trials.Subject).
type Subject struct {
	final          *reference.Dataset // the data after every request
	radius         float64            // the largest feature vector's norm, over every record that appears
	sigma, need    float64            // the noise used, and the σ the certificate needs
	epsilon, delta float64
	fp             string
}

// New serves the requests on data and sizes the noise: the mean of n vectors of norm at
// most radius moves by at most 2·radius/n when one is replaced (its L2 sensitivity), and
// the analytic Gaussian mechanism gives the σ for (ε, δ) at that sensitivity.
func New(ctx context.Context, data *reference.Dataset, updates []reference.Update, radius, scale, eps, delta float64) (*Subject, error) {
	final := data
	for i, u := range updates {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		next, err := final.Apply(u)
		if err != nil {
			return nil, fmt.Errorf("skeleton: request %d: %w", i+1, err)
		}
		final = next
	}
	if final.Len() == 0 {
		return nil, fmt.Errorf("skeleton: the requests delete every record")
	}
	need, err := dp.AnalyticGaussianSigma(2*radius/float64(final.Len()), eps, delta)
	if err != nil {
		return nil, fmt.Errorf("skeleton: %w", err)
	}
	return &Subject{final: final, radius: radius, sigma: scale * need, need: need, epsilon: eps, delta: delta,
		fp: trials.ConfigFingerprint(fmt.Sprintf("skeleton|%v|%v|%v", scale, eps, delta), final, nil, nil)}, nil
}

// Name is "skeleton/mean".
func (s *Subject) Name() string { return "skeleton/mean" }

// Params is the model's dimension (trials.Dimensioned).
func (s *Subject) Params() int { return s.final.Dim() }

// Fingerprint is the configuration beyond the claim (trials.Fingerprinter).
func (s *Subject) Fingerprint() string { return s.fp }

// Claim is (ε, δ)-unlearning by the Gaussian mechanism on the mean.
func (s *Subject) Claim() verdict.Claim {
	return verdict.Claim{Method: "skeleton: noisy mean", Source: "the analytic Gaussian mechanism (Balle and Wang 2018)", Guarantee: "(ε, δ)-unlearning",
		Epsilon: s.epsilon, Delta: s.delta, Relation: "the data after the requests, and the retrain on it", Required: verdict.StateHolding}
}

// Unlearned recomputes the mean after the requests and adds the noise from its stream.
func (s *Subject) Unlearned(_ context.Context, st reference.Streams) (reference.Release, error) {
	return s.publish(st.Rand("skeleton/unlearned/noise")), nil
}

// Retrained is the same computation from scratch, with the retrain's own noise.
func (s *Subject) Retrained(_ context.Context, st reference.Streams) (reference.Release, error) {
	return s.publish(st.Rand("skeleton/retrained/noise")), nil
}

func (s *Subject) publish(r interface{ NormFloat64() float64 }) reference.Release {
	d := s.final.Dim()
	mean := make([]float64, d)
	for i := range s.final.Len() {
		for j, v := range s.final.Row(i) {
			mean[j] += v / float64(s.final.Len())
		}
	}
	pub := make([]float64, d)
	for j := range pub {
		pub[j] = mean[j] + s.sigma*r.NormFloat64()
	}
	return reference.Release{Published: pub, Secret: mean}
}

// Check is the certificate (σ recomputed against the σ used) and the published-model phase
// every method shares (methodkit.Published).
func Check(ctx context.Context, s *Subject, results []trials.TrialResult, opt audit.CheckOptions) ([]verdict.Finding, error) {
	if len(results) == 0 {
		return nil, fmt.Errorf("skeleton check: no trials")
	}
	sens := 2 * s.radius / float64(s.final.Len())
	fs := []verdict.Finding{verdict.Deterministic("skeleton/certificate/sigma", "σ the Gaussian mechanism needs (must not exceed the σ used)",
		verdict.Certificate, s.need, s.sigma, 0, fmt.Sprintf("sensitivity 2R/n = %.4g, ε = %g, δ = %g", sens, s.epsilon, s.delta))}
	pub := methodkit.Published{Prefix: "skeleton", Epsilon: s.epsilon, Delta: s.delta,
		Release: &checks.GaussianRelease{Sigma: s.sigma, Rho: sens * sens / (2 * s.sigma * s.sigma), Epsilon: s.epsilon, Delta: s.delta}}
	more, err := pub.Check(ctx, nil, opt, results)
	if err != nil {
		return nil, err
	}
	return append(fs, more...), nil
}
