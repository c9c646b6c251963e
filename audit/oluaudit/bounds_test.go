package oluaudit

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference/olu"
	"gonum.org/v1/gonum/mat"
	"pgregory.net/rapid"
)

func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// Golden values worked by hand from spec olu §3 (each case restates its arithmetic).
func TestBoundsGolden(t *testing.T) {
	cases := []struct {
		name      string
		got, want float64
	}{
		// erratum 3: S_{2.4}(2) = 1 + 2^{2.4} = 6.278 against the paper's 2^{3.4}/3.4 = 3.105
		{"S_2.4(2)", SumPow(2, 2.4), 1 + math.Pow(2, 2.4)},
		{"paper S_2.4(2)", SumPowPaper(2, 2.4), math.Pow(2, 3.4) / 3.4},
		// B(1, 1.2, 1) = √(1.2/0.4) = √3
		{"B(1, 1.2, 1)", olu.NoiseMultiplier(1, 1.2, 1), math.Sqrt(3)},
		// the spec's erratum-1 instance: √3·(½)^{16}·10/4 and √3·10/20
		{"paper σ", PassiveSigmaPaper(1, 1.2, 1, 0.5, 20, 4, 2.5), math.Sqrt(3) * math.Pow(0.5, 16) * 2.5},
		{"corrected σ", PassiveSigmaSC(1, 1.2, 1, 10, 1, 20), math.Sqrt(3) / 2},
		// convex σ² = ω i^ω D²/(2(ω−1)εu) at i = 2, ω = 2, D = 3, ε = 0.5, u = 9: 2·4·9/(2·0.5·9) = 8
		{"convex σ²", math.Pow(PassiveSigmaConvex(2, 2, 0.5, 3, 9), 2), 8},
		// Theorem 5's violated instance (spec §3.3): 20·(20 + 50)·√(2·10⁴) + 2·400 = 198 789.9
		{"Thm 5 stated", Thm5BoundPaper(20, 20, 1, 10000, 1, 1, 4e-4), 1400*math.Sqrt(20000) + 800},
		// Table 1's η = √(800/(10⁴·400·(1 + 1.2/(0.42·4·10⁻⁴))))
		{"Thm 5 η (Table 1)", Thm5EtaTable(20, 20, 10000, 1, 1, 4e-4), math.Sqrt(800 / (4e6 * (1 + 1.2/(0.42*4e-4))))},
		// the proof's η: ω²−1 = 0.44, so 1.2/(2·0.44·4·10⁻⁴) in place of 1.2/(0.42·4·10⁻⁴)
		{"Thm 5 η (proof)", Thm5EtaProof(20, 20, 10000, 1, 1, 4e-4, 1.2), math.Sqrt(800 / (1e4 * (400 + 1.2*400/(0.88*4e-4))))},
		// Proposition 1 at k = 3: (α/3, 3^{1.6}ε); Mironov proves (α/4, 9ε)
		{"Prop 1 ε", func() float64 { _, e, _ := Prop1Paper(12, 1, 3); return e }(), math.Pow(3, 1.6)},
		{"Mironov ε", func() float64 { _, e, _ := GroupPrivacyMironov(12, 1, 3); return e }(), 9},
		{"Mironov α", func() float64 { a, _, _ := GroupPrivacyMironov(12, 1, 3); return a }(), 3},
		// G1 with γ = ½, τ = (4, 10), u = (2, 10): √(16·(½)^8/16 + 100/10⁴) = √(1/256 + 0.01)
		{"G1", G1(0.5, []int{4, 10}, []int{2, 10}), math.Sqrt(1.0/256 + 0.01)},
		// G2 with τ = (4, 9), u = (2, 3): √(4/4 + 9/9) = √2
		{"G2", G2([]int{4, 9}, []int{2, 3}), math.Sqrt2},
		// G_act with γ = ½, τ = (2, 5): (½)²·2 + (½)³·3 = 0.5 + 0.375
		{"G_act", GAct(0.5, []int{2, 5}), 0.875},
		// Theorem 2 as printed at L = 2, μ = 1, T = e², k = 1, d = 3, ε = 1, G1 = 1:
		// 4·(2 + 2 + 3√3)
		{"Thm 2 stated", Thm2BoundPaper(2, 1, int(math.Round(math.Exp(2))), 1, 3, 1, 1), 4 * (math.Log(7) + 2 + 3*math.Sqrt(3))},
		// Lemma 5: 2·3·2/(0.5·12) = 2
		{"Lemma 5", Lemma5Bound(3, 2, 0.5, 12), 2},
		{"Lemma 6", Lemma6Bound(2, 3, 4), 3},
		// Corollary 7 fixed adds (d ω k^{ω+1}L²/(2√3 εμ(ω−1))) to the printed one
		{"Cor 7 fixed − printed", Cor7Fixed(1, 1, 10, 2, 1, 1, 2, 0.5) - Cor7Paper(1, 1, 10, 2, 1, 1, 2, 0.5), 2 * 8 / (2 * math.Sqrt(3))},
	}
	if len(cases) == 0 {
		t.Fatal("no golden cases")
	}
	for _, c := range cases {
		if !near(c.got, c.want, 1e-12) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if _, _, ok := Prop1Paper(5, 1, 3); ok {
		t.Error("Proposition 1 at α = 5 < 2k = 6 accepted")
	}
}

// Identities between the forms (rapid): the exact-noise Theorem 2 bound at the corrected
// σ_i equals the derived closed form (relative 1e-12); Corollary 7's fixed form is never
// below the printed one; G_act ≤ k/(e ln(1/γ)); the tight constant step minimises its
// bound (no step 1 % either side does better).
func TestBoundIdentities(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.IntRange(1, 20).Draw(t, "k")
		T := rapid.IntRange(k, 100000).Draw(t, "T")
		d := rapid.IntRange(1, 50).Draw(t, "d")
		eps := math.Exp(float64(rapid.IntRange(-30, 23).Draw(t, "ln ε·10")) / 10)
		omega := rapid.SampledFrom([]float64{1.1, 1.2, 1.5, 2}).Draw(t, "ω")
		L := float64(rapid.IntRange(1, 100).Draw(t, "L·10")) / 10
		mu := float64(rapid.IntRange(1, 100).Draw(t, "μ·100")) / 100
		gamma := float64(rapid.IntRange(1, 99).Draw(t, "γ·100")) / 100
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 1))
		tau := r.Perm(T)[:k]
		for i := range tau {
			tau[i]++
		}
		sortInts(tau)
		sigma2 := make([]float64, k)
		for i := range sigma2 {
			s := PassiveSigmaSC(i+1, omega, eps, L, mu, tau[i])
			sigma2[i] = s * s
		}
		safe, derived := Thm2BoundSafe(L, mu, T, k, d, sigma2, tau), Thm2BoundCorrected(L, mu, T, k, d, eps, omega, tau)
		if !near(safe, derived, 1e-12) {
			t.Fatalf("Theorem 2 at the corrected σ: %v by the exact E[B], %v closed form", safe, derived)
		}
		if Cor7Fixed(L, mu, T, k, d, eps, omega, gamma) < Cor7Paper(L, mu, T, k, d, eps, omega, gamma) {
			t.Fatal("Corollary 7's fixed form below the printed one")
		}
		if g := GAct(gamma, tau); g > float64(k)/(math.E*math.Log(1/gamma))*(1+1e-12) {
			t.Fatalf("G_act = %v above k/(e ln(1/γ)) = %v", g, float64(k)/(math.E*math.Log(1/gamma)))
		}
		D := float64(rapid.IntRange(1, 100).Draw(t, "D"))
		eta := ConstStepEtaTight(D, L, T, k, d, eps, omega)
		best := ConstStepRegretTight(D, L, eta, T, k, d, eps, omega)
		for _, f := range []float64{0.99, 1.01} {
			if ConstStepRegretTight(D, L, f*eta, T, k, d, eps, omega) < best*(1-1e-12) {
				t.Fatalf("η·%v beats the tight step", f)
			}
		}
	})
}

func sortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// The PABI accountant (spec olu §4.2 I5): for random schedules — any order of the u's,
// the shift a spent at each τ — every e_t stays ≥ 0, e ends at 0 and the bound is the
// passive accountant's αε(ω−1)/ω·H_ω(k); a schedule that omits one shift is not OK.
func TestPABIAccountant(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		T := rapid.IntRange(1, 200).Draw(t, "T")
		k := rapid.IntRange(1, min(T, 8)).Draw(t, "k")
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 2))
		taus := r.Perm(T)[:k]
		for i := range taus {
			taus[i]++
		}
		sortInts(taus)
		us := r.Perm(T)
		gammas, s, a, sigma := make([]float64, T), make([]float64, T), make([]float64, T), make([]float64, T)
		for t := range gammas {
			gammas[t] = 0.9 + 0.1*r.Float64() // Γ ≥ 0.9^200 ≫ the tolerance: an omitted shift shows
		}
		eps, omega, alpha := 0.7, 1.2, 4.0
		used := map[int]bool{}
		var sched olu.Schedule
		for _, tau := range taus {
			for _, u := range us {
				if u+1 <= tau && !used[u+1] {
					used[u+1] = true
					sched = append(sched, olu.Request{U: u + 1, Tau: tau})
					break
				}
			}
		}
		for i, q := range sched {
			delta := 0.1 + r.Float64()
			s[q.U-1] += delta
			gamma := 1.0
			for l := q.U + 1; l <= q.Tau; l++ {
				gamma *= gammas[l-1]
			}
			a[q.Tau-1] += gamma * delta
			if sigma[q.Tau-1] > 0 {
				return // two requests at one round: one noise pays for both, not this accountant's case
			}
			sigma[q.Tau-1] = olu.PassiveSigma(i+1, omega, eps, gamma, delta)
		}
		got := PABIAccountant(gammas, s, a, sigma, alpha)
		if want := olu.RDPSpent(alpha, eps, omega, len(sched)); !got.OK || !near(got.Bound, want, 1e-9) {
			t.Fatalf("%+v; want OK with bound %v", got, want)
		}
		// at the last request's round, where the window the accountant speaks of opens
		last := sched[len(sched)-1].Tau
		a[last-1] = 0
		if PABIAccountant(gammas[:last], s[:last], a[:last], sigma[:last], alpha).OK {
			t.Fatal("a schedule that omits the last shift is OK")
		}
	})
}

// Lemma 9 (its proof's stronger form) and Lemma 7 with f(x) = 1/√x, on random inputs:
// x − √(ax + b) ≤ c implies x ≤ a + c + √(b + ac), checked at the largest such x; and
// Σ_t a_t/√(a_0 + Σ_{s≤t} a_s) ≤ 2(√(a_0 + Σ_s a_s) − √a_0).
func TestLemmas7And9(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := float64(rapid.IntRange(0, 1000).Draw(t, "a")) / 10
		b := float64(rapid.IntRange(0, 1000).Draw(t, "b")) / 10
		c := float64(rapid.IntRange(0, 1000).Draw(t, "c")) / 10
		x := c + a/2 + math.Sqrt(a*a+4*a*c+4*b)/2 // the root of x − c = √(ax + b)
		if x > (a+c+math.Sqrt(b+a*c))*(1+1e-12) {
			t.Fatalf("Lemma 9: x = %v above a + c + √(b + ac) = %v", x, a+c+math.Sqrt(b+a*c))
		}
		as := rapid.SliceOfN(rapid.IntRange(0, 100), 1, 50).Draw(t, "a_t")
		a0 := float64(rapid.IntRange(1, 100).Draw(t, "a_0"))
		sum, lhs := a0, 0.0
		for _, v := range as {
			sum += float64(v)
			lhs += float64(v) / math.Sqrt(sum)
		}
		if rhs := 2 * (math.Sqrt(sum) - math.Sqrt(a0)); lhs > rhs*(1+1e-12)+1e-12 {
			t.Fatalf("Lemma 7: %v above %v", lhs, rhs)
		}
	})
}

// I14: Lemmas 5 and 6 on computed minimisers. Lemma 5 on strongly convex quadratics over a
// box: removing m of n terms moves the minimiser of the sum by at most 2mL/(μn), L the
// terms' Lipschitz constant on the box. Lemma 6 on least squares over the whole space:
// removing k terms moves it by at most 2kL/κ_F, κ_F the sum's quadratic growth (the least
// eigenvalue of Σ a_t a_tᵀ) and L the removed terms' gradient norm on the segment between
// the minimisers (the lemma's proof uses no more). The minimisers are computed to a
// gradient mapping of 1e-10, which moves each by at most 2·1e-10 over the mean's strong
// convexity: the tolerance, for both.
func TestLemmas5And6OnMinimisers(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ctx := context.Background()
		d := rapid.IntRange(1, 3).Draw(t, "d")
		n := rapid.IntRange(3, 20).Draw(t, "n")
		m := rapid.IntRange(1, n-1).Draw(t, "m")
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 1))
		mu, beta, R := 0.2+r.Float64(), 0.0, 0.5+2*r.Float64()
		quads := make([]olu.Cost, n)
		for i := range quads {
			q := olu.Quadratic{A: make([]float64, d), C: make([]float64, d)}
			for j := range d {
				q.A[j] = mu * (1 + 3*r.Float64())
				q.C[j] = 4*r.Float64() - 2
				beta = math.Max(beta, q.A[j])
			}
			quads[i] = q
		}
		L := 0.0 // ‖a∘(z − c)‖ ≤ √Σ (a_j(R + |c_j|))² on the box
		for _, f := range quads {
			q := f.(olu.Quadratic)
			s := 0.0
			for j := range d {
				v := q.A[j] * (R + math.Abs(q.C[j]))
				s += v * v
			}
			L = math.Max(L, math.Sqrt(s))
		}
		box := olu.Box{R: R}
		opts := olu.MinimizeOptions{Smoothness: beta, Tol: 1e-10}
		full, _, err := olu.Minimize(ctx, quads, box, make([]float64, d), opts)
		if err != nil {
			t.Fatal(err)
		}
		part, _, err := olu.Minimize(ctx, quads[m:], box, full, opts)
		if err != nil {
			t.Fatal(err)
		}
		if gap, bound := dist(full, part), Lemma5Bound(m, L, mu, n); gap > bound*(1+1e-9)+4e-10/mu {
			t.Fatalf("Lemma 5: gap %v > 2mL/(μn) = %v (m = %d, n = %d)", gap, bound, m, n)
		}
		// Lemma 6 on least squares with a full-rank design
		ls := make([]olu.Cost, n+d)
		gram := make([]float64, d*d)
		for i := range ls {
			a := make([]float64, d)
			for j := range a {
				a[j] = 2*r.Float64() - 1
			}
			if i < d {
				clear(a)
				a[i] = 1
			}
			ls[i] = olu.LeastSquares{A: a, B: 2*r.Float64() - 1}
		}
		k := rapid.IntRange(1, n).Draw(t, "k")
		removed := ls[len(ls)-k:]
		for _, f := range ls {
			a := f.(olu.LeastSquares).A
			for p := range d {
				for q := range d {
					gram[p*d+q] += a[p] * a[q]
				}
			}
		}
		kappa := leastEigen(gram, d)
		betaLS := 0.0
		for p := range d {
			betaLS += gram[p*d+p]
		}
		o := olu.MinimizeOptions{Smoothness: betaLS, Tol: 1e-10} // the trace bounds every mean's Hessian
		zf, _, err := olu.Minimize(ctx, ls, olu.Whole{}, make([]float64, d), o)
		if err != nil {
			t.Fatal(err)
		}
		zk, _, err := olu.Minimize(ctx, ls[:len(ls)-k], olu.Whole{}, zf, o)
		if err != nil {
			t.Fatal(err)
		}
		L6 := 0.0 // the removed terms' gradient norm at both ends bounds it on the segment (it is affine)
		g := make([]float64, d)
		for _, f := range removed {
			for _, z := range [][]float64{zf, zk} {
				f.Gradient(g, z)
				L6 = math.Max(L6, math.Sqrt(dot(g, g)))
			}
		}
		// both means are at least 1/(n + d)-strongly convex (the identity rows are kept)
		if gap, bound := dist(zf, zk), Lemma6Bound(k, L6, kappa); gap > bound*(1+1e-9)+4e-10*float64(len(ls)) {
			t.Fatalf("Lemma 6: gap %v > 2kL/κ_F = %v (k = %d, κ_F = %v)", gap, bound, k, kappa)
		}
	})
}

func dist(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// leastEigen is the least eigenvalue of the symmetric d×d matrix m (row-major).
func leastEigen(m []float64, d int) float64 {
	var e mat.EigenSym
	if !e.Factorize(mat.NewSymDense(d, slices.Clone(m)), false) {
		panic("eigen")
	}
	return slices.Min(e.Values(nil))
}
