package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit/sgluaudit"
	"github.com/unlearnaudit/unlearnaudit/reference/sglu"
)

const sgluSource = "Chien et al. 2024 (SGLU), "

// sgluBoundsFlags are the flags of "audit bounds sglu".
type sgluBoundsFlags struct {
	variant                                string
	n, batch, epochs, unlearnEpochs, S     int
	requests                               int
	eta, sigma, smooth, lip, sc, radius    float64
	initRadius, alpha, delta, target       float64
	pabi, variance, alphaRange, ft, search string
	mixed, asJSON                          bool
}

func runBoundsSGLU(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bounds sglu", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f sgluBoundsFlags
	fs.StringVar(&f.variant, "variant", "convergent", "convergent (Cor 3.8), finite (Thm 3.2), random-batches (Cor 3.9), convex (Cor 3.10), batch (Cor 3.12) or sequential (Thm 3.11)")
	fs.IntVar(&f.n, "n", 0, "dataset size n (required)")
	fs.IntVar(&f.batch, "batch", 0, "mini-batch size b, dividing n (0: n, full batch)")
	fs.Float64Var(&f.eta, "eta", 0, "step size η ≤ 1/smoothness (0: 1/smoothness, the paper's choice)")
	fs.Float64Var(&f.sigma, "sigma", 0, "noise σ (required unless --target-epsilon searches it)")
	fs.Float64Var(&f.smooth, "smoothness", 0, "smoothness L of the loss (required; the paper's L)")
	fs.Float64Var(&f.lip, "lipschitz", 0, "Lipschitz constant M of the per-example data gradient (required; the paper's M)")
	fs.Float64Var(&f.sc, "strong-convexity", 0, "strong convexity m (required except for convex, where it is 0)")
	fs.Float64Var(&f.radius, "radius", math.Inf(1), "projection radius R; caps every W∞ distance at 2R (default +Inf: no cap, the official code)")
	fs.IntVar(&f.epochs, "epochs", 0, "learning epochs T (finite and convex: required)")
	fs.Float64Var(&f.initRadius, "init-radius", 0, "finite: the R of Thm 3.2's 2R·c^{Tn/b} terms (default: --radius; 0 as in the official runs)")
	fs.IntVar(&f.unlearnEpochs, "unlearn-epochs", 1, "unlearning epochs K per request (with --target-epsilon and no --sigma: the K̂ the σ search targets)")
	fs.IntVar(&f.S, "removed", 1, "batch: records S removed in one request")
	fs.IntVar(&f.requests, "requests", 1, "sequential: number of single-record requests")
	fs.Float64Var(&f.alpha, "alpha", 0, "also report the Rényi bound ε(α) at this order")
	fs.Float64Var(&f.delta, "delta", 0, "δ of the (ϵ, δ) conversion (0: 1/n, the paper's)")
	fs.Float64Var(&f.target, "target-epsilon", 0, "search: with --sigma, the least K meeting ϵ̂; without, the least σ meeting ϵ̂ within --unlearn-epochs (Algorithms 4–5, corrected)")
	fs.StringVar(&f.pabi, "pabi", "paper", "PABI factor: paper (c^{2N}) or exact-shift ((1−c²)c^{2N}/(1−c^{2N}); spec FLAG)")
	fs.StringVar(&f.variance, "variance", "paper", "noise-variance convention: paper (2ησ²) or true (4ησ², the spec's 2× observation)")
	fs.StringVar(&f.alphaRange, "alpha-range", "", "α range of the conversion, min:max or unbounded (default 2:1e5; finite 2:1e4; the official code's)")
	fs.StringVar(&f.ft, "ft", "proof", "finite: F_T reading, proof (1/(1−c^{n/b})) or printed ((1−c^{Tn/b})/(1−c^{n/b}); spec FLAG)")
	fs.BoolVar(&f.mixed, "mixed", false, "sequential: paper PABI factor for the first request, exact-shift after (the authors' code)")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: audit bounds sglu [flags]\n\nComputes Stochastic Gradient Langevin Unlearning's certificates (Chien, Wang, Chen, Li 2024) from declared\nconstants: the ε of a deployment, or with --target-epsilon the σ or epochs that meet a target. Prints every\nstep of the derivation; --json writes the same as one object.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	set := setFlags(fs)
	rows, err := sgluBounds(f, set)
	if err != nil {
		return usageError{fmt.Errorf("bounds sglu: %w", err)}
	}
	return printBounds(stdout, rows, f.asJSON)
}

// sgluBounds computes the rows of "audit bounds sglu"; every error is bad input.
func sgluBounds(f sgluBoundsFlags, set map[string]bool) ([]boundRow, error) {
	var problems []error
	need := func(names ...string) {
		for _, name := range names {
			if !set[name] {
				problems = append(problems, fmt.Errorf("--%s is required for --variant %s", name, f.variant))
			}
		}
	}
	need("n", "smoothness", "lipschitz")
	search := set["target-epsilon"]
	searchSigma := search && !set["sigma"]
	if !search {
		need("sigma")
	}
	switch f.variant {
	case "convergent", "random-batches", "batch", "sequential":
		need("strong-convexity")
	case "finite":
		need("strong-convexity", "epochs")
	case "convex":
		need("epochs")
		if f.sc != 0 {
			problems = append(problems, fmt.Errorf("--strong-convexity %v: convex (Cor 3.10) is the m = 0 case", f.sc))
		}
	default:
		problems = append(problems, fmt.Errorf("--variant %q: want convergent, finite, random-batches, convex, batch or sequential", f.variant))
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
	mode, err := parsePABI(f.pabi)
	problems = appendErr(problems, err)
	v, err := parseVariance(f.variance)
	problems = appendErr(problems, err)
	ft := sgluaudit.ProofFT
	switch f.ft {
	case "proof":
	case "printed":
		ft = sgluaudit.PrintedFT
	default:
		problems = append(problems, fmt.Errorf("--ft %q: want proof or printed", f.ft))
	}
	r := sglu.DefaultAlphas
	if f.variant == "finite" {
		r = sglu.NonConvergentAlphas
	}
	if f.alphaRange != "" {
		r, err = parseAlphaRange(f.alphaRange)
		problems = appendErr(problems, err)
	}
	if f.unlearnEpochs < 1 {
		problems = append(problems, fmt.Errorf("--unlearn-epochs %d: want ≥ 1", f.unlearnEpochs))
	}
	if set["sigma"] && !(f.sigma > 0) {
		problems = append(problems, fmt.Errorf("--sigma %v: want > 0", f.sigma))
	}
	if set["alpha"] && !(f.alpha > 1) {
		problems = append(problems, fmt.Errorf("--alpha %v: want > 1", f.alpha))
	}
	if set["delta"] && !(f.delta > 0 && f.delta < 1) {
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
	if !set["init-radius"] {
		initRadius = f.radius
	}
	if f.variant == "finite" && math.IsInf(initRadius, 0) {
		return nil, errors.New("--init-radius: Thm 3.2 needs a finite initial radius (give --radius or --init-radius; 0 reproduces the official runs)")
	}

	var rows []boundRow
	add := func(key string, val any, note string) { rows = append(rows, boundRow{key, val, note}) }
	K := f.unlearnEpochs
	// linear: a bound ε(α) = A(σ, K)·α with a Z and a closed form (Cor 3.8, 3.12).
	type curve struct {
		renyi func(alpha, sigma float64, K int) float64
		dp    func(sigma float64, K int) (eps, alpha float64)
	}
	var c curve
	var z float64
	switch f.variant {
	case "convergent", "batch":
		z = p.ZB()
		name, zNote := "convergent", "Z_B = min(2ηM/(b(1 − c^{n/b})), 2R), Cor 3.8"
		add("variant", name, sgluSource+"Cor 3.8")
		if f.variant == "batch" {
			z = sgluaudit.ZBatchWorstCase(p, f.S)
			rows[0] = boundRow{"variant", "batch", sgluSource + "Cor 3.12"}
			zNote = fmt.Sprintf("Z_S at the worst placement of S = %d records, Cor 3.12", f.S)
			add("removed", f.S, "S")
		}
		add("z", z, zNote)
		c.renyi = func(a, s float64, K int) float64 { return p.Epsilon(a, s, z, K, mode, v) }
		c.dp = func(s float64, K int) (float64, float64) {
			return sglu.BestEpsilonLinear(p.Epsilon(1, s, z, K, mode, v), delta, r)
		}
	case "random-batches":
		add("variant", "random-batches", sgluSource+"Cor 3.9 (convergent reading, spec FLAG)")
		add("z_worst", p.ZB(), "Z at the worst slot j0 = n/b − 1 (Cor 3.8's Z_B); the bound averages over the uniform j0")
		c.renyi = func(a, s float64, K int) float64 { return sgluaudit.UnlearnEpsilonRandomBatches(a, s, p, K, v) }
		c.dp = func(s float64, K int) (float64, float64) {
			return sgluaudit.BestDPEpsilon(func(a float64) float64 { return c.renyi(a, s, K) }, delta, r)
		}
	case "convex":
		z = math.Min(2*p.StepSize*p.Lipschitz*float64(f.epochs)/float64(p.Batch), 2*p.Radius)
		add("variant", "convex", sgluSource+"Cor 3.10 (m = 0; ε decays only as 1/K and grows with T)")
		add("z", z, "min(2ηM·T/b, 2R)")
		c.renyi = func(a, s float64, K int) float64 { return sgluaudit.UnlearnEpsilonConvex(a, s, p, f.epochs, K, v) }
		c.dp = func(s float64, K int) (float64, float64) {
			return sglu.BestEpsilonLinear(sgluaudit.UnlearnEpsilonConvex(1, s, p, f.epochs, K, v), delta, r)
		}
	case "finite":
		nc := sgluaudit.NonConvergent{T: f.epochs, InitRadius: initRadius, FT: ft}
		add("variant", "finite", sgluSource+"Thm 3.2 (weak triangle inequality, F_T "+ft.String()+")")
		add("init_radius", initRadius, "R of the 2R·c^{Tn/b} terms")
		c.renyi = func(a, s float64, K int) float64 { return sgluaudit.UnlearnEpsilonNonConvergent(a, s, p, K, nc, v) }
		c.dp = func(s float64, K int) (float64, float64) {
			A1, A2 := sgluaudit.NonConvergentTerms(s, p, K, nc, v)
			return sglu.BestEpsilonWeakTriangle(2*(A1+A2), delta, r)
		}
	case "sequential":
		add("variant", "sequential", sgluSource+"Thm 3.11 (W∞ recursion; the printed appendix loop is unsound, spec FLAG)")
	}
	add("c", p.C(), "contraction 1 − ηm")
	add("step_size", p.StepSize, "η")
	add("batch", p.Batch, "b")
	add("steps_per_epoch", p.StepsPerEpoch(), "n/b")
	add("delta", delta, "δ")
	add("alpha_range", fmt.Sprintf("%s:%s", fmtG(r.Min), fmtG(r.Max)), "orders the conversion may use")

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
			nc := sgluaudit.NonConvergent{T: f.epochs, InitRadius: initRadius, FT: ft}
			leastK = func(s float64) (int, error) {
				return sgluaudit.LeastKNonConvergent(f.target, delta, s, p, nc, v, r)
			}
		} else {
			leastK = func(s float64) (int, error) { return p.LeastK(f.target, delta, s, z, mode, v, r) }
		}
		s, err := sgluaudit.SearchSigma(K, leastK, sgluaudit.SigmaSearch{})
		if err != nil {
			return nil, err
		}
		sigma = s
		add("sigma", sigma, fmt.Sprintf("least σ (to 1e-8) whose least K is ≤ K̂ = %d for ϵ̂ = %v (Alg. 4 corrected)", K, f.target))
		if f.variant != "finite" && r == sglu.Unbounded {
			add("sigma_closed_form", sgluaudit.SigmaClosedForm(p, K, f.target, delta, z, mode, v), "closed form with α unclamped")
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
	if set["alpha"] {
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
	if f.variant == "finite" && ft == sgluaudit.ProofFT {
		nc := sgluaudit.NonConvergent{T: f.epochs, InitRadius: initRadius, FT: sgluaudit.PrintedFT}
		A1, A2 := sgluaudit.NonConvergentTerms(sigma, p, K, nc, v)
		e2, _ := sglu.BestEpsilonWeakTriangle(2*(A1+A2), delta, r)
		add("epsilon_printed_ft", e2, "ϵ with the printed F_T, which the proof does not give (spec FLAG)")
	}
	return rows, nil
}

func appendErr(errs []error, err error) []error {
	if err != nil {
		return append(errs, err)
	}
	return errs
}

func parsePABI(s string) (sglu.PABIMode, error) {
	switch s {
	case "paper":
		return sglu.PaperPABI, nil
	case "exact-shift":
		return sglu.ExactShiftPABI, nil
	}
	return 0, fmt.Errorf("--pabi %q: want paper or exact-shift", s)
}

func parseVariance(s string) (sglu.Variance, error) {
	switch s {
	case "paper":
		return sglu.PaperVariance, nil
	case "true":
		return sglu.TrueVariance, nil
	}
	return 0, fmt.Errorf("--variance %q: want paper or true", s)
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
	return sglu.AlphaRange{}, fmt.Errorf("--alpha-range %q: want min:max with 1 < min ≤ max (max may be inf), or unbounded", s)
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
