package d2d

import (
	"math"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

type convexGolden struct {
	Thm34 struct {
		Params       map[string]float64
		MV           float64 `json:"m"`
		GammaV       float64 `json:"gamma"`
		EtaV         float64 `json:"eta"`
		SigmaV       float64 `json:"sigma"`
		TMinRealV    float64 `json:"t_min_real"`
		MPrinted     float64 `json:"m_printed"`
		SigmaPrinted float64 `json:"sigma_printed"`
		AlphaMain    float64 `json:"alpha_main"`
	} `json:"thm34"`
	Thm35 struct {
		M            float64 `json:"m"`
		SigmaPrinted float64 `json:"sigma_printed"`
		T10          int     `json:"t_10"`
	} `json:"thm35"`
	Rem36 struct {
		Xi, M        float64
		SigmaPrinted float64 `json:"sigma_printed"`
	} `json:"rem36"`
	Weak struct {
		Xi, Constant []float64
	} `json:"weak_constant"`
}

func loadConvexGolden(t *testing.T) convexGolden {
	return testenv.ReadGolden[d2dGolden](t).convexGolden
}

func convexParams(g convexGolden) Params {
	m := g.Thm34.Params
	return Params{Constants: reference.Constants{Lipschitz: m["L"], Smoothness: m["M"]}, Radius: m["diam"] / 2,
		N: int(m["n"]), Dim: int(m["d"]), Budget: int(m["I"]), Epsilon: m["eps"], Delta: m["delta"]}
}

func TestGoldenTheorem34(t *testing.T) {
	g := loadConvexGolden(t)
	p := convexParams(g)
	pl, err := NewPlan(ConvexStrong, p)
	if err != nil {
		t.Fatal(err)
	}
	tReal := float64(p.Budget) + math.Log(p.Diameter()*pl.Reg*float64(p.N)/(2*p.Lipschitz))/math.Log(1/pl.Gamma)
	for _, c := range []struct {
		name      string
		got, want float64
		sig       int
	}{
		{"m", pl.Reg, g.Thm34.MV, 10}, {"γ", pl.Gamma, g.Thm34.GammaV, 10}, {"η", pl.StepSize, g.Thm34.EtaV, 9},
		{"σ", pl.Sigma, g.Thm34.SigmaV, 10}, {"T_min", tReal, g.Thm34.TMinRealV, 10},
		{"σ (free function)", SigmaRegStrong(1, 1, 2, pl.Reg, p.N, p.Budget, 1, 1e-6), g.Thm34.SigmaV, 10},
	} {
		if !relClose(c.got, c.want, printedTol(c.sig)) {
			t.Errorf("%s = %.12g, spec §4.10 gives %.12g", c.name, c.got, c.want)
		}
	}
	// the printed exponent 4/5: m and σ as the spec computes them, evidence of the typo
	p.Exponent = AsPrinted
	printed, err := NewPlan(ConvexStrong, p)
	if err != nil {
		t.Fatal(err)
	}
	if !relClose(printed.Reg, g.Thm34.MPrinted, printedTol(10)) || !relClose(printed.Sigma, g.Thm34.SigmaPrinted, printedTol(10)) {
		t.Errorf("as printed: m = %.10g (spec %.10g), σ = %.10g (spec %.10g)", printed.Reg, g.Thm34.MPrinted, printed.Sigma, g.Thm34.SigmaPrinted)
	}
	if printed.LearnIterations(p.N) <= 0 || !(printed.Sigma > 1000*pl.Sigma) {
		t.Error("the printed exponent should need three orders of magnitude more noise")
	}
}

func TestGoldenTheorem35AndRemark36(t *testing.T) {
	g := loadConvexGolden(t)
	p := convexParams(g)
	p.SigmaConstant = AsPrinted
	pl, err := NewPlan(ConvexWeak, p)
	if err != nil {
		t.Fatal(err)
	}
	if !relClose(pl.Reg, g.Thm35.M, printedTol(10)) || !relClose(pl.Sigma, g.Thm35.SigmaPrinted, printedTol(10)) {
		t.Errorf("Thm 3.5: m = %.10g (spec %.10g), σ = %.10g (spec %.10g)", pl.Reg, g.Thm35.M, pl.Sigma, g.Thm35.SigmaPrinted)
	}
	if got := pl.UpdateIterations(10); got != g.Thm35.T10 {
		t.Errorf("T_10 = %d, spec gives %d", got, g.Thm35.T10)
	}
	// T_i = i²·I: the largest index whose count fits 2^53 is ⌊√(2^53/I)⌋
	last := int(math.Sqrt(float64(MaxUpdateIterations) / float64(p.Budget)))
	if err := pl.CheckUpdate(last); err != nil {
		t.Errorf("T_%d = %d fits 2^53: %v", last, pl.UpdateIterations(last), err)
	}
	if err := pl.CheckUpdate(last + 1); err == nil {
		t.Errorf("T_%d is beyond 2^53 and was accepted", last+1)
	}
	p.Xi = g.Rem36.Xi
	rem, err := NewPlan(ConvexWeak, p)
	if err != nil {
		t.Fatal(err)
	}
	if !relClose(rem.Reg, g.Rem36.M, printedTol(10)) || !relClose(rem.Sigma, g.Rem36.SigmaPrinted, printedTol(10)) {
		t.Errorf("Rem 3.6 ξ=1.2: m = %.10g (spec %.10g), σ = %.10g (spec %.10g)", rem.Reg, g.Rem36.M, rem.Sigma, g.Rem36.SigmaPrinted)
	}
	for i, xi := range g.Weak.Xi {
		if got := WeakSigmaConstant(xi, Corrected); math.Abs(got-g.Weak.Constant[i]) > 5e-5 {
			t.Errorf("ξ = %v: 4√2·c_ξ = %.5f, spec gives %.4f", xi, got, g.Weak.Constant[i])
		}
	}
}

// The printed constant 2√2 suffices exactly when ξ ≤ 2 (spec d2d §3.7): the safe σ is at
// most the printed one for ξ ≤ 2 and larger beyond.
func TestWeakConstantThreshold(t *testing.T) {
	for _, xi := range []float64{1, 1.5, 1.999, 2.001, 2.5, 4} {
		safe, printed := WeakSigmaConstant(xi, Corrected), WeakSigmaConstant(xi, AsPrinted)
		if (safe > printed*(1+1e-12)) != (xi > 2) {
			t.Errorf("ξ = %v: safe %v, printed %v", xi, safe, printed)
		}
	}
}
