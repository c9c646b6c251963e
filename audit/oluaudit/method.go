package oluaudit

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/olu"
)

func init() { audit.MustRegister(Method{}) }

// Method is OLU's audit behind the contract the front ends drive (audit.Method).
type Method struct{}

// Name is "olu".
func (Method) Name() string { return "olu" }

// Summary is one line for help output.
func (Method) Summary() string {
	return "Online Learning and Unlearning (Hu, Schölkopf, Sanyal): online gradient descent with passive (noise) or active (descent, then noise) deletions, Theorems 1–6"
}

// DemoVariants are the two algorithms.
func (Method) DemoVariants() []audit.Variant {
	return []audit.Variant{
		{Name: Passive, Summary: "OLU passive (Algorithm 1) on the demo's rows as a logistic stream, η_t = 1/(μt), every deletion served at the last round"},
		{Name: Active, Summary: "OLU active (Algorithm 2) on the same stream, each deleted record arriving after the previous request"},
	}
}

// DemoSettings are the demo's settings, declared once (demoSettings) for the flags, a
// spec's method.params and Demo.
type DemoSettings struct {
	Omega float64 // the budget split ω
}

// demoSettings binds each of s's fields to its Param.
func demoSettings(s *DemoSettings) []audit.Setting {
	return []audit.Setting{audit.FloatSetting(&s.Omega, audit.Param{Name: "olu-omega", Usage: "OLU: the budget split ω > 1 of the noise (the paper's 1.2)", Default: "1.2", Kind: audit.Number, Range: "(1, 100]"})}
}

// DemoParams are the settings' Params.
func (Method) DemoParams() []audit.Param { return audit.SettingParams(demoSettings(new(DemoSettings))) }

// Demo streams 𝒟₀'s rows, in a seeded order with the demo's deleted records placed at
// evenly spaced rounds, as L2-logistic costs (μ = λ, β = max‖x‖²/4 + λ, L on the ball of
// the demo's radius), with η_t = 1/(μt) and the OLU target ρ whose zCDP conversion is the
// demo's (ε, δ). The demo's additions are not part of the stream: OLU's requests delete.
func (Method) Demo(ctx context.Context, s audit.DemoSetup, variants []string, args audit.Args) ([]audit.Audited, error) {
	var set DemoSettings
	if err := audit.ReadSettings(args, demoSettings(&set)); err != nil {
		return nil, err
	}
	omega := set.Omega
	if len(variants) == 0 {
		return nil, nil
	}
	data, gaps, err := demoStream(s)
	if err != nil {
		return nil, err
	}
	loss := reference.Logistic{Lambda: s.Lambda}
	consts := loss.Constants(data, s.Radius)
	cfg := olu.Config{X0: make([]float64, data.Dim()), Domain: olu.Ball{R: s.Radius}, Steps: olu.Steps{Kind: olu.StronglyConvexSteps, Mu: s.Lambda},
		Lipschitz: consts.Lipschitz, Mu: s.Lambda, Beta: consts.Smoothness, Epsilon: RhoFor(s.Epsilon, s.Delta), Omega: omega}
	opt := s.CheckOptions()
	var out []audit.Audited
	for _, v := range variants {
		sched := make(olu.Schedule, len(gaps))
		for i, u := range gaps {
			sched[i] = olu.Request{U: u, Tau: data.Len()}
			if v == Active {
				sched[i].Tau = u + data.Len()/(2*(len(gaps)+1))
			}
		}
		sub, err := New(ctx, Setup{Variant: v, Loss: loss, Data: data, Sched: sched, Config: cfg, Epsilon: s.Epsilon, Delta: s.Delta, Seed: s.Seed})
		if err != nil {
			return nil, err
		}
		out = append(out, audit.Audited{Subject: sub, Check: func(ctx context.Context, r []trials.TrialResult) ([]verdict.Finding, error) {
			return Check(ctx, sub, r, opt)
		}, Controls: Controls(sub, opt)})
	}
	return out, nil
}

// demoStream orders 𝒟₀'s rows for the stream: the others in a seeded order, the deleted
// records inserted at rounds T·i/(k+1). It returns the ordered data and those rounds.
func demoStream(s audit.DemoSetup) (*reference.Dataset, []int, error) {
	deleted := map[int64]bool{}
	for _, id := range s.Deletions {
		deleted[id] = true
	}
	var others []int64
	for i := range s.Data.Len() {
		if id := s.Data.ID(i); !deleted[id] {
			others = append(others, id)
		}
	}
	r := reference.Stream(s.Seed, 0, "olu-demo/order")
	r.Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
	T, k := s.Data.Len(), len(s.Deletions)
	order := make([]int64, 0, T)
	var rounds []int
	next := 0
	for i, id := range s.Deletions {
		at := T * (i + 1) / (k + 1) // 1-based round of the i-th deleted record
		for len(order) < at-1 && next < len(others) {
			order = append(order, others[next])
			next++
		}
		order = append(order, id)
		rounds = append(rounds, len(order))
	}
	order = append(order, others[next:]...)
	recs := make([]reference.Record, len(order))
	for i, id := range order {
		row, ok := s.Data.Lookup(id)
		if !ok {
			return nil, nil, fmt.Errorf("olu demo: record %d is not in 𝒟₀", id)
		}
		recs[i] = s.Data.Record(row)
	}
	data, err := reference.FromRecords(s.Data.Dim(), recs)
	return data, rounds, err
}

// Bounds is every bound of spec olu §3 from declared constants ("audit bounds olu").
func (Method) Bounds() audit.Bounds {
	return audit.Bounds{
		About: "OLU's guarantees (spec olu §3) for a schedule of requests (u_i, τ_i): passive — each σ_i with the valid contraction and with the paper's constant γ, " +
			"the accountant, and the regret bounds of the step schedule (1/(μt): Theorem 2 stated, by its proof, with the corrected noise, and Corollary 7 printed and fixed; " +
			"D/(L√t): Theorem 3 stated and derived; constant: Theorem 5 stated, by the paper's method carried through, the tight form, and its step sizes); active — Theorem 6's I₁, I₂, " +
			"each σ_i by the valid shift and by Eq. 40 as printed, G_act and Theorem 6's order term. Each theorem's hypotheses are checked.",
		Example:  "--variant passive --steps sc --mu 1 --beta 3 --lipschitz 10 --diameter 10 --u 4 --tau 20 --t 100",
		Variants: []audit.Variant{{Name: Passive, Summary: "Algorithm 1 and Theorems 1–5"}, {Name: Active, Summary: "Algorithm 2 and Theorem 6"}},
		Params:   audit.SettingParams(boundSettings(new(BoundSettings))),
		Compute:  computeBounds,
	}
}

// BoundSettings are the certificate's declared constants, declared once (boundSettings)
// for "audit bounds olu"'s flags and computeBounds.
type BoundSettings struct {
	Steps                      string // sc, convex or constant
	Mu, Beta, L, D, Eta, Kappa float64
	Eps, Omega                 float64
	Dim, T                     int
	Us, Taus                   []int
}

// boundSettings binds each of s's fields to its Param.
func boundSettings(s *BoundSettings) []audit.Setting {
	return []audit.Setting{
		audit.StringSetting(&s.Steps, audit.Param{Name: "steps", Usage: "the step sizes: sc (1/(μt)), convex (D/(L√t)) or constant", Default: "sc", Kind: audit.Choice, Choices: []string{"sc", "convex", "constant"}}),
		audit.FloatSetting(&s.Mu, audit.Param{Name: "mu", Usage: "strong convexity μ (0 for convex costs)", Default: "1", Kind: audit.Number, Range: "[0, inf)"}),
		audit.FloatSetting(&s.Beta, audit.Param{Name: "beta", Usage: "smoothness β", Default: "3", Kind: audit.Number, Range: "(0, inf)"}),
		audit.FloatSetting(&s.L, audit.Param{Name: "lipschitz", Usage: "Lipschitz constant L of the costs on the domain", Default: "10", Kind: audit.Number, Range: "(0, inf)"}),
		audit.FloatSetting(&s.D, audit.Param{Name: "diameter", Usage: "the domain's diameter D", Default: "10", Kind: audit.Number, Range: "(0, inf)"}),
		audit.FloatSetting(&s.Eta, audit.Param{Name: "eta", Usage: "the constant step η (steps constant; 0: Table 1's)", Default: "0", Kind: audit.Number, Range: "[0, inf)"}),
		audit.FloatSetting(&s.Kappa, audit.Param{Name: "kappa", Usage: "quadratic growth κ of the aggregates (Theorems 3, 5)", Default: "1", Kind: audit.Number, Range: "(0, inf)"}),
		audit.FloatSetting(&s.Eps, audit.Param{Name: "epsilon", Usage: "the OLU target ε: D_α ≤ αε at every order", Default: "1", Kind: audit.Number, Range: "(0, inf)"}),
		audit.FloatSetting(&s.Omega, audit.Param{Name: "omega", Usage: "the budget split ω > 1", Default: "1.2", Kind: audit.Number, Range: "(1, 100]"}),
		audit.IntSetting(&s.Dim, audit.Param{Name: "d", Usage: "the dimension d", Default: "1", Kind: audit.Integer, Range: "[1, 1e9]"}),
		audit.IntSetting(&s.T, audit.Param{Name: "t", Usage: "the horizon T", Default: "100", Kind: audit.Integer, Range: "[1, 1e12]"}),
		audit.IntsSetting(&s.Us, audit.Param{Name: "u", Usage: "the rounds whose functions the requests delete, comma-separated", Default: "4", List: true, Kind: audit.Integer, Range: "[1, 1e9]"}),
		audit.IntsSetting(&s.Taus, audit.Param{Name: "tau", Usage: "the rounds the requests are served at, comma-separated, one per u", Default: "20", List: true, Kind: audit.Integer, Range: "[1, 1e9]"}),
	}
}

func computeBounds(_ context.Context, variant string, args audit.Args) ([]verdict.Row, error) {
	var c BoundSettings
	if err := audit.ReadSettings(args, boundSettings(&c)); err != nil {
		return nil, err
	}
	mu, beta, L, D, eta, kappa := c.Mu, c.Beta, c.L, c.D, c.Eta, c.Kappa
	eps, omega := c.Eps, c.Omega
	d, T := c.Dim, c.T
	us, taus := c.Us, c.Taus
	if len(us) != len(taus) {
		return nil, fmt.Errorf("--u names %d rounds and --tau %d: want one τ per u", len(us), len(taus))
	}
	sched := make(olu.Schedule, len(us))
	for i := range us {
		sched[i] = olu.Request{U: us[i], Tau: taus[i]}
	}
	if err := sched.Validate(T, variant == Passive); err != nil {
		return nil, fmt.Errorf("--u, --tau: %w", err)
	}
	if mu > beta {
		return nil, fmt.Errorf("--mu %g above --beta %g", mu, beta)
	}
	k := len(sched)
	steps := c.Steps
	if variant == Active {
		return activeRows(sched, mu, beta, L, D, eps, omega, d, T)
	}
	etas := make([]float64, T)
	switch steps {
	case "sc":
		if mu == 0 {
			return nil, fmt.Errorf("--steps sc needs --mu > 0")
		}
		for t := range etas {
			etas[t] = 1 / (mu * float64(t+1))
		}
	case "convex":
		for t := range etas {
			etas[t] = D / (L * math.Sqrt(float64(t+1)))
		}
	case "constant":
		if eta == 0 {
			eta = Thm5EtaTable(D, L, T, k, d, eps)
		}
		for t := range etas {
			etas[t] = eta
		}
	}
	var sigma, sigmaPaper, gamma []float64
	sigma2 := make([]float64, k)
	for i, q := range sched {
		g := olu.Contraction(olu.PerStep, etas, q.U, q.Tau, mu, beta)
		gamma = append(gamma, g)
		s := olu.PassiveSigma(i+1, omega, eps, g, etas[q.U-1]*L)
		sigma = append(sigma, s)
		sigma2[i] = s * s
		sigmaPaper = append(sigmaPaper, olu.PassiveSigma(i+1, omega, eps, olu.Contraction(olu.PaperGamma, etas, q.U, q.Tau, mu, beta), etas[q.U-1]*L))
	}
	rows := []verdict.Row{
		{Key: "contraction", Value: gamma, Note: "Γ(u_i, τ_i) = Π_{s=u+1}^{τ} max(|1 − η_s μ|, |1 − η_s β|), the valid per-step product"},
		{Key: "sigma", Value: sigma, Note: "σ_i = B(i, ω, ε)·Γ·η_u L, B = √(ω i^ω/(2(ω − 1)ε)) (Algorithm 1, corrected)"},
		{Key: "sigma_paper", Value: sigmaPaper, Note: "σ_i with the paper's γ^{τ−u}, γ = (β/μ − 1)/(β/μ + 1) (1 for μ = 0): valid only at the step 2/(β + μ) (erratum 1)"},
		{Key: "renyi_per_order", Value: olu.RDPSpent(1, eps, omega, k), Note: "the accountant: Σ a_i²/(2σ_i²) = ε(ω − 1)/ω·H_ω(k) ≤ ε"},
	}
	tauF := make([]int, k)
	copy(tauF, taus)
	switch steps {
	case "sc":
		hyp := 0.5 + beta/mu
		g := GammaPaperOrOne(beta, mu)
		rows = append(rows,
			verdict.Row{Key: "theorem2_hypothesis_holds", Value: slices.Min(us) >= int(math.Ceil(hyp)), Note: fmt.Sprintf("every u_i ≥ 1/2 + β/μ = %.4g", hyp)},
			verdict.Row{Key: "theorem2_stated", Value: Thm2BoundPaper(L, mu, T, k, d, eps, G1(g, taus, us)), Note: "(L²/μ)(log T + 2k² + (√3 d k^{1.7}/ε)·G1), as stated"},
			verdict.Row{Key: "theorem2_proof", Value: Thm2BoundProof(L, mu, T, k, d, eps, omega, G1(g, taus, us)), Note: "the proof's Eqs. 18–19"},
			verdict.Row{Key: "theorem2_at_corrected_noise", Value: Thm2BoundSafe(L, mu, T, k, d, sigma2, tauF), Note: "(L²/μ)(1 + log T + k + k²) + Σ d σ_i² μ τ_i/2 at the corrected σ (spec [DERIVED])"},
			verdict.Row{Key: "corollary7_printed", Value: Cor7Paper(L, mu, T, k, d, eps, omega, g), Note: "Corollary 7 as printed"},
			verdict.Row{Key: "corollary7_fixed", Value: Cor7Fixed(L, mu, T, k, d, eps, omega, g), Note: "with the '1 +' its derivation drops (erratum 5)"})
	case "convex":
		hyp := beta * beta * D * D / (4 * L * L)
		rows = append(rows,
			verdict.Row{Key: "theorem3_hypothesis_holds", Value: float64(slices.Min(us)) >= hyp, Note: fmt.Sprintf("every u_i ≥ β²D²/(4L²) = %.4g", hyp)},
			verdict.Row{Key: "theorem3_stated", Value: Thm3Bound(D, L, kappa, T, k, d, eps, G2(taus, us)), Note: "3DL√T + 2k²L²/κ + (3DLdk^{1.7}/(2ε))·G2, as stated"},
			verdict.Row{Key: "theorem3_derived", Value: Thm3BoundDerived(D, L, kappa, T, k, d, eps, omega, taus, us), Note: "3DL√T + k(k + 1)L²/κ + the exact noise term (spec [DERIVED])"})
	case "constant":
		rows = append(rows,
			verdict.Row{Key: "eta", Value: eta, Note: "the constant step used"},
			verdict.Row{Key: "eta_table1", Value: Thm5EtaTable(D, L, T, k, d, eps), Note: "Table 1's √(2D²/(TL²(1 + 1.2k^{2.2}d/(0.42ε))))"},
			verdict.Row{Key: "eta_proof", Value: Thm5EtaProof(D, L, T, k, d, eps, omega), Note: "the proof's, with 2(ω² − 1) = 0.88 where Table 1 prints 0.42"},
			verdict.Row{Key: "eta_within_2_over_beta", Value: eta <= 2/beta, Note: "η ≤ 2/β, which the theorem needs and does not state"},
			verdict.Row{Key: "theorem5_stated", Value: Thm5BoundPaper(L, D, kappa, T, k, d, eps), Note: "L(D + k^{1.1}√(d/ε))√(2T) + 2L²k²/κ: dimensionally inconsistent, and violated on the spec's instance (erratum 7)"},
			verdict.Row{Key: "theorem5_paper_method", Value: Thm5BoundPaperMethod(L, D, kappa, T, k, d, eps, omega), Note: "the paper's method carried through (spec [DERIVED])"},
			verdict.Row{Key: "regret_tight_at_eta", Value: ConstStepRegretTight(D, L, eta, T, k, d, eps, omega), Note: "D²/(2η) + ηTL²/2 + ηdωL²S_ω(k)/(4(ω − 1)ε), static regret (spec [DERIVED])"},
			verdict.Row{Key: "eta_tight", Value: ConstStepEtaTight(D, L, T, k, d, eps, omega), Note: "the step minimising it"})
	}
	return rows, nil
}

// GammaPaperOrOne is the paper's constant contraction: (β/μ − 1)/(β/μ + 1) for μ > 0, 1
// for convex costs.
func GammaPaperOrOne(beta, mu float64) float64 {
	if mu <= 0 {
		return 1
	}
	return olu.GammaPaperSC(beta, mu)
}

func activeRows(sched olu.Schedule, mu, beta, L, D, eps, omega float64, d, T int) ([]verdict.Row, error) {
	if mu <= 0 {
		return nil, fmt.Errorf("--variant active needs --mu > 0 (Theorem 6 is for strongly convex costs)")
	}
	for i := 1; i < len(sched); i++ {
		if sched[i].U <= sched[i-1].Tau {
			return nil, fmt.Errorf("--u, --tau: request %d deletes f_%d, which arrived before request %d's τ = %d (Theorem 6 needs τ_{i−1} < u_i)", i+1, sched[i].U, i, sched[i-1].Tau)
		}
	}
	k := len(sched)
	gamma := olu.GammaStep(2/(beta+mu), mu, beta)
	I2 := olu.ActiveI2(gamma, k)
	var i1s []int
	var shiftSigma, eq40, taus []float64
	tauInts := make([]int, k)
	for i, q := range sched {
		I1 := olu.ActiveI1(gamma, mu, D, L, q.Tau)
		i1s = append(i1s, I1)
		etaU := 1 / (mu * float64(q.U))
		gOGD := 1.0
		for s := q.U + 1; s <= q.Tau; s++ {
			gOGD *= olu.GammaStep(1/(mu*float64(s)), mu, beta)
		}
		a := olu.ActiveShift(i+1, gamma, I1, I2, L, mu, D, q.Tau, gOGD, etaU)
		shiftSigma = append(shiftSigma, olu.NoiseMultiplier(i+1, omega, eps)*a)
		eq40 = append(eq40, olu.ActiveSigmaEq40(i+1, omega, eps, gamma, I2, L, mu, q.Tau, q.U, etaU))
		taus = append(taus, float64(q.Tau))
		tauInts[i] = q.Tau
	}
	g := GAct(gamma, tauInts)
	return []verdict.Row{
		{Key: "gamma_gd", Value: gamma, Note: "the descent phases' contraction at the step 2/(β + μ), (β − μ)/(β + μ)"},
		{Key: "i1", Value: i1s, Note: "I₁,i = ⌈ln(μDτ_i/L)/ln(1/γ)⌉ (Theorem 6)"},
		{Key: "i2", Value: I2, Note: "I₂ = ⌈2.2 ln k/ln(1/γ)⌉"},
		{Key: "sigma", Value: shiftSigma, Note: "σ_i = B(i, ω, ε)·a_i, a_i = γ^{I₂}(2γ^{I₁}D + 2iL/(μτ_i) + γ^{I₁}Γη_uL) (spec olu §3.4 [FIX], valid for any D)"},
		{Key: "sigma_eq40", Value: eq40, Note: "Eq. 40 as printed: its proof's step drops a 1/D (valid only for D ≥ 1); its loose 6i term can still keep it above sigma, the valid σ (compare them)"},
		{Key: "g_act", Value: g, Note: "G_act = Σ γ^{τ_i − τ_{i−1}}(τ_i − τ_{i−1})"},
		{Key: "g_act_bound", Value: float64(k) / (math.E * math.Log(1/gamma)), Note: "k/(e ln(1/γ))"},
		{Key: "theorem6_order", Value: Thm6Order(T, k, d, L, D, mu, eps, g), Note: "log T + k(LD² + Ld/(με)) + G_act + L²k²/μ: an order term, constants dropped as stated"},
		{Key: "gradients_per_request", Value: gradientCounts(i1s, I2, taus, k), Note: "I₁,i·τ_i + I₂·(τ_i − i) (Table 2 counts iterations instead)"},
	}, nil
}

func gradientCounts(i1s []int, I2 int, taus []float64, k int) []float64 {
	out := make([]float64, k)
	for i := range out {
		out[i] = float64(i1s[i])*taus[i] + float64(I2)*(taus[i]-float64(i+1))
	}
	return out
}

// Experiments are OLU's reproductions.
