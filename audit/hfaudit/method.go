package hfaudit

import (
	"context"
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"github.com/unlearnaudit/unlearnaudit/reference/hf"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/mat"
)

func init() { audit.MustRegister(Method{}) }

// Method is HF's audit behind the contract the front ends drive (audit.Method).
type Method struct{}

// Name is "hf".
func (Method) Name() string { return "hf" }

// Summary is one line for help output.
func (Method) Summary() string {
	return "Hessian-Free online certified unlearning (Qiao, Zhang, Tang, Wei): per-record statistics by Hessian–vector products, Theorem 4"
}

// DemoVariants are the two readings of the noise bound.
func (Method) DemoVariants() []audit.Variant {
	return []audit.Variant{
		{Name: "hf", Summary: "HF on softmax regression, noise sized by Theorem 4's bound"},
		{Name: "hf-code", Summary: "the same, noise sized by the official code's bound (spec hf §3.12)"},
	}
}

// DemoSettings are Stage I's settings, declared once (demoSettings) for the flags, a
// spec's method.params and Demo.
type DemoSettings struct {
	Epochs, Batch int
	Eta, Decay    float64
}

// demoSettings binds each of s's fields to its Param.
func demoSettings(s *DemoSettings) []audit.Setting {
	return []audit.Setting{
		audit.IntSetting(&s.Epochs, audit.Param{Name: "hf-epochs", Usage: "HF: SGD epochs", Default: "5", Kind: audit.Integer, Range: "[1, 1e4]"}),
		audit.IntSetting(&s.Batch, audit.Param{Name: "hf-batch", Usage: "HF: mini-batch size |𝓑|", Default: "32", Kind: audit.Integer, Range: "[1, 1e7]"}),
		audit.FloatSetting(&s.Eta, audit.Param{Name: "hf-eta", Usage: "HF: initial step size η", Default: "0.1", Kind: audit.Number, Range: "(0, inf)"}),
		audit.FloatSetting(&s.Decay, audit.Param{Name: "hf-decay", Usage: "HF: step decay q per step, η_t = η·q^t", Default: "0.995", Kind: audit.Number, Range: "(0, 1)"}),
	}
}

// DemoParams are the settings' Params.
func (Method) DemoParams() []audit.Param { return audit.SettingParams(demoSettings(new(DemoSettings))) }

// Demo audits HF on 𝒟₀ as a two-class softmax regression (labels −1, +1 as classes 0, 1)
// with the demo's deletions as its requests (HF serves deletions only).
func (Method) Demo(ctx context.Context, s audit.DemoSetup, variants []string, args audit.Args) ([]audit.Audited, error) {
	var set DemoSettings
	if err := audit.ReadSettings(args, demoSettings(&set)); err != nil {
		return nil, err
	}
	epochs, batch, eta, q := set.Epochs, set.Batch, set.Eta, set.Decay
	if len(variants) == 0 {
		return nil, nil
	}
	n, p := s.Data.Len(), s.Data.Dim()
	x := mat.NewDense(n, p, nil)
	y := make([]int, n)
	for i := range n {
		x.SetRow(i, s.Data.Record(i).X)
		if s.Data.Label(i) > 0 {
			y[i] = 1
		}
	}
	data, err := multiclass.NewData(x, y, 2)
	if err != nil {
		return nil, err
	}
	var out []audit.Audited
	for _, v := range variants {
		reading := PaperBound
		if v == "hf-code" {
			reading = CodeReading
		}
		sub, err := New(ctx, Setup{Model: multiclass.Softmax{K: 2, P: p, Lambda: s.Lambda},
			Config: hf.Config{Epochs: epochs, BatchSize: batch, Eta: eta, Decay: q},
			Data:   data, IDs: s.Data.IDs(), Removals: s.Deletions, Epsilon: s.Epsilon, Delta: s.Delta, Reading: reading})
		if err != nil {
			return nil, err
		}
		opt := s.CheckOptions()
		out = append(out, audit.Audited{Subject: sub, Check: func(ctx context.Context, r []trials.TrialResult) ([]verdict.Finding, error) {
			return Check(ctx, sub, r, opt)
		}, Controls: Controls(sub, opt)})
	}
	return out, nil
}

// Bounds is Theorem 4 and the code's bound from declared constants ("audit bounds hf").
func (Method) Bounds() audit.Bounds {
	return audit.Bounds{
		About:   "HF's approximation-error bounds (spec hf §3): Theorem 4 per record and for m records (Eq. 56, sum forms), Eq. 57, the official code's bound, and the analytic Gaussian noise each sizes.",
		Example: "--eta 0.05 --g 5 --q 0.995 --rho 1 --n 1000 --epochs 15 --batch 32 --m 1 --epsilon 1 --delta 1e-5",
		Variants: []audit.Variant{{Name: "theorem-4", Summary: "Theorem 4 (Eq. 56) sizes the noise"},
			{Name: "code", Summary: "the official code's bound sizes the noise"}},
		Params:  audit.SettingParams(boundSettings(new(BoundSettings))),
		Compute: computeBounds,
	}
}

// BoundSettings are the certificate's declared constants, declared once (boundSettings)
// for "audit bounds hf"'s flags and computeBounds.
type BoundSettings struct {
	Eta, G, Q, Rho      float64
	N, Epochs, Batch, M int
	Eps, Delta, Lambda  float64
	D                   int
	Gamma               float64
}

// boundSettings binds each of s's fields to its Param.
func boundSettings(s *BoundSettings) []audit.Setting {
	return []audit.Setting{
		audit.FloatSetting(&s.Eta, audit.Param{Name: "eta", Usage: "initial step size η", Kind: audit.Number, Range: "(0, inf)", Default: "0.05"}),
		audit.FloatSetting(&s.G, audit.Param{Name: "g", Usage: "per-record gradient bound G (the code's clip C)", Kind: audit.Number, Range: "(0, inf)", Default: "5"}),
		audit.FloatSetting(&s.Q, audit.Param{Name: "q", Usage: "step decay per step", Kind: audit.Number, Range: "(0, 1)", Default: "0.995"}),
		audit.FloatSetting(&s.Rho, audit.Param{Name: "rho", Usage: "contraction bound ρ of one linearised step", Kind: audit.Number, Range: "(0, inf)", Default: "1"}),
		audit.IntSetting(&s.N, audit.Param{Name: "n", Usage: "training records", Kind: audit.Integer, Range: "[1, 1e9]", Default: "1000"}),
		audit.IntSetting(&s.Epochs, audit.Param{Name: "epochs", Usage: "SGD epochs", Kind: audit.Integer, Range: "[1, 1e6]", Default: "15"}),
		audit.IntSetting(&s.Batch, audit.Param{Name: "batch", Usage: "mini-batch size |𝓑|", Kind: audit.Integer, Range: "[1, 1e9]", Default: "32"}),
		audit.IntSetting(&s.M, audit.Param{Name: "m", Usage: "records deleted", Kind: audit.Integer, Range: "[1, 1e9]", Default: "1"}),
		audit.FloatSetting(&s.Eps, audit.Param{Name: "epsilon", Usage: "ε of the claim", Kind: audit.Number, Range: "(0, inf)", Default: "1"}),
		audit.FloatSetting(&s.Delta, audit.Param{Name: "delta", Usage: "δ of the claim", Kind: audit.Number, Range: "(0, 1)", Default: "1e-5"}),
		audit.FloatSetting(&s.Lambda, audit.Param{Name: "lambda", Usage: "L2 weight λ (Theorem 6)", Kind: audit.Number, Range: "(0, inf)", Default: "0.5"}),
		audit.IntSetting(&s.D, audit.Param{Name: "d", Usage: "parameters d (Theorem 6)", Kind: audit.Integer, Range: "[1, 1e12]", Default: "7850"}),
		audit.FloatSetting(&s.Gamma, audit.Param{Name: "gamma", Usage: "excess-risk budget γ of the deletion capacity", Kind: audit.Number, Range: "(0, inf)", Default: "1"}),
	}
}

func computeBounds(_ context.Context, variant string, args audit.Args) ([]verdict.Row, error) {
	var c BoundSettings
	if err := audit.ReadSettings(args, boundSettings(&c)); err != nil {
		return nil, err
	}
	eta, g, q, rho := c.Eta, c.G, c.Q, c.Rho
	n, epochs, batch, m := c.N, c.Epochs, c.Batch, c.M
	eps, delta := c.Eps, c.Delta
	lambda, d, gamma := c.Lambda, c.D, c.Gamma
	switch {
	case m >= n:
		return nil, fmt.Errorf("--m: m = %d deletions of n = %d records; Theorems 4 and 6 need m < n (--n is the training set's size)", m, n)
	case batch > n:
		return nil, fmt.Errorf("--batch: |𝓑| = %d exceeds n = %d; a mini-batch holds at most the training set, and c2 divides by |𝓑|", batch, n)
	}
	B := (n + batch - 1) / batch
	p := Thm4Params{Eta: eta, G: g, Q: q, Rho: rho, T: epochs * B, B: B, BatchSize: batch}
	c1, c2, err := Thm4PerSample(p, 0)
	if err != nil {
		return nil, err
	}
	set, _ := Thm4SetPaper(p, m)
	code := CodeBound(eta, g, q, rho, n, epochs, batch, m)
	bound, source := set, "Theorem 4: m·(c1 + c2(0))"
	if variant == "code" {
		bound, source = code, "the official code's bound"
	}
	sigma, err := dp.AnalyticGaussianSigma(bound, eps, delta)
	if err != nil {
		return nil, err
	}
	// Theorem 6 with G as the Lipschitz constant and the variant's ‖Δ‖, and the deletion
	// capacity each gives (App. B.2, computed: the largest m whose bound stays within γ)
	deltaNorm := func(k int) float64 {
		if variant == "code" {
			return CodeBound(eta, g, q, rho, n, epochs, batch, k)
		}
		b, _ := Thm4SetPaper(p, k)
		return b
	}
	risk := func(k int) float64 { return ExcessRiskBound(g, lambda, n, k, d, rho, p.T, eps, delta, deltaNorm(k)) }
	riskReg := func(k int) float64 {
		return ExcessRiskBoundRegularized(g, lambda, n, k, d, rho, p.T, eps, delta, deltaNorm(k))
	}
	rows := []verdict.Row{
		{Key: "variant", Value: variant, Note: "Qiao et al., HF"},
		{Key: "steps", Value: p.T, Note: "T = epochs·⌈n/|𝓑|⌉"},
		{Key: "c1", Value: c1, Note: "remainder term (2η²G/(1−q))·Σ ρ^{T−1−k}(q^k − q^{2k}), Eq. 56"},
		{Key: "c2", Value: c2, Note: "gradient-mismatch term at b(u) = 0, Eq. 56"},
		{Key: "theorem4_set", Value: set, Note: "m·(c1 + c2(0))"},
		{Key: "simplified", Value: Thm4Simplified(p), Note: "Eq. 57 (+Inf unless q < ρ)"},
		{Key: "code_bound", Value: code, Note: "utils/perturbation.py: T = n(E+1)/|𝓑|, c1·(1−q)², ρ^B·q^B for every record, B = ⌈n/|𝓑|⌉"},
		{Key: "bound", Value: bound, Note: source},
		{Key: "sigma", Value: sigma, Note: "analytic Gaussian mechanism at the bound, ε, δ"},
	}
	if m < n {
		rows = append(rows,
			verdict.Row{Key: "excess_risk", Value: risk(m), Note: "Theorem 6, Eq. 77 as printed, L = G, ‖Δ‖ = bound (charges the noise as if the regularised loss were Lipschitz everywhere)"},
			verdict.Row{Key: "excess_risk_regularized", Value: riskReg(m), Note: "Eq. 77 + (λ/2)dσ², the regulariser's mean under the classic noise (the repair; props' measured run violates the printed form)"})
	}
	rows = append(rows,
		verdict.Row{Key: "deletion_capacity", Value: DeletionCapacity(gamma, risk, n), Note: "largest m < n with Eq. 77 ≤ γ (−1: none)"},
		verdict.Row{Key: "deletion_capacity_regularized", Value: DeletionCapacity(gamma, riskReg, n), Note: "the same with the repaired Eq. 77"})
	return rows, nil
}
