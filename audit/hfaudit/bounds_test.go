package hfaudit

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/audittest"
	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"pgregory.net/rapid"
)

// paperLR is the paper's LR configuration as Theorem 4 sees it (spec hf §3.4): η = 0.05,
// G = C = 5, q = 0.995, 15 epochs of B = 32 batches of |𝓑| = 32.
var paperLR = Thm4Params{Eta: 0.05, G: 5, Q: 0.995, Rho: 1, T: 480, B: 32, BatchSize: 32}

func printed(t *testing.T, s string) (float64, float64) {
	t.Helper()
	v, tol, err := testenv.Printed(s)
	if err != nil {
		t.Fatal(err)
	}
	return v, tol
}

// The spec's golden values (hf §3.4, §3.11, §3.12), each within half a unit of its last
// printed digit: at the paper's LR settings Eq. 56's c1 is ≈ 413 at ρ = 1 and ≈ 320 at
// ρ = 0.999, c1 + c2 ≈ 412.7 (vacuous against a measured error of 0.21); the optimal test's
// AUC at μ = 0.5, 1, 2. The code's bound has its own test (TestGoldenCodeBound).
func TestGolden(t *testing.T) {
	c1, c2, err := Thm4PerSample(paperLR, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := paperLR
	p.Rho = 0.999
	c1b, _, _ := Thm4PerSample(p, 0)
	type golden struct {
		name, want string
		got        float64
	}
	cases := []golden{
		{"c1 at ρ = 1", "413", c1},
		{"Eq. 56 (c1 + c2) at ρ = 1", "412.7", c1 + c2},
		{"c1 at ρ = 0.999", "320", c1b},
		{"AUC μ = 0.5", "0.638163", GaussianAUC(0.5)},
		{"AUC μ = 1", "0.760250", GaussianAUC(1)},
		{"AUC μ = 2", "0.921350", GaussianAUC(2)},
	}
	if len(cases) == 0 {
		t.Fatal("no golden cases")
	}
	for _, c := range cases {
		want, tol := printed(t, c.want)
		if math.Abs(c.got-want) > tol {
			t.Errorf("%s = %v, golden %s", c.name, c.got, c.want)
		}
	}
}

// The five rows of spec hf §3.12 (testdata/golden.json), from the official code run
// verbatim: T_code and B exactly, b within 1e-10 relative and σ within 1e-9. b is the same
// arithmetic as the code's, so it should agree to rounding (it does to 1e-12, the 12 printed
// digits); σ comes from two bisections that stop at different tolerances (the code's 1e-12
// on its own parameter, dp's 1e-13 relative on Δ/σ), which leave 3.5e-11 between them. Rows
// 3–5 have B = ⌈n/bs⌉ ≠ bs: reading B as the batch size moves b there by 60 % to 90 %.
func TestGoldenCodeBound(t *testing.T) {
	g := testenv.ReadGolden[struct {
		CodeBound struct {
			LR, Clip, Q, Epsilon, Delta float64
			Epochs                      int
			Rows                        []struct {
				N, BS, M     int
				Rho          float64
				TCode        float64 `json:"T_code"`
				Batches      int
				Bound, Sigma float64
			}
		} `json:"code_bound"`
	}](t).CodeBound
	for _, r := range g.Rows {
		name := fmt.Sprintf("n = %d, bs = %d, ρ = %v, m = %d", r.N, r.BS, r.Rho, r.M)
		T, B := CodeSteps(r.N, g.Epochs, r.BS)
		if T != r.TCode || B != r.Batches {
			t.Errorf("%s: T = %v, B = %d; golden %v, %d", name, T, B, r.TCode, r.Batches)
		}
		b := CodeBound(g.LR, g.Clip, g.Q, r.Rho, r.N, g.Epochs, r.BS, r.M)
		if math.Abs(b-r.Bound) > 1e-10*r.Bound {
			t.Errorf("%s: b = %.13g, golden %.13g", name, b, r.Bound)
		}
		sigma, err := dp.AnalyticGaussianSigma(b, g.Epsilon, g.Delta)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if math.Abs(sigma-r.Sigma) > 1e-9*r.Sigma {
			t.Errorf("%s: σ = %.12g, golden %.12g", name, sigma, r.Sigma)
		}
	}
}

// I11: the sum forms equal the closed forms (1e-9 relative, where ρ − q is not tiny, and c1's
// to the rounding of the terms its closed form subtracts); the
// simplified bound is at least c1 + c2 for q < ρ; the bounds rise with η, G and m; the drift
// rises with t.
func TestBoundIdentities(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		B := rapid.IntRange(1, 8).Draw(t, "B")
		p := Thm4Params{Eta: rapid.Float64Range(1e-3, 0.5).Draw(t, "η"), G: rapid.Float64Range(0.1, 10).Draw(t, "G"),
			Q: rapid.Float64Range(0.5, 0.999).Draw(t, "q"), Rho: rapid.Float64Range(0.5, 1.2).Draw(t, "ρ"),
			T: B * rapid.IntRange(1, 10).Draw(t, "epochs"), B: B, BatchSize: rapid.IntRange(1, 64).Draw(t, "|𝓑|")}
		b := rapid.IntRange(0, B-1).Draw(t, "b(u)")
		c1, c2, err := Thm4PerSample(p, b)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(p.Rho-p.Q) > 1e-3 && math.Abs(p.Rho-p.Q*p.Q) > 1e-3 && math.Abs(math.Pow(p.Rho, float64(B))-math.Pow(p.Q, float64(B))) > 1e-3 {
			k1, k2 := Thm4Closed(p, b)
			// c1's closed form is a prefactor times a difference of two fractions, which
			// cancel (exactly when T = 1): it is good to rounding of their size, not of c1's,
			// so 64 ulps of |prefactor|·(|A| + |B|) are allowed besides the 1e-9 (c1 = 0
			// exactly while the closed form rounds to 5.6e-14 under arm64's fused
			// multiply–adds, where amd64 happened to round to 0)
			r, q, T := p.Rho, p.Q, float64(p.T)
			A := (math.Pow(r, T) - math.Pow(q, T)) / (r - q)
			Bq := (math.Pow(r, T) - math.Pow(q, 2*T)) / (r - q*q)
			cancel := 2 * p.Eta * p.Eta * p.G / (1 - q) * (math.Abs(A) + math.Abs(Bq))
			if math.Abs(k1-c1) > 1e-9*math.Abs(c1)+64*0x1p-52*cancel || math.Abs(k2-c2) > 1e-9*math.Abs(c2) {
				t.Fatalf("sum forms (%v, %v), closed forms (%v, %v)", c1, c2, k1, k2)
			}
		}
		if p.Q < p.Rho && Thm4Simplified(p) < (c1+c2)*(1-1e-12) {
			t.Fatalf("simplified %v < c1 + c2 = %v", Thm4Simplified(p), c1+c2)
		}
		bigger := p
		bigger.Eta *= 1.5
		bigger.G *= 1.5
		m := rapid.IntRange(1, 20).Draw(t, "m")
		a, _ := Thm4SetPaper(p, m)
		b2, _ := Thm4SetPaper(bigger, m)
		a2, _ := Thm4SetPaper(p, m+1)
		if b2 < a || a2 < a {
			t.Fatalf("bound not monotone: %v → %v (η, G × 1.5), %v (m + 1)", a, b2, a2)
		}
		if DriftBound(p.Eta, p.G, p.Q, p.T+1) < DriftBound(p.Eta, p.G, p.Q, p.T) {
			t.Fatal("drift bound falls with t")
		}
	})
}

// Hypotheses that fail are said: q = 1, T not whole epochs, b(u) outside the epoch; the
// capacity search finds the largest m under γ, and −1 when none fits.
func TestHypothesesAndCapacity(t *testing.T) {
	p := paperLR
	p.Q = 1
	if _, _, err := Thm4PerSample(p, 0); err == nil {
		t.Error("q = 1 accepted")
	}
	p = paperLR
	p.T = 481
	if _, _, err := Thm4PerSample(p, 0); err == nil {
		t.Error("T = 481 with B = 32 accepted")
	}
	if _, _, err := Thm4PerSample(paperLR, 32); err == nil {
		t.Error("b(u) = B accepted")
	}
	linear := func(m int) float64 { return float64(m) }
	if got := DeletionCapacity(7.5, linear, 100); got != 7 {
		t.Errorf("capacity %d, want 7", got)
	}
	if got := DeletionCapacity(-1, linear, 100); got != -1 {
		t.Errorf("capacity %d, want −1", got)
	}
	if got := DeletionCapacity(1e9, linear, 100); got != 99 {
		t.Errorf("capacity %d, want 99 (capped below n)", got)
	}
	if got, want := Rho(0.1, 1, 30), 2.0; got != want {
		t.Errorf("ρ = %v, want %v", got, want)
	}
	// the repaired Eq. 77 adds exactly the regulariser's mean (λ/2)dσ², σ the classic noise
	sigma, err := dp.ClassicGaussianSigma(0.3, 0.5, 1e-4)
	if err != nil {
		t.Fatal(err)
	}
	gap := ExcessRiskBoundRegularized(4, 0.5, 100, 3, 9, 0.9, 50, 0.5, 1e-4, 0.3) - ExcessRiskBound(4, 0.5, 100, 3, 9, 0.9, 50, 0.5, 1e-4, 0.3)
	if want := 0.25 * 9 * sigma * sigma; math.Abs(gap-want) > 1e-12*want {
		t.Errorf("repaired − printed Eq. 77 = %v, want (λ/2)dσ² = %v", gap, want)
	}
	// ρ ≫ 1 (spec §4.6 case 9): the bound overflows to +Inf, never NaN (ρ^{T−1}·0 at k = 0)
	p = paperLR
	p.Rho = 9
	if c1, c2, err := Thm4PerSample(p, 0); err != nil || !math.IsInf(c1, 1) || !math.IsInf(c2, 1) {
		t.Errorf("ρ = 9: c1 = %v, c2 = %v, %v; want +Inf", c1, c2, err)
	}
	if b, err := Thm4SetPaper(p, 5); err != nil || !math.IsInf(b, 1) {
		t.Errorf("ρ = 9: set bound %v, %v; want +Inf", b, err)
	}
}

// "audit bounds hf" computes the deletion capacity as it says: the largest m whose
// Theorem 6 bound stays within γ — the bound at that m is within γ and at m + 1 above it,
// for the printed Eq. 77 and for the repaired one (which, larger, never allows more).
func TestBoundsCapacity(t *testing.T) {
	argv := []string{"--variant", "code", "--gamma", "1000"}
	obj, _, err := audittest.Certificate(t, "hf", argv...)
	if err != nil {
		t.Fatal(err)
	}
	printed, repaired := int(obj["deletion_capacity"].(float64)), int(obj["deletion_capacity_regularized"].(float64))
	if printed < 1 || repaired > printed {
		t.Fatalf("capacities %d (printed) and %d (repaired); want the printed ≥ 1 and ≥ the repaired", printed, repaired)
	}
	for _, c := range []struct {
		key string
		m   int
	}{{"excess_risk", printed}, {"excess_risk_regularized", repaired}} {
		if c.m < 1 {
			continue
		}
		at, _, err := audittest.Certificate(t, "hf", append(argv, "--m", strconv.Itoa(c.m))...)
		if err != nil {
			t.Fatal(err)
		}
		next, _, err := audittest.Certificate(t, "hf", append(argv, "--m", strconv.Itoa(c.m+1))...)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := at[c.key].(float64), next[c.key].(float64); !(a <= 1000 && b > 1000) {
			t.Errorf("%s at m = %d: %v, at m + 1: %v; want the capacity where it crosses γ = 1000", c.key, c.m, a, b)
		}
	}
}

// powerGap is the geometric sum Σ_{k<T} a^{T−1−k}·b^k, against that sum in 300-bit
// arithmetic, from a = b (the code's closed form is 0/0 there) through a millionth apart
// (the stable form) to far apart (the closed form), within 1e-9 relative: the closed
// form's powers, each within an ulp, lose at most a factor a^T/|a^T − b^T| ≤ 1/(T·10⁻⁶)
// where it is used, and the stable form's few roundings far less.
func TestPowerGap(t *testing.T) {
	sum := func(a, b float64, T int) float64 {
		const prec = 300
		A, Bf := new(big.Float).SetPrec(prec).SetFloat64(a), new(big.Float).SetPrec(prec).SetFloat64(b)
		s := new(big.Float).SetPrec(prec)
		term := new(big.Float).SetPrec(prec).SetFloat64(1)
		for range T - 1 {
			term.Mul(term, A) // a^{T−1}
		}
		ratio := new(big.Float).SetPrec(prec).Quo(Bf, A)
		for range T {
			s.Add(s, term)
			term.Mul(term, ratio)
		}
		v, _ := s.Float64()
		return v
	}
	n := 0
	for _, T := range []int{1, 2, 7, 100, 3000} {
		for _, b := range []float64{0.5, 0.995, 0.990025} {
			for _, rel := range []float64{0, 1e-15, 1e-12, 1e-9, 5e-7, 2e-6, 1e-3, 0.1} {
				for _, sign := range []float64{1, -1} {
					a := b * (1 + sign*rel)
					want := sum(a, b, T)
					if got := powerGap(a, b, float64(T)); !(math.Abs(got-want) <= 1e-9*want) {
						t.Errorf("powerGap(%v, %v, %d) = %v, want %v", a, b, T, got, want)
					}
					n++
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no cases")
	}
}

// The code's bound is finite and continuous at ρ = q (spec hf §3.4: the sums stay finite
// as ρ → q), where its closed form divides 0 by 0: a relative step of 1e-9 in ρ moves
// sums of powers up to ρ^T, T = 1000·16/32 = 500 here, by about T·1e-9 = 5e-7 relatively,
// within the 1e-6 allowed; the NaN the closed form gave fails it whatever the tolerance.
func TestCodeBoundAtRhoEqualQ(t *testing.T) {
	at := CodeBound(0.05, 5, 0.995, 0.995, 1000, 15, 32, 1)
	near := CodeBound(0.05, 5, 0.995, 0.995*(1+1e-9), 1000, 15, 32, 1)
	if math.IsNaN(at) || math.IsInf(at, 0) || math.Abs(at-near) > 1e-6*near {
		t.Errorf("CodeBound at ρ = q: %v; at ρ = q(1 + 1e-9): %v", at, near)
	}
}

// bounds hf refuses more deletions than records and a batch larger than the data, naming
// the flag, and computes the code's bound at ρ = q (its default q) instead of failing on it.
func TestBoundsHFRefusesImpossibleSizes(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--n", "10", "--m", "20"}, "--m"},
		{[]string{"--n", "10", "--m", "10"}, "--m"},
		{[]string{"--n", "1000", "--batch", "2000"}, "--batch"},
	} {
		if _, _, err := audittest.Certificate(t, "hf", c.args...); err == nil || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("bounds hf %v: %v; want a refusal naming %s", c.args, err, c.flag)
		}
	}
	for _, variant := range []string{"theorem-4", "code"} {
		obj, _, err := audittest.Certificate(t, "hf", "--variant", variant, "--rho", "0.995", "--q", "0.995")
		if err != nil {
			t.Fatalf("bounds hf --variant %s at ρ = q: %v", variant, err)
		}
		if v, ok := obj["code_bound"].(float64); !ok || !(v > 0) || math.IsInf(v, 0) {
			t.Errorf("bounds hf --variant %s at ρ = q: code_bound %v", variant, obj["code_bound"])
		}
	}
}
