package sglu

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
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

func readGolden(t *testing.T) goldenFile {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g goldenFile
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

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
