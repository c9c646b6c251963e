package props_test

import (
	"errors"
	"math"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/sgluaudit"
	"github.com/unlearnaudit/unlearnaudit/props"
	"github.com/unlearnaudit/unlearnaudit/reference/sglu"
	"pgregory.net/rapid"
)

// Spec sglu §4.2 tolerances: identities to 1e-12 relative; monotonicity non-strict with
// 1e-12 slack, strict only for values ≥ 1e-250.
func leq(a, b float64) bool { return a <= b*(1+1e-12)+1e-300 }

var (
	modes     = []sglu.PABIMode{sglu.PaperPABI, sglu.ExactShiftPABI}
	variances = []sglu.Variance{sglu.PaperVariance, sglu.TrueVariance}
)

func drawSigma(t *rapid.T) float64 { return logScaled(t, 1e-3, 10, "sigma") }
func drawAlpha(t *rapid.T) float64 { return 1 + math.Pow(10, scaled(t, -3, 3, "w")) }

// ε is non-increasing in K (by exactly c^{2n/b} per epoch in the paper form) and +Inf at
// K = 0; ε·σ² is constant; ε is linear in α for Corollaries 3.8, 3.12 and Theorem 3.11
// and non-decreasing in α for Corollary 3.9, and for Theorem 3.2 once α ≥ 1 + 1/√2 (its
// factor (α − ½)α/(α − 1) has derivative (α² − 2α + ½)/(α − 1)², negative below that).
func TestSGLUBoundsInKSigmaAlpha(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := props.SGLUProblem(t)
		sigma, alpha := drawSigma(t), drawAlpha(t)
		K := rapid.IntRange(1, 50).Draw(t, "K")
		mode, v := rapid.SampledFrom(modes).Draw(t, "mode"), rapid.SampledFrom(variances).Draw(t, "variance")
		e := func(K int) float64 { return sgluaudit.UnlearnEpsilon(alpha, sigma, p, K, mode, v) }
		if !math.IsInf(e(0), 1) {
			t.Fatalf("K = 0 gives %v, want +Inf (no noisy step, no guarantee)", e(0))
		}
		if !leq(e(K+1), e(K)) {
			t.Fatalf("ε(K+1) = %v > ε(K) = %v", e(K+1), e(K))
		}
		if mode == sglu.PaperPABI && e(K) > 1e-250 && e(K+1) > 1e-250 {
			if r, want := e(K+1)/e(K), sglu.PowC(p.StepSize, p.StrongConvexity, 2*float64(p.StepsPerEpoch())); math.Abs(r-want) > 1e-9*want {
				t.Fatalf("ε(K+1)/ε(K) = %v, want c^{2n/b} = %v", r, want)
			}
		}
		S := rapid.IntRange(1, p.N).Draw(t, "S")
		T := rapid.IntRange(1, 500).Draw(t, "T")
		nc := sgluaudit.NonConvergent{T: T, InitRadius: math.Min(p.Radius, 10), FT: sgluaudit.ProofFT}
		bounds := map[string]func(alpha, sigma float64) float64{
			"Cor 3.8":  func(a, s float64) float64 { return sgluaudit.UnlearnEpsilon(a, s, p, K, mode, v) },
			"Cor 3.12": func(a, s float64) float64 { return sgluaudit.UnlearnEpsilonBatch(a, s, p, K, S, mode, v) },
			"Thm 3.11": func(a, s float64) float64 {
				return sgluaudit.SequentialEpsilons(a, s, p, []int{K, K + 1, 1}, mode, false, v)[2]
			},
			"Cor 3.9": func(a, s float64) float64 { return sgluaudit.UnlearnEpsilonRandomBatches(a, s, p, K, v) },
			"Thm 3.2": func(a, s float64) float64 { return sgluaudit.UnlearnEpsilonNonConvergent(a, s, p, K, nc, v) },
		}
		for name, f := range bounds {
			x := f(alpha, sigma)
			if x < 1e-290 || math.IsInf(x, 0) { // subnormals carry too few digits for ratios
				continue
			}
			if name != "Cor 3.9" { // exactly ∝ 1/σ² (Cor 3.9 is a log-mean-exp: not)
				if y := f(alpha, 2*sigma); math.Abs(y*4-x) > 1e-12*x {
					t.Fatalf("%s: ε(2σ)·4 = %v, ε(σ) = %v", name, 4*y, x)
				}
			}
			switch name {
			case "Cor 3.8", "Cor 3.12", "Thm 3.11":
				if y := f(2*alpha, sigma); math.Abs(y-2*x) > 1e-12*x {
					t.Fatalf("%s: not linear in α: ε(2α) = %v, 2ε(α) = %v", name, y, 2*x)
				}
			case "Thm 3.2":
				if alpha < 1+1/math.Sqrt2 {
					continue
				}
				fallthrough
			default:
				if y := f(alpha*1.5, sigma); !leq(x, y) {
					t.Fatalf("%s: ε decreased with α: %v → %v", name, x, y)
				}
			}
		}
	})
}

// ε(b₁) ≤ ε(b₂) for b₁ < b₂ both dividing n, in both PABI modes (the spec's proof sketch:
// d/du log ε = 2[1/u − t/(e^{tu}−1)] − 2tK < 0 with u = n/b, t = −log c; the 2R cap only
// helps). Non-decreasing in M (∝ M² below the cap) and in R.
func TestSGLUBoundsInBatchMR(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := props.SGLUProblem(t)
		sigma, alpha := drawSigma(t), drawAlpha(t)
		K := rapid.IntRange(1, 50).Draw(t, "K")
		mode := rapid.SampledFrom(modes).Draw(t, "mode")
		e := func(p sglu.Problem) float64 {
			return sgluaudit.UnlearnEpsilon(alpha, sigma, p, K, mode, sglu.PaperVariance)
		}
		for b2 := p.Batch + 1; b2 <= p.N; b2++ {
			if p.N%b2 == 0 {
				q := p
				q.Batch = b2
				if !leq(e(p), e(q)) {
					t.Fatalf("b = %d gives %v > b = %d gives %v", p.Batch, e(p), b2, e(q))
				}
				break
			}
		}
		q := p
		q.Lipschitz *= 1.5
		if !leq(e(p), e(q)) {
			t.Fatalf("ε decreased with M: %v → %v", e(p), e(q))
		}
		if 1.5*p.ZB() < 2*p.Radius && e(p) > 1e-250 {
			if r := e(q) / e(p); math.Abs(r-2.25) > 1e-9 {
				t.Fatalf("below the cap ε ∝ M²: ratio %v, want 2.25", r)
			}
		}
		q = p
		q.Radius *= 2
		if !leq(e(p), e(q)) {
			t.Fatalf("ε decreased with R: %v → %v", e(p), e(q))
		}
	})
}

// PABI forms: exact-shift ≤ paper for N ≥ 1, equal at N = 1, and both → 1/N as c → 1.
// Corollary 3.9 ≤ Corollary 3.8, equal when n/b = 1. Theorem 3.2 (proof reading) ≥
// (2α−1)/(α−1)·Corollary 3.8, with equality approached as T grows.
func TestSGLUBoundRelations(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := props.SGLUProblem(t)
		sigma, alpha := drawSigma(t), drawAlpha(t)
		K := rapid.IntRange(1, 50).Draw(t, "K")
		N := float64(rapid.IntRange(1, 1000).Draw(t, "N"))
		eta, m := p.StepSize, p.StrongConvexity
		shift, paper := sglu.PABIFactor(eta, m, N, sglu.ExactShiftPABI), sglu.PABIFactor(eta, m, N, sglu.PaperPABI)
		if !leq(shift, paper) {
			t.Fatalf("exact-shift %v > paper %v at N = %v", shift, paper, N)
		}
		if N == 1 && math.Abs(shift-paper) > 1e-12*paper {
			t.Fatalf("N = 1: exact-shift %v ≠ paper %v", shift, paper)
		}
		// c → 1: ηm = 1e-9; N·factor = 1 − (N+1)ηm + O((Nηm)²) (N = 1 gives c²), so allow twice that.
		if f := sglu.PABIFactor(1, 1e-9, N, sglu.ExactShiftPABI); math.Abs(f*N-1) > 2*(N+1)*1e-9 {
			t.Fatalf("c = 1 − 1e-9: exact-shift factor × N = %v, want → 1", f*N)
		}
		c38 := sgluaudit.UnlearnEpsilon(alpha, sigma, p, K, sglu.PaperPABI, sglu.PaperVariance)
		c39 := sgluaudit.UnlearnEpsilonRandomBatches(alpha, sigma, p, K, sglu.PaperVariance)
		if !leq(c39, c38) {
			t.Fatalf("Cor 3.9 %v > Cor 3.8 %v", c39, c38)
		}
		if p.StepsPerEpoch() == 1 && math.Abs(c39-c38) > 1e-9*c38 {
			t.Fatalf("n/b = 1: Cor 3.9 %v ≠ Cor 3.8 %v", c39, c38)
		}
		floor := (2*alpha - 1) / (alpha - 1) * c38
		for _, T := range []int{1, 10, 100000} {
			nc := sgluaudit.NonConvergent{T: T, InitRadius: math.Min(p.Radius, 10), FT: sgluaudit.ProofFT}
			thm := sgluaudit.UnlearnEpsilonNonConvergent(alpha, sigma, p, K, nc, sglu.PaperVariance)
			if !leq(floor, thm) {
				t.Fatalf("T = %d: Thm 3.2 %v < (2α−1)/(α−1)·Cor 3.8 = %v", T, thm, floor)
			}
			if T == 100000 && p.StrongConvexity*p.StepSize*float64(T) > 50 && floor > 1e-290 && math.Abs(thm-floor) > 1e-9*floor {
				t.Fatalf("T → ∞: Thm 3.2 %v does not approach %v", thm, floor)
			}
		}
	})
}

// Theorem 3.11: Z^(s) ≥ Z_B, non-decreasing in s for equal K, below min(Z_B/(1 −
// c^{K_min n/b}), 2R). Corollary 3.12: ZBatch ≤ worst case ≤ min(S·Z_B, 2R), and one record
// in the last batch is Z_B.
func TestSGLUSequentialAndBatchZ(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := props.SGLUProblem(t)
		S := rapid.IntRange(1, 30).Draw(t, "S")
		K := rapid.IntRange(1, 20).Draw(t, "K")
		equal := make([]int, S)
		mixed := make([]int, S)
		kmin := K
		for s := range S {
			equal[s] = K
			mixed[s] = rapid.IntRange(K, 40).Draw(t, "Ks")
		}
		zb := p.ZB()
		cap := math.Min(zb/-math.Expm1(float64(kmin*p.StepsPerEpoch())*math.Log1p(-p.StepSize*p.StrongConvexity)), 2*p.Radius)
		for _, Ks := range [][]int{equal, mixed} {
			zs := p.SequentialZ(Ks)
			for s, z := range zs {
				if !leq(zb, z) || !leq(z, cap) {
					t.Fatalf("Z^(%d) = %v outside [Z_B = %v, %v]", s+1, z, zb, cap)
				}
			}
		}
		zs := p.SequentialZ(equal)
		for s := 1; s < len(zs); s++ {
			if !leq(zs[s-1], zs[s]) {
				t.Fatalf("equal K: Z^(%d) = %v > Z^(%d) = %v", s, zs[s-1], s+1, zs[s])
			}
		}
		Sb := rapid.IntRange(1, p.N).Draw(t, "batch S")
		if w := sgluaudit.ZBatchWorstCase(p, Sb); !leq(w, math.Min(float64(Sb)*zb, 2*p.Radius)) {
			t.Fatalf("worst-case Z_S = %v > min(S·Z_B, 2R)", w)
		}
		one, _ := sgluaudit.ZBatch(p, []sgluaudit.BatchCount{{J: p.StepsPerEpoch() - 1, Count: 1}})
		if math.Abs(one-zb) > 1e-12*zb {
			t.Fatalf("one record in the last batch: %v, want Z_B = %v", one, zb)
		}
		j := rapid.IntRange(0, p.StepsPerEpoch()-1).Draw(t, "j")
		cnt := rapid.IntRange(1, min(p.Batch, Sb)).Draw(t, "count")
		some, _ := sgluaudit.ZBatch(p, []sgluaudit.BatchCount{{J: j, Count: cnt}})
		if !leq(some, sgluaudit.ZBatchWorstCase(p, cnt)) {
			t.Fatalf("placement (%d, %d): %v above the worst case", j, cnt, some)
		}
	})
}

// LeastK meets the target and K−1 does not; it is non-increasing in σ and in ϵ̂; it agrees
// with the closed form when α is unclamped. The sequential accountant meets the target at
// every request, and one epoch fewer would not.
func TestSGLULeastK(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := props.SGLUProblem(t)
		p.StrongConvexity = math.Max(p.StrongConvexity, 1e-3*p.Smoothness) // keep K searches short
		sigma := drawSigma(t)
		target := logScaled(t, 1e-2, 10, "target")
		delta := logScaled(t, 1e-8, 1e-2, "delta")
		v := rapid.SampledFrom(variances).Draw(t, "variance")
		z := p.ZB()
		conv := func(K int) float64 {
			e, _ := sglu.BestEpsilonLinear(p.Epsilon(1, sigma, z, K, sglu.PaperPABI, v), delta, sglu.Unbounded)
			return e
		}
		K, err := p.LeastK(target, delta, sigma, z, sglu.PaperPABI, v, sglu.Unbounded)
		if errors.Is(err, sglu.ErrInfeasible) {
			t.Skip("target unreachable within MaxEpochs")
		}
		if err != nil {
			t.Fatal(err)
		}
		if conv(K) > target || K > 1 && conv(K-1) <= target {
			t.Fatalf("K = %d: ϵ(K) = %v, ϵ(K−1) = %v, target %v", K, conv(K), conv(K-1), target)
		}
		// They may differ by one only where ϵ(min K) sits on the target to rounding.
		if cf := p.LeastKClosedForm(target, delta, sigma, z, v); cf != K && !((cf == K+1 || cf == K-1) && math.Abs(conv(min(cf, K))-target) < 1e-9*target) {
			t.Fatalf("closed form K = %d, search %d", cf, K)
		}
		if k2, _ := p.LeastK(target, delta, 2*sigma, z, sglu.PaperPABI, v, sglu.Unbounded); k2 > K {
			t.Fatalf("doubling σ raised K from %d to %d", K, k2)
		}
		if k2, _ := p.LeastK(2*target, delta, sigma, z, sglu.PaperPABI, v, sglu.Unbounded); k2 > K {
			t.Fatalf("doubling ϵ̂ raised K from %d to %d", K, k2)
		}
		acc := sglu.Accountant{Problem: p, Target: target, Delta: delta, Sigma: sigma, Mixed: rapid.Bool().Draw(t, "mixed"), Alphas: sglu.DefaultAlphas}
		for s := range 5 {
			z := acc.Z()
			mode := sglu.PaperPABI
			if acc.Mixed && s > 0 {
				mode = sglu.ExactShiftPABI
			}
			Ks, eps, err := acc.Next()
			if errors.Is(err, sglu.ErrInfeasible) {
				t.Skip("α clamp makes the target unreachable")
			}
			if err != nil {
				t.Fatal(err)
			}
			prev, _ := sglu.BestEpsilonLinear(p.Epsilon(1, sigma, z, Ks-1, mode, sglu.PaperVariance), delta, sglu.DefaultAlphas)
			if eps > target || Ks > 1 && prev <= target {
				t.Fatalf("request %d: K = %d certifies %v (target %v); K−1 certifies %v", s+1, Ks, eps, target, prev)
			}
		}
	})
}

// SearchSigma returns a σ whose least K is ≤ K̂ while σ − 2·tol's is not; it is
// non-increasing in ϵ̂ and K̂, and within 1e-7 of the closed form in the convergent case.
func TestSGLUSearchSigma(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := props.SGLUProblem(t)
		p.StrongConvexity = math.Max(p.StrongConvexity, 1e-3*p.Smoothness)
		target := logScaled(t, 0.05, 5, "target")
		delta := 1 / float64(max(p.N, 10))
		Khat := rapid.IntRange(1, 5).Draw(t, "Khat")
		z := p.ZB()
		leastK := func(target float64) func(float64) (int, error) {
			return func(s float64) (int, error) {
				return p.LeastK(target, delta, s, z, sglu.PaperPABI, sglu.PaperVariance, sglu.Unbounded)
			}
		}
		search := sgluaudit.SigmaSearch{High: 1e6}
		sigma, err := sgluaudit.SearchSigma(Khat, leastK(target), search)
		cf := sgluaudit.SigmaClosedForm(p, Khat, target, delta, z, sglu.PaperPABI, sglu.PaperVariance)
		if errors.Is(err, sglu.ErrInfeasible) {
			// Unreachable below High: the closed form must agree that it needs more.
			if cf <= search.High {
				t.Fatalf("search says σ > %v, closed form says %v", search.High, cf)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if k, _ := leastK(target)(sigma); k > Khat {
			t.Fatalf("σ = %v needs K = %d > %d", sigma, k, Khat)
		}
		if below := sigma - 2e-8; below > 1e-15 {
			if k, err := leastK(target)(below); err == nil && k <= Khat {
				t.Fatalf("σ − 2·tol = %v also meets K̂ = %d: not the smallest", below, Khat)
			}
		}
		if math.Abs(cf-sigma) > 1e-7 {
			t.Fatalf("search σ = %v, closed form %v", sigma, cf)
		}
		s2, _ := sgluaudit.SearchSigma(Khat, leastK(2*target), search)
		s3, _ := sgluaudit.SearchSigma(Khat+1, leastK(target), search)
		if s2 > sigma || s3 > sigma {
			t.Fatalf("σ rose: base %v, doubled ϵ̂ %v, K̂+1 %v", sigma, s2, s3)
		}
	})
}

// The closed-form α* matches a numeric search of the conversion; the converted ϵ is at
// least ε(α*) and at least log(1/δ)/(α_max − 1).
func TestSGLUConversion(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		A := logScaled(t, 1e-8, 10, "A")
		delta := logScaled(t, 1e-10, 0.1, "delta")
		r := rapid.SampledFrom([]sglu.AlphaRange{sglu.DefaultAlphas, sglu.NonConvergentAlphas, {Min: 1.01, Max: 1e8}}).Draw(t, "range")
		eps, alpha := sglu.BestEpsilonLinear(A, delta, r)
		num, numAlpha := sgluaudit.BestDPEpsilon(func(a float64) float64 { return A * a }, delta, r)
		if math.Abs(eps-num) > 1e-9*eps || math.Abs(alpha-numAlpha) > 1e-4*alpha {
			t.Fatalf("closed form (%v at α %v), numeric (%v at α %v)", eps, alpha, num, numAlpha)
		}
		if eps < A*alpha || eps < math.Log(1/delta)/(r.Max-1)*(1-1e-12) {
			t.Fatalf("ϵ = %v below ε(α*) = %v or log(1/δ)/(α_max−1)", eps, A*alpha)
		}
		B := logScaled(t, 1e-8, 10, "B")
		weps, walpha := sglu.BestEpsilonWeakTriangle(B, delta, r)
		wnum, _ := sgluaudit.BestDPEpsilon(func(a float64) float64 { return B * a * (a - 0.5) / (a - 1) }, delta, r)
		if math.Abs(weps-wnum) > 1e-9*weps || walpha < r.Min || walpha > r.Max {
			t.Fatalf("weak triangle: closed form %v at α %v, numeric %v", weps, walpha, wnum)
		}
	})
}
