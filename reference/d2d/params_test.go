package d2d

import (
	"math"
	"strconv"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
)

type goldenFile struct {
	Thm31 struct {
		Params     map[string]float64
		GammaV     float64 `json:"gamma"`
		EtaV       float64 `json:"eta"`
		TMinRealV  float64 `json:"t_min_real"`
		TMin       int     `json:"t_min"`
		DeltaSensV float64 `json:"delta_sens"`
		SigmaV     float64 `json:"sigma"`
		SigmaI1V   float64 `json:"sigma_I1"`
		SigmaI50V  float64 `json:"sigma_I50"`
		RhoV       float64 `json:"rho_star"`
	} `json:"thm31"`
	Thm32 struct {
		Params   map[string]float64
		IMinReal float64            `json:"i_min_real"`
		IMin     int                `json:"i_min"`
		Sigma    float64            `json:"sigma"`
		TReal    map[string]float64 `json:"t_real"`
	} `json:"thm32"`
	Counter struct {
		Params     map[string]float64
		IMinReal   float64 `json:"i_min_real"`
		IMin       int     `json:"i_min"`
		Sigma      float64 `json:"sigma"`
		EpsPrinted float64 `json:"eps_printed"`
		EpsTight   float64 `json:"eps_tight"`
	} `json:"thm32_counterexample"`
	Profile struct {
		Cases []struct {
			Eps, Delta, S float64
			DeltaExact    float64 `json:"delta_exact"`
		}
	} `json:"gauss_profile"`
}

// d2dGolden is the whole of testdata/golden.json: one struct, so the strict reader can
// tell a key no test reads from a documented one.
type d2dGolden struct {
	goldenFile
	distGolden
	convexGolden
}

func loadGolden(t *testing.T) goldenFile { return testenv.ReadGolden[d2dGolden](t).goldenFile }

// relClose reports |got − want| ≤ tol·|want|.
func relClose(got, want, tol float64) bool { return math.Abs(got-want) <= tol*math.Abs(want) }

// printedTol is half a unit in the last printed significant digit of want, relative.
func printedTol(sig int) float64 { return 0.5 * math.Pow(10, float64(1-sig)) }

func paramsFrom(m map[string]float64, I int) Params {
	return Params{
		Constants: reference.Constants{Lipschitz: m["L"], Smoothness: m["M"], StrongConvexity: m["m"]},
		Radius:    m["diam"] / 2, N: int(m["n"]), Dim: int(m["d"]), Budget: I, Epsilon: m["eps"], Delta: m["delta"],
	}
}

func TestGoldenTheorem31(t *testing.T) {
	g := loadGolden(t).Thm31
	p := paramsFrom(g.Params, int(g.Params["I"]))
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want float64
		sig       int
	}{
		{"γ", p.Gamma(), g.GammaV, 12},
		{"η", p.StepSize(), g.EtaV, 12},
		{"Δ", p.SecretSensitivity(), g.DeltaSensV, 9},
		{"σ", p.SecretSigma(), g.SigmaV, 10},
		{"ρ*", dp.GaussianRho(p.SecretSensitivity(), p.SecretSigma()), g.RhoV, 10},
	}
	for _, c := range checks {
		if !relClose(c.got, c.want, printedTol(c.sig)) {
			t.Errorf("%s = %.12g, spec §4.10 gives %.12g", c.name, c.got, c.want)
		}
	}
	// T_min real value: I + ln(Diam m n/(2L))/ln(1/γ)
	tReal := float64(p.Budget) + math.Log(p.Diameter()*p.StrongConvexity*float64(p.N)/(2*p.Lipschitz))/math.Log(1/p.Gamma())
	if !relClose(tReal, g.TMinRealV, printedTol(10)) || p.LearnIterations(p.N) != g.TMin {
		t.Errorf("T_min = %.10g (→%d), spec gives %.10g (→%d)", tReal, p.LearnIterations(p.N), g.TMinRealV, g.TMin)
	}
	for I, want := range map[int]float64{1: g.SigmaI1V, 50: g.SigmaI50V} {
		q := p
		q.Budget = I
		if got := q.SecretSigma(); !relClose(got, want, printedTol(10)) {
			t.Errorf("σ(I=%d) = %.10g, spec gives %.10g", I, got, want)
		}
	}
}

func TestGoldenTheorem32(t *testing.T) {
	g := loadGolden(t).Thm32
	p := paramsFrom(g.Params, 1)
	gamma := p.Gamma()
	l2 := math.Log(2 / p.Delta)
	iminReal := math.Log(math.Sqrt(2*float64(p.Dim))/((1-gamma)*(math.Sqrt(2*l2+p.Epsilon)-math.Sqrt(2*l2)))) / math.Log(1/gamma)
	if !relClose(iminReal, g.IMinReal, printedTol(10)) || p.PerfectMinBudget() != g.IMin {
		t.Errorf("I_min = %.10g (→%d), spec gives %.10g (→%d)", iminReal, p.PerfectMinBudget(), g.IMinReal, g.IMin)
	}
	p.Budget = g.IMin
	if got := p.PerfectSigma(); !relClose(got, g.Sigma, printedTol(10)) {
		t.Errorf("σ = %.10g, spec gives %.10g", got, g.Sigma)
	}
	for k, want := range g.TReal {
		i, _ := strconv.Atoi(k)
		real := float64(p.Budget) + math.Log(math.Log(4*float64(p.Dim)*float64(i)/p.Delta))/math.Log(1/gamma)
		if !relClose(real, want, printedTol(9)) {
			t.Errorf("T_%d = %.10g, spec gives %.10g", i, real, want)
		}
		if got := p.PerfectUpdateIterations(i); got != int(math.Ceil(want)) {
			t.Errorf("T_%d rounds to %d, want ceil(%v)", i, got, want)
		}
	}
}

// TestTheorem32Counterexample reproduces the spec's FLAG: with the proof's printed Δ the
// stated σ certifies ε > 1; with the tight Δ it certifies ε < 1.
func TestTheorem32Counterexample(t *testing.T) {
	g := loadGolden(t).Counter
	p := paramsFrom(g.Params, 1)
	if got := p.PerfectMinBudget(); got != g.IMin {
		t.Fatalf("I_min → %d, spec gives %d", got, g.IMin)
	}
	p.Budget = g.IMin
	sigma := p.PerfectSigma()
	if !relClose(sigma, g.Sigma, printedTol(5)) {
		t.Errorf("σ = %.6g, spec gives %.6g", sigma, g.Sigma)
	}
	tight, printed := p.PerfectSensitivity(sigma)
	epsTight := p.PerfectCertifiedEpsilon(tight, sigma)
	epsPrinted := p.PerfectCertifiedEpsilon(printed, sigma)
	if !relClose(epsTight, g.EpsTight, printedTol(3)) || !relClose(epsPrinted, g.EpsPrinted, printedTol(4)) {
		t.Errorf("certified ε: tight %.4g (spec %.4g), printed %.4g (spec %.4g)", epsTight, g.EpsTight, epsPrinted, g.EpsPrinted)
	}
	if !(epsPrinted > p.Epsilon && epsTight <= p.Epsilon) {
		t.Errorf("want printed Δ to miss the target and tight Δ to meet it: %.4g, %.4g vs ε=%v", epsPrinted, epsTight, p.Epsilon)
	}
}

func TestGoldenGaussianProfile(t *testing.T) {
	for _, c := range loadGolden(t).Profile.Cases {
		l := math.Log(1 / c.Delta)
		s := math.Sqrt2 * (math.Sqrt(l+c.Eps) - math.Sqrt(l))
		if !relClose(s, c.S, printedTol(10)) {
			t.Errorf("ε=%v δ=%v: s = %.10g, spec gives %.10g", c.Eps, c.Delta, s, c.S)
		}
		if got := dp.GaussianExactDelta(c.Eps, s); !relClose(got, c.DeltaExact, printedTol(4)) {
			t.Errorf("ε=%v δ=%v: exact δ = %.4g, spec gives %.4g", c.Eps, c.Delta, got, c.DeltaExact)
		}
	}
}
