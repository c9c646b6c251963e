package sglu

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
)

// printed is a golden value as the spec prints it.
type printed string

func (p printed) value(t *testing.T) (v, tol float64) {
	t.Helper()
	v, tol, err := testenv.Printed(string(p))
	if err != nil {
		t.Fatalf("golden %q: %v", p, err)
	}
	return v, tol
}

type goldenFile struct {
	Datasets map[string]struct {
		N            int
		M, L, Eta, C float64
	}
	Rows []struct {
		Dataset      string
		B            int
		ZB           printed `json:"zb"`
		EpsAlpha10   printed `json:"eps_alpha10"`
		BestEps      printed `json:"best_eps"`
		AlphaStar    printed `json:"alpha_star"`
		Cor39Alpha10 printed `json:"cor39_alpha10"`
	}
}

func readGolden(t *testing.T) goldenFile { return testenv.ReadGolden[goldenFile](t) }

// goldenProblem is a row's problem: MNIST or CIFAR-10 constants, M = 1, no 2R cap.
func goldenProblem(t *testing.T, g goldenFile, dataset string, b int) Problem {
	c := g.Datasets[dataset]
	if b == 0 {
		b = c.N
	}
	p := Problem{Smoothness: c.L, Lipschitz: 1, StrongConvexity: c.M, StepSize: c.Eta, N: c.N, Batch: b, Radius: math.Inf(1)}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if math.Abs(p.C()-c.C) > 1e-15 {
		t.Fatalf("%s: c = %v, golden %v", dataset, p.C(), c.C)
	}
	return p
}

func near(t *testing.T, what string, got float64, want printed) {
	t.Helper()
	v, tol := want.value(t)
	if math.Abs(got-v) > tol {
		t.Errorf("%s = %.10g, golden %s (±%g)", what, got, want, tol)
	}
}

// Spec sglu §4.5: Z_B, Corollary 3.8 at α = 10, and its (ϵ, δ = 1/n) conversion with α*.
func TestGoldenCorollary38(t *testing.T) {
	g := readGolden(t)
	for _, row := range g.Rows {
		p := goldenProblem(t, g, row.Dataset, row.B)
		name := row.Dataset + "/b=" + strconv.Itoa(p.Batch)
		near(t, name+" Z_B", p.ZB(), row.ZB)
		near(t, name+" ε(α=10)", p.Epsilon(10, 0.03, p.ZB(), 1, PaperPABI, PaperVariance), row.EpsAlpha10)
		eps, alpha := BestEpsilonLinear(p.Epsilon(1, 0.03, p.ZB(), 1, PaperPABI, PaperVariance), 1/float64(p.N), DefaultAlphas)
		near(t, name+" best ϵ", eps, row.BestEps)
		near(t, name+" α*", alpha, row.AlphaStar)
	}
}

// The zero Alphas is the code's default range: an accountant that leaves it unset finds
// the same epochs as one that names DefaultAlphas. Bad fields are errors naming them.
func TestAccountantDefaultsAndValidation(t *testing.T) {
	g := readGolden(t)
	p := goldenProblem(t, g, "mnist", 512)
	zero := Accountant{Problem: p, Target: 0.01, Delta: 1 / float64(p.N), Sigma: 0.05, Mixed: true}
	named := zero
	named.Alphas = DefaultAlphas
	for s := range 5 {
		k0, e0, err0 := zero.Next()
		k1, e1, err1 := named.Next()
		if err0 != nil || err1 != nil || k0 != k1 || e0 != e1 {
			t.Fatalf("request %d: zero range K = %d ϵ = %v (%v); default range K = %d ϵ = %v (%v)", s+1, k0, e0, err0, k1, e1, err1)
		}
	}
	for field, a := range map[string]Accountant{
		"target":      {Problem: p, Target: 0, Delta: 0.1, Sigma: 1},
		"delta":       {Problem: p, Target: 1, Delta: 1, Sigma: 1},
		"sigma":       {Problem: p, Target: 1, Delta: 0.1, Sigma: 0},
		"alphas":      {Problem: p, Target: 1, Delta: 0.1, Sigma: 1, Alphas: AlphaRange{3, 2}},
		"per-request": {Problem: p, Target: 1, Delta: 0.1, Sigma: 1, PerRequest: -1},
	} {
		if _, _, err := a.Next(); err == nil || !strings.Contains(err.Error(), field+":") {
			t.Errorf("%s: %v", field, err)
		}
	}
}

// Requests of S records: the first starts from Corollary 3.12's Z_S, every request meets
// the target and one epoch fewer would not, and S = 1 is the single-record accountant.
func TestAccountantPerRequest(t *testing.T) {
	g := readGolden(t)
	p := goldenProblem(t, g, "mnist", 128)
	delta := 1 / float64(p.N)
	one := Accountant{Problem: p, Target: 1, Delta: delta, Sigma: 0.03}
	same := one
	same.PerRequest = 1
	ten := one
	ten.PerRequest = 10
	if z := ten.Z(); math.Abs(z-p.ZBatchWorstCase(10)) > 1e-15 || z <= p.ZB() {
		t.Fatalf("S = 10 starts from %v; Z_S = %v, Z_B = %v", z, p.ZBatchWorstCase(10), p.ZB())
	}
	for s := range 20 {
		z := ten.Z()
		k, eps, err := ten.Next()
		if err != nil || eps > 1 {
			t.Fatalf("S = 10, request %d: K = %d, ϵ = %v, %v", s+1, k, eps, err)
		}
		if k > 1 {
			if prev, _ := BestEpsilonLinear(p.Epsilon(1, 0.03, z, k-1, PaperPABI, PaperVariance), delta, DefaultAlphas); prev <= 1 {
				t.Fatalf("S = 10, request %d: K − 1 = %d already meets the target (ϵ = %v)", s+1, k-1, prev)
			}
		}
		k1, e1, _ := one.Next()
		k2, e2, _ := same.Next()
		if k1 != k2 || e1 != e2 || k < k1 {
			t.Fatalf("request %d: S = 1 gives K = %d, default %d; S = 10 gives %d", s+1, k2, k1, k)
		}
	}
}

// A range with no order above 1 cannot convert anything: +Inf, never a negative ϵ, even
// when the Rényi bound has underflowed to 0.
func TestConversionWithoutOrders(t *testing.T) {
	for _, r := range []AlphaRange{{0.5, 1}, {1, 1}} {
		for _, a := range []float64{0, 1e-300, 0.3} {
			if e, _ := BestEpsilonLinear(a, 1e-5, r); !math.IsInf(e, 1) {
				t.Errorf("linear A = %v over [%v, %v]: ϵ = %v, want +Inf", a, r.Min, r.Max, e)
			}
			if e, _ := BestEpsilonWeakTriangle(a, 1e-5, r); !math.IsInf(e, 1) {
				t.Errorf("weak triangle B = %v over [%v, %v]: ϵ = %v, want +Inf", a, r.Min, r.Max, e)
			}
		}
	}
}
