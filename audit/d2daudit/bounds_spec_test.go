package d2daudit_test

import (
	"math"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/d2daudit"
)

// Spec vectors for the bound checker's functions no check calls (issue 28, item 4): each
// against spec d2d §4.10's golden value where it has one, else against the spec's formula
// recomputed here by hand, at the section cited. Natural logs; relative tolerance 1e-12
// (1e-9 for §4.10's printed digits).
func TestBoundsSpecVectors(t *testing.T) {
	rel := func(name string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol*math.Abs(want) || math.IsNaN(got) {
			t.Errorf("%s = %.15g; want %.15g", name, got, want)
		}
	}
	// §3.1 (Thm 2.13): γ^T·‖θ_0 − θ*‖, γ = 0 exact in one step; §4.10's γ for M = 4, m = 0.05
	rel("GDDistanceBoundSC(0.5, 3, 2)", d2daudit.GDDistanceBoundSC(0.5, 3, 2), 0.25, 1e-12)
	if got := d2daudit.GDDistanceBoundSC(0, 1, 5); got != 0 {
		t.Errorf("GDDistanceBoundSC(0, 1, 5) = %v; want 0", got)
	}
	const gamma = 0.975308641975
	rel("GDDistanceBoundSC(γ, 162, 2)", d2daudit.GDDistanceBoundSC(gamma, 162, 2), 2*math.Pow(gamma, 162), 1e-12)
	// §3.1 (Thm 2.14): M‖θ_0 − θ*‖²/(2T) = 4·4/20
	rel("GDGapBoundConvex(4, 2, 10)", d2daudit.GDGapBoundConvex(4, 2, 10), 0.8, 1e-12)
	// §3.2 (Lemma 2.12): 2L/(mn) = 2/(0.05·1000); [EXT] L/(m·max(n, n')) = 1/(0.05·1001)
	rel("SensitivitySC(1, 0.05, 1000)", d2daudit.SensitivitySC(1, 0.05, 1000), 0.04, 1e-12)
	rel("SensitivitySCTight(1, 0.05, 1001)", d2daudit.SensitivitySCTight(1, 0.05, 1001), 1/50.05, 1e-12)
	// §3.3: α·Δ²/(2σ²) = 2·1/8; the privacy loss N(s²/2, s²) at s = 1/2
	rel("GaussianRenyi(2, 1, 2)", d2daudit.GaussianRenyi(2, 1, 2), 0.25, 1e-12)
	mean, variance := d2daudit.GaussianPrivacyLossMeanVar(1, 2)
	rel("GaussianPrivacyLossMeanVar(1, 2) mean", mean, 0.125, 1e-12)
	rel("GaussianPrivacyLossMeanVar(1, 2) variance", variance, 0.25, 1e-12)
	// §3.3 (Lemma A.4): ⌈ln(1/p)/ln 2⌉ — ln 1000/ln 2 = 9.97, ln 1e6/ln 2 = 19.93, ln(1/0.3)/ln 2 = 1.74
	for _, c := range []struct {
		p    float64
		want int
	}{{1e-3, 10}, {1e-6, 20}, {0.3, 2}} {
		if got := d2daudit.BestOfNCopies(c.p); got != c.want {
			t.Errorf("BestOfNCopies(%v) = %d; want %d", c.p, got, c.want)
		}
	}
	// §3.3 (Lemma A.5): exp(−μt²/(2+t)) = exp(−10/3) at μ = 10, t = 1
	rel("ChernoffUpper(10, 1)", d2daudit.ChernoffUpper(10, 1), math.Exp(-10.0/3), 1e-12)
	// §3.4 (Thm 3.1, D2DAccuracySCBigO): M L² γ^{2I} d ln(1/δ) ln²(d/β)/((1−γ^I)² m² ε² n²) at
	// §4.10's L = 1, M = 4, m = 0.05, n = 1000, I = 5, ε = 1, δ = 1e-6, with d = 10, β = 0.05
	g5 := math.Pow((4-0.05)/(4+0.05), 5)
	l := math.Log(10 / 0.05)
	rel("AccuracySCBigO", d2daudit.AccuracySCBigO(1, 0.05, 4, 1000, 5, 10, 1, 1e-6, 0.05),
		4*g5*g5*10*math.Log(1e6)*l*l/((1-g5)*(1-g5)*0.05*0.05*1e6), 1e-12)
	// §4.10 (Thm 3.4): the α main term (M^{3/2} L D⁴ √(dℓ)/(εnI))^{2/5} at L = M = 1, D = 2,
	// n = 1e4, d = 10, ε = 1, δ = 1e-6, I = 10
	rel("AccuracyRegStrongMainTerm", d2daudit.AccuracyRegStrongMainTerm(1, 1, 2, 10, 10000, 10, 1, 1e-6), 0.08123092167, 1e-9)
	// §3.8 (Table 1) at d = 10, n = 1000, ε = 1, 𝓘 = 5, ξ = 1.2, update i = 7
	const d, n, eps, I, xi = 10.0, 1000.0, 1.0, 5.0, 1.2
	e := (4 - 3*xi) / 2
	for _, c := range []struct {
		name                string
		row                 d2daudit.Table1Row
		acc, iters, retrain float64
	}{
		{"PGD, SC", d2daudit.Table1PGDSC, d * math.Exp(-I) / (eps * eps * n * n), I, I + math.Log(eps*n/math.Sqrt(d))},
		{"PGD, SC, perfect", d2daudit.Table1PGDSCPerfect, d * math.Exp(-I) / (eps * eps * n * n), math.Log(7) * I, I + math.Log(eps*n/math.Sqrt(d))},
		{"regularised, C", d2daudit.Table1RegularizedConvex, math.Pow(math.Sqrt(d)/(eps*n*I), 0.4), I, math.Pow(eps*n*I/math.Sqrt(d), 0.4)},
		{"PGD, C", d2daudit.Table1PGDConvexWeak, math.Sqrt(math.Sqrt(d) / (eps * n * math.Sqrt(I))), 49 * I, math.Sqrt(eps * n * math.Sqrt(I) / math.Sqrt(d))},
		{"distributed", d2daudit.Table1Distributed, d*math.Exp(-I*math.Pow(n, e))/(eps*eps*n*n) + math.Pow(n, -xi), math.Log(7) * I,
			math.Min(math.Log(n), I*math.Pow(n, e)+math.Log(eps*n/math.Sqrt(d)))},
	} {
		rel("Table1Accuracy "+c.name, d2daudit.Table1Accuracy(c.row, d, n, eps, I, xi), c.acc, 1e-12)
		rel("Table1UpdateIters "+c.name, d2daudit.Table1UpdateIters(c.row, 7, I), c.iters, 1e-12)
		rel("Table1BaselineIters "+c.name, d2daudit.Table1BaselineIters(c.row, d, n, eps, I, xi), c.retrain, 1e-12)
	}
	// §3.9.3 (Thm 4.4): 2L²/(m²B) + c·K²L²/(m⁴B²)·(H² ln d + L²G²/m²) + c2·K/B² + c3·K³/B³ at
	// L = 1, m = 0.5, H = 2, G = 3, B = 100, K = 10, d = 5, c = c2 = c3 = 1
	rel("ZDWAvgSqError", d2daudit.ZDWAvgSqError(1, 0.5, 2, 3, 100, 10, 5, 1, 1, 1),
		2/(0.25*100)+100/(0.0625*1e4)*(4*math.Log(5)+9/0.25)+10/1e4+1000/1e6, 1e-12)
}
