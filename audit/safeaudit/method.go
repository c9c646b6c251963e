package safeaudit

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"github.com/unlearnaudit/unlearnaudit/reference/safe"
	"gonum.org/v1/gonum/mat"
)

func init() { audit.MustRegister(Method{}) }

// Method is SAFE's audit behind the contract the front ends drive (audit.Method).
type Method struct{}

// Name is "safe".
func (Method) Name() string { return "safe" }

// Summary is one line for help output.
func (Method) Summary() string {
	return "SAFE streaming forgetting (Shen, Zhang, Zhao, Bialkowski, Chen, Xu): one normalised step from w₀ per round, Theorems 1–2"
}

// Bounds is every theorem of spec safe §3 from declared constants ("audit bounds safe").
func (Method) Bounds() audit.Bounds {
	return audit.Bounds{
		About:    "SAFE's guarantees (spec safe §3): the step γ = √W/(K√T); Theorem 1's surrogate gap bound and its λ-consistent scale; Theorem 2(i)'s per-round bound as printed, by its own algebra and with the 4γ² its proof drops, against the trivial 2UW; Theorem 2(ii)'s regret bound, paper and conservative, against the trivial 2UWT and the horizon past which it informs; Theorem 2(iii)'s noise and the sensitivity it charges (W) against what the release can need (2W + γ), with the exact δ the paper's σ gives at that shift.",
		Example:  "--u 1 --w 10 --k 2.5 --t 20 --epsilon 1 --delta 1e-5",
		Variants: []audit.Variant{{Name: "theorem-2", Summary: "every bound of Theorems 1 and 2"}},
		Params:   audit.SettingParams(boundSettings(new(BoundSettings))),
		Compute:  computeBounds,
	}
}

// BoundSettings are the certificate's declared constants, declared once (boundSettings)
// for "audit bounds safe"'s flags and computeBounds.
type BoundSettings struct {
	U, W, K, VT        float64
	T, C, M, Rem       int
	Lambda, Eps, Delta float64
}

// boundSettings binds each of s's fields to its Param.
func boundSettings(s *BoundSettings) []audit.Setting {
	return []audit.Setting{
		audit.FloatSetting(&s.U, audit.Param{Name: "u", Usage: "bound U on the streaming risk's gradient norm", Kind: audit.Number, Range: "(0, inf)", Default: "1"}),
		audit.FloatSetting(&s.W, audit.Param{Name: "w", Usage: "bound W on the parameters' norm", Kind: audit.Number, Range: "(0, inf)", Default: "10"}),
		audit.FloatSetting(&s.K, audit.Param{Name: "k", Usage: "the step's constant K", Kind: audit.Number, Range: "(0, inf)", Default: "2.5"}),
		audit.IntSetting(&s.T, audit.Param{Name: "t", Usage: "rounds T (the horizon)", Kind: audit.Integer, Range: "[1, 1e9]", Default: "20"}),
		audit.FloatSetting(&s.VT, audit.Param{Name: "vt", Usage: "path length V_T of the retrained optima", Kind: audit.Number, Range: "[0, inf)", Default: "0"}),
		audit.IntSetting(&s.C, audit.Param{Name: "classes", Usage: "classes C (Theorem 1)", Kind: audit.Integer, Range: "[2, 1e6]", Default: "10"}),
		audit.IntSetting(&s.M, audit.Param{Name: "deleted", Usage: "records deleted so far m_t (Theorem 1)", Kind: audit.Integer, Range: "[0, 1e12]", Default: "8000"}),
		audit.IntSetting(&s.Rem, audit.Param{Name: "remaining", Usage: "records left |D_t| (Theorem 1)", Kind: audit.Integer, Range: "[1, 1e12]", Default: "52000"}),
		audit.FloatSetting(&s.Lambda, audit.Param{Name: "lambda", Usage: "forgetting weight λ (Theorem 1's consistent scale)", Kind: audit.Number, Range: "[0, inf)", Default: "1000"}),
		audit.FloatSetting(&s.Eps, audit.Param{Name: "epsilon", Usage: "ε of the claim (Theorem 2(iii))", Kind: audit.Number, Range: "(0, inf)", Default: "1"}),
		audit.FloatSetting(&s.Delta, audit.Param{Name: "delta", Usage: "δ of the claim", Kind: audit.Number, Range: "(0, 1)", Default: "1e-5"}),
	}
}

func computeBounds(_ context.Context, _ string, args audit.Args) ([]verdict.Row, error) {
	var set BoundSettings
	if err := audit.ReadSettings(args, boundSettings(&set)); err != nil {
		return nil, err
	}
	U, W, K, VT := set.U, set.W, set.K, set.VT
	T, C, m, rem := set.T, set.C, set.M, set.Rem
	lambda, eps, delta := set.Lambda, set.Eps, set.Delta
	gamma := Gamma(W, K, T)
	sigma := NoiseScalePaper(W, eps, delta)
	need := SensitivityNeeded(W, gamma)
	return []verdict.Row{
		{Key: "gamma", Value: gamma, Note: "γ = √W/(K√T)"},
		{Key: "theorem1", Value: Thm1Bound(C, m, rem), Note: "C·m_t/|D_t|^{3/2} as printed (no λ: it cannot hold for every λ)"},
		{Key: "theorem1_consistent", Value: Thm1BoundConsistent(lambda, 1, rem), Note: "λ·c/√|D_t| with c = 1: the proof's steps with Eq. 16's normalisation (spec [DERIVED])"},
		{Key: "theorem2i_printed", Value: Thm2iBoundPaperPrinted(U, W, K, T), Note: "4.5·K·U·W^1.5·√T + U√W/(K√T), as the proof prints it"},
		{Key: "theorem2i_algebra", Value: Thm2iBoundPaperAlgebra(U, W, K, T), Note: "(U/(2γ))(9W² + γ²): the printed second term lacks its ½"},
		{Key: "theorem2i_conservative", Value: Thm2iBoundConservative(U, W, K, T), Note: "(U/(2γ))(9W² + 4γ²): the square of a difference of unit vectors"},
		{Key: "per_round_trivial", Value: TrivialPerRoundBound(U, W), Note: "2UW from Lipschitzness alone"},
		{Key: "theorem2ii_paper", Value: Thm2iiBoundPaper(U, W, K, VT, T), Note: "U·V_T/2 + TUγ/2 + 9UW²/(2γ)"},
		{Key: "theorem2ii_conservative", Value: Thm2iiBoundConservative(U, W, K, VT, T), Note: "2UV_T + 2TUγ + 13UW²/(2γ) (the proof's dropped constants; still not a proven bound)"},
		{Key: "regret_trivial", Value: TrivialRegretBound(U, W, T), Note: "2UWT"},
		{Key: "regret_informative_after", Value: RegretVacuousBelow(W, K), Note: "T past which the paper's regret bound (V_T = 0) is below the trivial one"},
		{Key: "sigma", Value: sigma, Note: "Theorem 2(iii): φ = W√(2 ln(1.25/δ))/ε, a standard deviation (the paper calls it a variance)"},
		{Key: "sensitivity_charged", Value: W, Note: "the L2 sensitivity the theorem's σ is for"},
		{Key: "sensitivity_needed", Value: need, Note: "‖w₀ − w_t*‖ + γ ≤ 2W + γ: how far the release's mean can be from the retrain's"},
		{Key: "delta_at_needed", Value: GaussDeltaAnalytic(eps, need, sigma), Note: fmt.Sprintf("the exact δ of the Gaussian pair at that shift and σ, against the claimed %g (Balle–Wang)", delta)},
		{Key: "epsilon_classic_at_needed", Value: GaussEpsClassic(need, sigma, delta), Note: "the classic formula's ε at that shift (valid only where ≤ 1)"},
		{Key: "classic_valid", Value: eps <= 1 && !math.IsNaN(sigma), Note: "the classic Gaussian mechanism's formula holds for ε ≤ 1 only"},
	}, nil
}

// DemoVariants is SAFE's streaming audit.
func (Method) DemoVariants() []audit.Variant {
	return []audit.Variant{{Name: "safe", Summary: "SAFE on softmax regression: the demo's deletions, then random rounds, published with Theorem 2(iii)'s noise"}}
}

// DemoSettings are SAFE's settings and the demo stream's shape, declared once
// (demoSettings) for the flags, a spec's method.params and Demo.
type DemoSettings struct {
	Lambda, K    float64
	Rounds, Size int
}

// demoSettings binds each of s's fields to its Param.
func demoSettings(s *DemoSettings) []audit.Setting {
	return []audit.Setting{
		audit.FloatSetting(&s.Lambda, audit.Param{Name: "safe-lambda", Usage: "SAFE: forgetting weight λ", Default: "1000", Kind: audit.Number, Range: "[0, 1e12]"}),
		audit.FloatSetting(&s.K, audit.Param{Name: "safe-k", Usage: "SAFE: the step's constant K, γ = √W/(K√T)", Default: "2.5", Kind: audit.Number, Range: "(0, 1e6]"}),
		audit.IntSetting(&s.Rounds, audit.Param{Name: "safe-rounds", Usage: "SAFE: random rounds after the demo's deletions (one round each)", Default: "7", Kind: audit.Integer, Range: "[0, 1000]"}),
		audit.IntSetting(&s.Size, audit.Param{Name: "safe-size", Usage: "SAFE: records deleted per random round", Default: "20", Kind: audit.Integer, Range: "[1, 100000]"}),
	}
}

// DemoParams are the settings' Params.
func (Method) DemoParams() []audit.Param { return audit.SettingParams(demoSettings(new(DemoSettings))) }

// Demo audits SAFE on 𝒟₀ as two-class softmax regression (labels −1, +1 as classes 0,
// 1): a fifth of the records held out as the membership attack's non-members, the rest
// trained on exactly, the demo's deletions served one per round and then random rounds.
func (Method) Demo(ctx context.Context, s audit.DemoSetup, variants []string, args audit.Args) ([]audit.Audited, error) {
	var set DemoSettings
	if err := audit.ReadSettings(args, demoSettings(&set)); err != nil {
		return nil, err
	}
	lambda, K, rounds, size := set.Lambda, set.K, set.Rounds, set.Size
	if len(variants) == 0 {
		return nil, nil
	}
	n, p := s.Data.Len(), s.Data.Dim()
	deleted := map[int64]bool{}
	for _, id := range s.Deletions {
		deleted[id] = true
	}
	// hold out a fifth (never a record the demo deletes) as the attack's non-members
	perm := reference.Stream(s.Seed, 0, "safe-demo/split").Perm(n)
	var trainRows, testRows []int
	for _, i := range perm {
		if len(testRows) < n/5 && !deleted[s.Data.ID(i)] {
			testRows = append(testRows, i)
		} else {
			trainRows = append(trainRows, i)
		}
	}
	slices.Sort(trainRows)
	slices.Sort(testRows)
	build := func(rows []int) (*multiclass.Data, []int64, error) {
		x := mat.NewDense(len(rows), p, nil)
		y := make([]int, len(rows))
		ids := make([]int64, len(rows))
		for k, i := range rows {
			x.SetRow(k, s.Data.Record(i).X)
			ids[k] = s.Data.ID(i)
			if s.Data.Label(i) > 0 {
				y[k] = 1
			}
		}
		d, err := multiclass.NewData(x, y, 2)
		return d, ids, err
	}
	train, ids, err := build(trainRows)
	if err != nil {
		return nil, err
	}
	test, _, err := build(testRows)
	if err != nil {
		return nil, err
	}
	row := map[int64]int{}
	for k, id := range ids {
		row[id] = k
	}
	var stream [][]int
	taken := map[int]bool{}
	for _, id := range s.Deletions {
		stream = append(stream, []int{row[id]})
		taken[row[id]] = true
	}
	rest := reference.Stream(s.Seed, 0, "safe-demo/stream").Perm(train.Len())
	for range rounds {
		var req []int
		for len(req) < size && len(rest) > 0 {
			if !taken[rest[0]] {
				req = append(req, rest[0])
				taken[rest[0]] = true
			}
			rest = rest[1:]
		}
		if len(req) == 0 || len(taken) >= train.Len()-1 {
			break
		}
		stream = append(stream, req)
	}
	sub, err := New(ctx, Setup{Model: multiclass.Softmax{K: 2, P: p, Lambda: s.Lambda}, Train: train, Test: test, IDs: ids,
		Stream: stream, Config: safe.Config{Lambda: lambda, K: K, Proj: min(8, p)}, Epsilon: s.Epsilon, Delta: s.Delta, Seed: s.Seed})
	if err != nil {
		return nil, err
	}
	opt := s.CheckOptions()
	return []audit.Audited{{Subject: sub, Check: func(ctx context.Context, res []trials.TrialResult) ([]verdict.Finding, error) {
		return Check(ctx, sub, res, opt)
	}, Controls: Controls(sub, opt)}}, nil
}
