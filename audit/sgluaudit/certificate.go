package sgluaudit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/reference/sglu"
)

const sgluSource = "Chien et al. 2024 (SGLU), "

// Bounds computes SGLU's certificates from declared constants: the ε of a deployment, or
// with --target-epsilon the σ or the epochs that meet a target, every step of the
// derivation shown and the other reading beside each flagged formula.
func (Method) Bounds() audit.Bounds {
	return audit.Bounds{
		About:   "Computes Stochastic Gradient Langevin Unlearning's certificates (Chien, Wang, Chen, Li 2024) from declared\nconstants: the ε of a deployment, or with --target-epsilon the σ or epochs that meet a target. Prints every\nstep of the derivation.",
		Example: "--n 11264 --batch 128 --smoothness 0.261264 --lipschitz 1 --strong-convexity 0.011264 --sigma 0.03 --alpha 10",
		Variants: []audit.Variant{
			{Name: "convergent", Summary: "Cor 3.8"},
			{Name: "finite", Summary: "Thm 3.2"},
			{Name: "random-batches", Summary: "Cor 3.9"},
			{Name: "convex", Summary: "Cor 3.10"},
			{Name: "batch", Summary: "Cor 3.12"},
			{Name: "sequential", Summary: "Thm 3.11"},
		},
		Params:  audit.SettingParams(boundSettings(new(BoundSettings))),
		Compute: certificate,
	}
}

// BoundSettings are the certificate's declared constants, declared once (boundSettings)
// for the flags and the computation. Those a variant requires, and those whose absence
// changes what is computed (--target-epsilon without --sigma searches σ), record whether
// they were given.
type BoundSettings struct {
	N                                audit.Given[int]
	Batch                            int
	Eta                              float64
	Sigma, Smoothness, Lipschitz     audit.Given[float64]
	StrongConvexity                  audit.Given[float64]
	Radius                           float64
	Epochs                           audit.Given[int]
	InitRadius                       audit.Given[float64]
	UnlearnEpochs, Removed, Requests int
	Alpha, Delta, Target             audit.Given[float64]
	PABI                             sglu.PABIMode
	Variance                         sglu.Variance
	AlphaRange                       string
	FT                               FTReading
	Mixed                            bool
}

// boundSettings binds each of s's fields to its Param.
func boundSettings(s *BoundSettings) []audit.Setting {
	return []audit.Setting{
		audit.GivenSetting(&s.N, audit.IntSetting, audit.Param{Name: "n", Usage: "dataset size n (required)", Default: "0", Unit: "records", Kind: audit.Integer, Range: "[1, 1e12]"}),
		audit.IntSetting(&s.Batch, audit.Param{Name: "batch", Usage: "mini-batch size b, dividing n (0: n, full batch)", Default: "0", Unit: "records", Kind: audit.Integer, Range: "[1, 1e12]"}),
		audit.FloatSetting(&s.Eta, audit.Param{Name: "eta", Usage: "step size η ≤ 1/smoothness (not given: 1/smoothness, the paper's choice)", Default: "0", Kind: audit.Number, Range: "(0, inf)"}),
		audit.GivenSetting(&s.Sigma, audit.FloatSetting, audit.Param{Name: "sigma", Usage: "noise σ (required unless --target-epsilon searches it)", Default: "0", Kind: audit.Number, Range: "(0, inf)"}),
		audit.GivenSetting(&s.Smoothness, audit.FloatSetting, audit.Param{Name: "smoothness", Usage: "smoothness L of the loss (required; the paper's L)", Default: "0", Kind: audit.Number, Range: "(0, inf)"}),
		audit.GivenSetting(&s.Lipschitz, audit.FloatSetting, audit.Param{Name: "lipschitz", Usage: "Lipschitz constant M of the per-example data gradient (required; the paper's M)", Default: "0", Kind: audit.Number, Range: "(0, inf)"}),
		audit.GivenSetting(&s.StrongConvexity, audit.FloatSetting, audit.Param{Name: "strong-convexity", Usage: "strong convexity m (required except for convex, where it is 0)", Default: "0", Kind: audit.Number, Range: "[0, inf)"}),
		audit.FloatSetting(&s.Radius, audit.Param{Name: "radius", Usage: "projection radius R; caps every W∞ distance at 2R (+Inf: no cap, the official code)", Default: "+Inf", Kind: audit.Number, Range: "(0, inf]"}),
		audit.GivenSetting(&s.Epochs, audit.IntSetting, audit.Param{Name: "epochs", Usage: "learning epochs T (finite and convex: required)", Default: "0", Unit: "epochs", Kind: audit.Integer, Range: "[1, 1e9]"}),
		audit.GivenSetting(&s.InitRadius, audit.FloatSetting, audit.Param{Name: "init-radius", Usage: "finite: the R of Thm 3.2's 2R·c^{Tn/b} terms (default: --radius; 0 as in the official runs)", Default: "0", Kind: audit.Number, Range: "[0, inf)"}),
		audit.IntSetting(&s.UnlearnEpochs, audit.Param{Name: "unlearn-epochs", Usage: "unlearning epochs K per request (with --target-epsilon and no --sigma: the K̂ the σ search targets)", Default: "1", Unit: "epochs", Kind: audit.Integer, Range: "[1, 1e6]"}),
		audit.IntSetting(&s.Removed, audit.Param{Name: "removed", Usage: "batch: records S removed in one request", Default: "1", Unit: "records", Kind: audit.Integer, Range: "[1, 1e12]"}),
		audit.IntSetting(&s.Requests, audit.Param{Name: "requests", Usage: "sequential: number of single-record requests", Default: "1", Kind: audit.Integer, Range: "[1, 1e5]"}),
		audit.GivenSetting(&s.Alpha, audit.FloatSetting, audit.Param{Name: "alpha", Usage: "also report the Rényi bound ε(α) at this order", Default: "0", Kind: audit.Number, Range: "(1, inf)"}),
		audit.GivenSetting(&s.Delta, audit.FloatSetting, audit.Param{Name: "delta", Usage: "δ of the (ϵ, δ) conversion (not given: 1/n, the paper's)", Default: "0", Kind: audit.Number, Range: "(0, 1)"}),
		audit.GivenSetting(&s.Target, audit.FloatSetting, audit.Param{Name: "target-epsilon", Usage: "search: with --sigma, the least K meeting ϵ̂; without, the least σ meeting ϵ̂ within --unlearn-epochs (Algorithms 4–5, corrected)", Default: "0", Kind: audit.Number, Range: "(0, inf)"}),
		audit.ChoiceSetting(&s.PABI, audit.Param{Name: "pabi", Usage: "PABI factor: paper (c^{2N}) or exact-shift ((1−c²)c^{2N}/(1−c^{2N}); spec FLAG)", Default: "paper", Kind: audit.Choice, Choices: []string{"paper", "exact-shift"}}, []sglu.PABIMode{sglu.PaperPABI, sglu.ExactShiftPABI}),
		audit.ChoiceSetting(&s.Variance, audit.Param{Name: "variance", Usage: "noise-variance convention: paper (2ησ²) or true (4ησ², the spec's 2× observation)", Default: "paper", Kind: audit.Choice, Choices: []string{"paper", "true"}}, []sglu.Variance{sglu.PaperVariance, sglu.TrueVariance}),
		audit.StringSetting(&s.AlphaRange, audit.Param{Name: "alpha-range", Usage: "α range of the conversion, min:max or unbounded (default 2:1e5; finite 2:1e4; the official code's)", Default: ""}),
		audit.ChoiceSetting(&s.FT, audit.Param{Name: "ft", Usage: "finite: F_T reading, proof (1/(1−c^{n/b})) or printed ((1−c^{Tn/b})/(1−c^{n/b}); spec FLAG)", Default: "proof", Kind: audit.Choice, Choices: []string{"proof", "printed"}}, []FTReading{ProofFT, PrintedFT}),
		audit.BoolSetting(&s.Mixed, audit.Param{Name: "mixed", Usage: "sequential: paper PABI factor for the first request, exact-shift after (the authors' code)", Default: "false", Bool: true}),
	}
}

// certificate computes the rows of one variant's certificate; every error is bad input.
func certificate(_ context.Context, variant string, args audit.Args) ([]verdict.Row, error) {
	var s BoundSettings
	if err := audit.ReadSettings(args, boundSettings(&s)); err != nil {
		return nil, err
	}
	f := struct {
		variant                             string
		n, batch, epochs, unlearnEpochs, S  int
		requests                            int
		eta, sigma, smooth, lip, sc, radius float64
		initRadius, alpha, delta, target    float64
		alphaRange                          string
		mixed                               bool
	}{variant: variant, n: s.N.Value, batch: s.Batch, epochs: s.Epochs.Value, unlearnEpochs: s.UnlearnEpochs,
		S: s.Removed, requests: s.Requests, eta: s.Eta, sigma: s.Sigma.Value, smooth: s.Smoothness.Value,
		lip: s.Lipschitz.Value, sc: s.StrongConvexity.Value, radius: s.Radius, initRadius: s.InitRadius.Value,
		alpha: s.Alpha.Value, delta: s.Delta.Value, target: s.Target.Value,
		alphaRange: s.AlphaRange, mixed: s.Mixed}
	var problems []error
	need := func(settings ...audit.Requirable) {
		problems = append(problems, audit.Require("--variant "+f.variant, settings...)...)
	}
	need(s.N, s.Smoothness, s.Lipschitz)
	search := s.Target.IsSet
	searchSigma := search && !s.Sigma.IsSet
	if !search {
		need(s.Sigma)
	}
	switch f.variant {
	case "convergent", "random-batches", "batch", "sequential":
		need(s.StrongConvexity)
	case "finite":
		need(s.StrongConvexity, s.Epochs)
	case "convex":
		need(s.Epochs)
		if f.sc != 0 {
			problems = append(problems, fmt.Errorf("--strong-convexity %v: convex (Cor 3.10) is the m = 0 case", f.sc))
		}
	default:
		problems = append(problems, fmt.Errorf("--variant %s: want convergent, finite, random-batches, convex, batch or sequential", clip.Quote(f.variant)))
	}
	if searchSigma && (f.variant == "sequential" || f.variant == "random-batches" || f.variant == "convex") {
		problems = append(problems, fmt.Errorf("--target-epsilon without --sigma: the σ search covers convergent, finite and batch; give --sigma to search K"))
	}
	if search && !(f.target > 0) {
		problems = append(problems, fmt.Errorf("--target-epsilon %v: want > 0", f.target))
	}
	if f.variant == "sequential" && !search {
		problems = append(problems, errors.New("--target-epsilon is required for --variant sequential: each request runs the least K meeting it"))
	}
	mode, v, ft := s.PABI, s.Variance, s.FT
	r := sglu.DefaultAlphas
	if f.variant == "finite" {
		r = sglu.NonConvergentAlphas
	}
	if f.alphaRange != "" {
		var err error
		if r, err = parseAlphaRange(f.alphaRange); err != nil {
			problems = append(problems, err)
		}
	}
	if f.unlearnEpochs < 1 {
		problems = append(problems, fmt.Errorf("--unlearn-epochs %d: want ≥ 1", f.unlearnEpochs))
	}
	if s.Sigma.IsSet && !(f.sigma > 0) {
		problems = append(problems, fmt.Errorf("--sigma %v: want > 0", f.sigma))
	}
	if s.Alpha.IsSet && !(f.alpha > 1) {
		problems = append(problems, fmt.Errorf("--alpha %v: want > 1", f.alpha))
	}
	if s.Delta.IsSet && !(f.delta > 0 && f.delta < 1) {
		problems = append(problems, fmt.Errorf("--delta %v: want 0 < δ < 1", f.delta))
	}
	if f.requests < 1 || f.requests > 1_000_000 {
		problems = append(problems, fmt.Errorf("--requests %d: want 1 … 10⁶", f.requests))
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	b := f.batch
	if b == 0 {
		b = f.n
	}
	eta := f.eta
	if eta == 0 {
		eta = 1 / f.smooth
	}
	p := sglu.Problem{Smoothness: f.smooth, Lipschitz: f.lip, StrongConvexity: f.sc, StepSize: eta, N: f.n, Batch: b, Radius: f.radius}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	delta := f.delta
	if delta == 0 {
		delta = 1 / float64(f.n)
	}
	if f.variant == "batch" && (f.S < 1 || f.S > f.n) {
		return nil, fmt.Errorf("--removed %d: want 1 ≤ S ≤ n = %d", f.S, f.n)
	}
	initRadius := f.initRadius
	if !s.InitRadius.IsSet {
		initRadius = f.radius
	}
	if f.variant == "finite" && math.IsInf(initRadius, 0) {
		return nil, errors.New("--init-radius: Thm 3.2 needs a finite initial radius (give --radius or --init-radius; 0 reproduces the official runs)")
	}

	var rows []verdict.Row
	add := func(key string, val any, note string) {
		rows = append(rows, verdict.Row{Key: key, Value: val, Note: note})
	}
	K := f.unlearnEpochs
	// linear: a bound ε(α) = A(σ, K)·α with a Z and a closed form (Cor 3.8, 3.12).
	type curve struct {
		renyi func(alpha, sigma float64, K int) float64
		dp    func(sigma float64, K int) (eps, alpha float64)
	}
	// the closures read vv, so that the other variance convention can be shown beside v
	vv := v
	var c curve
	var z float64
	switch f.variant {
	case "convergent", "batch":
		z = p.ZB()
		name, zNote := "convergent", "Z_B = min(2ηM/(b(1 − c^{n/b})), 2R), Cor 3.8"
		add("variant", name, sgluSource+"Cor 3.8")
		if f.variant == "batch" {
			z = ZBatchWorstCase(p, f.S)
			rows[0] = verdict.Row{Key: "variant", Value: "batch", Note: sgluSource + "Cor 3.12"}
			zNote = fmt.Sprintf("Z_S at the worst placement of S = %d records, Cor 3.12", f.S)
			add("removed", f.S, "S")
		}
		add("z", z, zNote)
		c.renyi = func(a, s float64, K int) float64 { return p.Epsilon(a, s, z, K, mode, vv) }
		c.dp = func(s float64, K int) (float64, float64) {
			return sglu.BestEpsilonLinear(p.Epsilon(1, s, z, K, mode, vv), delta, r)
		}
	case "random-batches":
		add("variant", "random-batches", sgluSource+"Cor 3.9 (convergent reading, spec FLAG)")
		add("z_worst", p.ZB(), "Z at the worst slot j0 = n/b − 1 (Cor 3.8's Z_B); the bound averages over the uniform j0")
		c.renyi = func(a, s float64, K int) float64 { return UnlearnEpsilonRandomBatches(a, s, p, K, vv) }
		c.dp = func(s float64, K int) (float64, float64) {
			return BestDPEpsilon(func(a float64) float64 { return c.renyi(a, s, K) }, delta, r)
		}
	case "convex":
		z = ZConvex(p, f.epochs)
		add("variant", "convex", sgluSource+"Cor 3.10 (m = 0; ε decays only as 1/K and grows with T)")
		add("z", z, "min(2ηM·T/b, 2R)")
		c.renyi = func(a, s float64, K int) float64 { return UnlearnEpsilonConvex(a, s, p, f.epochs, K, vv) }
		c.dp = func(s float64, K int) (float64, float64) {
			return sglu.BestEpsilonLinear(UnlearnEpsilonConvex(1, s, p, f.epochs, K, vv), delta, r)
		}
	case "finite":
		nc := NonConvergent{T: f.epochs, InitRadius: initRadius, FT: ft}
		add("variant", "finite", sgluSource+"Thm 3.2 (weak triangle inequality, F_T "+ft.String()+")")
		add("init_radius", initRadius, "R of the 2R·c^{Tn/b} terms")
		c.renyi = func(a, s float64, K int) float64 { return UnlearnEpsilonNonConvergent(a, s, p, K, nc, vv) }
		c.dp = func(s float64, K int) (float64, float64) {
			return sglu.BestEpsilonWeakTriangle(NonConvergentCoefficient(s, p, K, nc, vv), delta, r)
		}
	case "sequential":
		add("variant", "sequential", sgluSource+"Thm 3.11 (W∞ recursion; the printed appendix loop is unsound, spec FLAG)")
	}
	add("c", p.C(), "contraction 1 − ηm")
	add("step_size", p.StepSize, "η")
	add("batch", p.Batch, "b")
	add("steps_per_epoch", p.StepsPerEpoch(), "n/b")
	add("delta", delta, "δ")
	add("alpha_range", table.G10(r.Min)+":"+table.G10(r.Max), "orders the conversion may use")

	if f.variant == "sequential" {
		acct := sglu.Accountant{Problem: p, Target: f.target, Delta: delta, Sigma: f.sigma, Mode: mode, Mixed: f.mixed, Variance: v, Alphas: r}
		Ks := make([]int, 0, f.requests)
		total, worst := 0, 0.0
		for range f.requests {
			k, eps, err := acct.Next()
			if err != nil {
				return nil, err
			}
			Ks = append(Ks, k)
			total += k
			worst = math.Max(worst, eps)
		}
		add("sigma", f.sigma, "σ")
		add("target_epsilon", f.target, "ϵ̂ each request must meet")
		add("requests", f.requests, "S single-record requests")
		add("unlearn_epochs", epochList(Ks), "K_s of each request, least meeting ϵ̂")
		add("total_unlearn_epochs", total, "Σ K_s")
		add("epsilon_max", worst, "largest certified ϵ over the requests")
		add("z_next", acct.Z(), "W∞ distance the next request would start from")
		add("z_printed_loop", p.ZB(), "the printed loop restarts every request from Z_B (unsound)")
		return rows, nil
	}

	sigma := f.sigma
	if searchSigma {
		var leastK func(s float64) (int, error)
		if f.variant == "finite" {
			nc := NonConvergent{T: f.epochs, InitRadius: initRadius, FT: ft}
			leastK = func(s float64) (int, error) {
				return LeastKNonConvergent(f.target, delta, s, p, nc, v, r)
			}
		} else {
			leastK = func(s float64) (int, error) { return p.LeastK(f.target, delta, s, z, mode, v, r) }
		}
		s, err := SearchSigma(K, leastK, SigmaSearch{})
		if err != nil {
			return nil, err
		}
		sigma = s
		add("sigma", sigma, fmt.Sprintf("least σ (to 1e-8) whose least K is ≤ K̂ = %d for ϵ̂ = %v (Alg. 4 corrected)", K, f.target))
		if f.variant != "finite" && r == sglu.Unbounded {
			add("sigma_closed_form", SigmaClosedForm(p, K, f.target, delta, z, mode, v), "closed form with α unclamped")
		}
	} else {
		add("sigma", sigma, "σ")
	}
	if search && !searchSigma {
		k, err := sglu.LeastEpochs(func(k int) bool { e, _ := c.dp(sigma, k); return e <= f.target },
			fmt.Sprintf("ϵ̂ = %v at δ = %v with σ = %v", f.target, delta, sigma))
		if err != nil {
			return nil, err
		}
		K = k
		add("unlearn_epochs", K, fmt.Sprintf("least K meeting ϵ̂ = %v", f.target))
		if f.variant == "convergent" || f.variant == "batch" {
			if mode == sglu.PaperPABI && r == sglu.Unbounded {
				add("unlearn_epochs_closed_form", p.LeastKClosedForm(f.target, delta, sigma, z, v), "closed form with α unclamped")
			}
		}
	} else {
		add("unlearn_epochs", K, "K")
	}
	if s.Alpha.IsSet {
		add("renyi_epsilon", c.renyi(f.alpha, sigma, K), fmt.Sprintf("ε(α = %v): unlearned vs retrained Rényi bound", f.alpha))
	}
	eps, alpha := c.dp(sigma, K)
	add("epsilon", eps, "certified ϵ at δ, ε(α*) + log(1/δ)/(α* − 1)")
	add("alpha_star", alpha, "α* the conversion used")
	if f.variant == "convergent" || f.variant == "batch" {
		other := sglu.ExactShiftPABI
		if mode == sglu.ExactShiftPABI {
			other = sglu.PaperPABI
		}
		e2, _ := sglu.BestEpsilonLinear(p.Epsilon(1, sigma, z, K, other, v), delta, r)
		add("epsilon_other_pabi", e2, "ϵ with the "+other.String()+" PABI factor")
	}
	if c.dp != nil {
		other := sglu.TrueVariance
		if v == sglu.TrueVariance {
			other = sglu.PaperVariance
		}
		vv = other
		e3, _ := c.dp(sigma, K)
		vv = v
		add("epsilon_other_variance", e3, "ϵ with the "+other.String()+" variance convention (--variance)")
	}
	if f.variant == "finite" && ft == ProofFT {
		nc := NonConvergent{T: f.epochs, InitRadius: initRadius, FT: PrintedFT}
		e2, _ := sglu.BestEpsilonWeakTriangle(NonConvergentCoefficient(sigma, p, K, nc, v), delta, r)
		add("epsilon_printed_ft", e2, "ϵ with the printed F_T, which the proof does not give (spec FLAG)")
	}
	return rows, nil
}

// parseAlphaRange reads "min:max" (max may be inf) or "unbounded".
func parseAlphaRange(s string) (sglu.AlphaRange, error) {
	if s == "unbounded" {
		return sglu.Unbounded, nil
	}
	lo, hi, ok := strings.Cut(s, ":")
	if ok {
		a, err1 := strconv.ParseFloat(lo, 64)
		b, err2 := strconv.ParseFloat(hi, 64)
		if err1 == nil && err2 == nil && a > 1 && b >= a {
			return sglu.AlphaRange{Min: a, Max: b}, nil
		}
	}
	return sglu.AlphaRange{}, fmt.Errorf("--alpha-range %s: want min:max with 1 < min ≤ max (max may be inf), or unbounded", clip.Quote(s))
}

// epochList prints run-length encoded in tables ("2 1×99") and as an array in JSON.
type epochList []int

func (l epochList) String() string {
	var parts []string
	for i := 0; i < len(l); {
		j := i
		for j < len(l) && l[j] == l[i] {
			j++
		}
		if j-i == 1 {
			parts = append(parts, strconv.Itoa(l[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d×%d", l[i], j-i))
		}
		i = j
	}
	return strings.Join(parts, " ")
}
