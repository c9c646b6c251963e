package dp

import (
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
	"pgregory.net/rapid"
)

type golden struct {
	RDP struct {
		Alpha, Delta      float64
		EpsR              float64 `json:"eps_r"`
		Classic, Improved float64
	} `json:"rdp_conversion"`
	OpenDP struct{ Rho, Delta, Epsilon float64 } `json:"opendp_zcdp"`
	Uni    struct{ Cases [][5]float64 }          `json:"univariate_renyi"`
}

func loadGolden(t *testing.T) golden { return testenv.ReadGolden[golden](t) }

func TestGoldenRDPConversion(t *testing.T) {
	g := loadGolden(t).RDP
	// the spec prints 4 significant digits: half a unit in the last digit is 5e-4 absolute
	if got := RDPToDP(Classic, g.Alpha, g.EpsR, g.Delta); math.Abs(got-g.Classic) > 5e-4 {
		t.Errorf("classic = %.6g, spec %.4g", got, g.Classic)
	}
	if got := RDPToDP(Improved, g.Alpha, g.EpsR, g.Delta); math.Abs(got-g.Improved) > 5e-4 {
		t.Errorf("improved = %.6g, spec %.4g", got, g.Improved)
	}
	// the δ form of the improved conversion agrees to machine precision (spec §3(d))
	eps := RDPToDP(Improved, g.Alpha, g.EpsR, g.Delta)
	a := g.Alpha
	delta := math.Exp((a-1)*(g.EpsR-eps)) / (a - 1) * math.Pow(1-1/a, a)
	if math.Abs(delta-g.Delta) > 1e-12*g.Delta {
		t.Errorf("δ form gives %.15g, want %g", delta, g.Delta)
	}
}

func TestGoldenOpenDPZCDP(t *testing.T) {
	g := loadGolden(t).OpenDP
	// OpenDP minimises the improved RDP bound over α exactly; our golden-section search
	// stops at a relative bracket of 1e-12, so agreement is to about 1e-10.
	if got := ZCDPToDPOptimal(g.Rho, g.Delta); math.Abs(got-g.Epsilon) > 1e-10 {
		t.Errorf("ε = %.16g, OpenDP gives %.16g", got, g.Epsilon)
	}
	// and it beats the simple bound and any grid
	if simple := ZCDPToDP(g.Rho, g.Delta); !(simple > g.Epsilon) {
		t.Errorf("simple bound %v should exceed the optimal %v", simple, g.Epsilon)
	}
}

// densityRenyi computes D_α between two univariate Gaussians by adaptive-free fixed
// Legendre quadrature of p^α q^{1−α} on ±40 standard deviations (error far below 1e-12
// for these smooth integrands at 2000 nodes).
func densityRenyi(alpha, m1, s1, m2, s2 float64) float64 {
	pdf := func(x, m, s float64) float64 { return math.Exp(-(x-m)*(x-m)/(2*s*s)) / (s * math.Sqrt(2*math.Pi)) }
	lo := math.Min(m1-40*s1, m2-40*s2)
	hi := math.Max(m1+40*s1, m2+40*s2)
	integral := quad.Fixed(func(x float64) float64 {
		return math.Pow(pdf(x, m1, s1), alpha) * math.Pow(pdf(x, m2, s2), 1-alpha)
	}, lo, hi, 2000, nil, 0)
	return math.Log(integral) / (alpha - 1)
}

func TestUnivariateRenyiAgainstQuadrature(t *testing.T) {
	for _, c := range loadGolden(t).Uni.Cases {
		alpha, m1, s1, m2, s2 := c[0], c[1], c[2], c[3], c[4]
		want := densityRenyi(alpha, m1, s1, m2, s2)
		iso := RenyiGaussianIsotropic(alpha, math.Abs(m1-m2), 1, s1, s2)
		gen := RenyiGaussian(alpha, []float64{m1}, mat.NewSymDense(1, []float64{s1 * s1}), []float64{m2}, mat.NewSymDense(1, []float64{s2 * s2}))
		if math.Abs(iso-want) > 1e-10 || math.Abs(gen-want) > 1e-10 {
			t.Errorf("%v: isotropic %.14g, general %.14g, quadrature %.14g", c, iso, gen, want)
		}
	}
}

func TestRenyiInfiniteNeverNaN(t *testing.T) {
	// α σ₂² + (1−α) σ₁² ≤ 0: α = 3, σ₁ = 2, σ₂ = 1 gives 3 − 8 < 0
	if v := RenyiGaussianIsotropic(3, 0.5, 4, 2, 1); !math.IsInf(v, 1) {
		t.Errorf("isotropic: got %v, want +Inf", v)
	}
	c1 := mat.NewSymDense(2, []float64{4, 0, 0, 4})
	c2 := mat.NewSymDense(2, []float64{1, 0, 0, 1})
	if v := RenyiGaussian(3, []float64{0, 0}, c1, []float64{1, 0}, c2); !math.IsInf(v, 1) {
		t.Errorf("general: got %v, want +Inf", v)
	}
	sing := mat.NewSymDense(2, []float64{1, 1, 1, 1})
	if v := RenyiGaussian(2, []float64{0, 0}, sing, []float64{0, 0}, c2); !math.IsInf(v, 1) {
		t.Errorf("singular covariance: got %v, want +Inf", v)
	}
	if v := RenyiGaussianIsotropic(2, 1, 3, 0, 1); !math.IsInf(v, 1) {
		t.Errorf("point mass against a Gaussian: got %v, want +Inf", v)
	}
	if v := RenyiGaussianIsotropic(2, 0, 3, 0, 0); v != 0 {
		t.Errorf("two equal point masses: got %v, want 0", v)
	}
}

func TestRenyiProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := rapid.IntRange(1, 6).Draw(t, "d")
		alpha := 1.05 + float64(rapid.IntRange(0, 1000).Draw(t, "alpha"))/100
		mu1, mu2 := make([]float64, d), make([]float64, d)
		for j := range mu1 {
			mu1[j] = float64(rapid.IntRange(-100, 100).Draw(t, "m1")) / 50
			mu2[j] = float64(rapid.IntRange(-100, 100).Draw(t, "m2")) / 50
		}
		s1 := 0.2 + float64(rapid.IntRange(0, 100).Draw(t, "s1"))/50
		s2 := 0.2 + float64(rapid.IntRange(0, 100).Draw(t, "s2"))/50
		dist := 0.0
		for j := range mu1 {
			dist += (mu1[j] - mu2[j]) * (mu1[j] - mu2[j])
		}
		dist = math.Sqrt(dist)
		iso := RenyiGaussianIsotropic(alpha, dist, d, s1, s2)
		eye := func(v float64) *mat.SymDense {
			m := mat.NewSymDense(d, nil)
			for j := range d {
				m.SetSym(j, j, v)
			}
			return m
		}
		gen := RenyiGaussian(alpha, mu1, eye(s1*s1), mu2, eye(s2*s2))
		if math.IsNaN(iso) || iso < 0 {
			t.Fatalf("D_α = %v", iso)
		}
		if math.IsInf(iso, 1) != math.IsInf(gen, 1) || !math.IsInf(iso, 1) && math.Abs(iso-gen) > 1e-9*(1+iso) {
			t.Fatalf("isotropic %v, general %v", iso, gen)
		}
		// equal covariance: α·dist²/(2σ²), and D_α is non-decreasing in α (van Erven–Harremoës)
		eq := RenyiGaussianIsotropic(alpha, dist, d, s1, s1)
		if want := alpha * dist * dist / (2 * s1 * s1); math.Abs(eq-want) > 1e-12*(1+want) {
			t.Fatalf("equal covariance %v, want %v", eq, want)
		}
		if higher := RenyiGaussianIsotropic(alpha+0.5, dist, d, s1, s2); higher < iso*(1-1e-12) {
			t.Fatalf("D_%v = %v < D_%v = %v", alpha+0.5, higher, alpha, iso)
		}
		// α → 1 tends to KL
		kl := KLGaussian(mu1, eye(s1*s1), mu2, eye(s2*s2))
		near := RenyiGaussianIsotropic(1+1e-7, dist, d, s1, s2)
		if math.Abs(near-kl) > 1e-5*(1+kl) {
			t.Fatalf("D_{1+1e-7} = %v, KL = %v", near, kl)
		}
	})
}

func TestGaussianMechanismProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// spec d2d §4.2 ranges: ε log-uniform [0.05, 10], δ log-uniform [1e-10, 1e-2]
		eps := 0.05 * math.Pow(200, float64(rapid.IntRange(0, 1000).Draw(t, "eps"))/1000)
		delta := 1e-10 * math.Pow(1e8, float64(rapid.IntRange(0, 1000).Draw(t, "delta"))/1000)
		sens := 0.01 + float64(rapid.IntRange(0, 1000).Draw(t, "sens"))/100
		sigma := GaussianSigma(sens, eps, delta)
		// exact inverse (spec d2d §4.3.1): GaussianEpsilon(Δ, GaussianSigma(Δ, ε, δ), δ) = ε
		if got := GaussianEpsilon(sens, sigma, delta); math.Abs(got-eps) > 1e-9*eps {
			t.Fatalf("GaussianEpsilon(GaussianSigma) = %v, want %v", got, eps)
		}
		// the mechanism depends on Δ/σ only: scaling both by 2^k changes nothing, even where Δ²
		// alone would under- or overflow (D2D's distributed Δ ∝ γ^a reaches 1e-160)
		k := math.Ldexp(1, rapid.IntRange(-600, 600).Draw(t, "scale"))
		if got := GaussianEpsilon(sens*k, sigma*k, delta); !(math.Abs(got-eps) <= 1e-9*eps) { // NaN fails too
			t.Fatalf("GaussianEpsilon(%v·Δ, %v·σ) = %v, want %v", k, k, got, eps)
		}
		// ρ* + 2√(ρ*ℓ) = ε (spec d2d §3.3)
		rho := GaussianRho(sens, sigma)
		if got := rho + 2*math.Sqrt(rho*math.Log(1/delta)); math.Abs(got-eps) > 1e-9*eps {
			t.Fatalf("ρ + 2√(ρℓ) = %v, want %v", got, eps)
		}
		// Lemma A.3 is conservative: the exact profile at its calibration is ≤ δ (spec §4.3.3)
		s := sens / sigma
		if got := GaussianExactDelta(eps, s); got > delta*(1+1e-9) {
			t.Fatalf("exact δ(ε=%v, s=%v) = %v > δ = %v", eps, s, got, delta)
		}
		// the exact ε inverts the exact profile
		ex := GaussianExactEpsilon(s, delta)
		if ex > eps*(1+1e-9) {
			t.Fatalf("exact ε %v exceeds the zCDP ε %v", ex, eps)
		}
		if ex > 0 && math.Abs(GaussianExactDelta(ex, s)-delta) > 1e-6*delta {
			t.Fatalf("δ(exact ε) = %v, want %v", GaussianExactDelta(ex, s), delta)
		}
		// σ increases in Δ, decreases in ε, increases as δ decreases (spec §4.3.2)
		if !(GaussianSigma(sens*1.1, eps, delta) > sigma && GaussianSigma(sens, eps*1.1, delta) < sigma && GaussianSigma(sens, eps, delta/2) > sigma) {
			t.Fatal("σ is not monotone as the formula says")
		}
		// RDP conversions: the improved one never exceeds the classic one
		a := 1.5 + float64(rapid.IntRange(0, 100).Draw(t, "a"))
		if RDPToDP(Improved, a, a*rho, delta) > RDPToDP(Classic, a, a*rho, delta)+1e-12 {
			t.Fatal("improved conversion exceeds the classic one")
		}
	})
}

func TestLogStdNormalCDFTail(t *testing.T) {
	// continuity across the switch to the asymptotic series
	a, b := LogStdNormalCDF(-36.9999), LogStdNormalCDF(-37.0001)
	if math.Abs(a-b) > 1e-2 || !(a > b) {
		t.Errorf("ln Φ around −37: %v, %v", a, b)
	}
	if v := LogStdNormalCDF(-1000); math.IsInf(v, 0) || math.IsNaN(v) {
		t.Errorf("ln Φ(−1000) = %v", v)
	}
}

// Bisect returns the least point found where a monotone predicate holds, to the asked
// precision, with either midpoint, and stops at the predicate's first error.
func TestBisect(t *testing.T) {
	arith := func(lo, hi float64) float64 { return (lo + hi) / 2 }
	geom := func(lo, hi float64) float64 { return math.Sqrt(lo * hi) }
	atLeast := func(c float64) func(float64) (bool, error) {
		return func(x float64) (bool, error) { return x >= c, nil }
	}
	x, err := Bisect(0, 1, arith, func(lo, hi float64) bool { return hi-lo <= 1e-9 }, atLeast(0.3))
	if err != nil || x < 0.3 || x > 0.3+1e-9 {
		t.Errorf("arithmetic: %v, %v; want within 1e-9 above 0.3", x, err)
	}
	x, err = Bisect(1, 1024, geom, func(lo, hi float64) bool { return hi/lo <= 1.01 }, atLeast(7))
	if err != nil || x < 7 || x > 7*1.01 {
		t.Errorf("geometric: %v, %v; want within 1 %% above 7", x, err)
	}
	boom := errors.New("boom")
	if _, err := Bisect(0, 1, arith, func(lo, hi float64) bool { return false }, func(float64) (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Errorf("error %v, want the predicate's", err)
	}
}

// RootGap is √(ℓ + ε) − √ℓ to within its four roundings (two square roots, their sum and
// the quotient, each at most 2⁻⁵³ relative: 4·2⁻⁵³ in all, to first order), against the
// difference in 1200-bit arithmetic, for ε from 1e-300 to 1e3: where the difference as
// written cancels (3·10⁻⁴ relative at ε = 1e-12, all of it below about 1e-16·ℓ).
func TestRootGap(t *testing.T) {
	exact := func(ell, eps float64) float64 {
		const prec = 1200 // ℓ + ε keeps ε down to 1e-300 (2⁻⁹⁹⁷ of ℓ) and 200 bits beyond
		a := new(big.Float).SetPrec(prec).Add(big.NewFloat(ell).SetPrec(prec), big.NewFloat(eps).SetPrec(prec))
		a.Sqrt(a)
		b := new(big.Float).SetPrec(prec).Sqrt(big.NewFloat(ell).SetPrec(prec))
		v, _ := a.Sub(a, b).Float64()
		return v
	}
	const tol = 4 * 0x1p-53 * 1.0001 // four roundings, and their second-order terms
	n := 0
	for _, delta := range []float64{1e-3, 1e-6, 1e-12} {
		ell := math.Log(1 / delta)
		for e := -300.0; e <= 3; e += 0.5 {
			eps := math.Pow(10, e)
			want := exact(ell, eps)
			if got := RootGap(ell, eps); math.Abs(got-want) > tol*want {
				t.Errorf("RootGap(%v, %v) = %v, want %v (relative error %.3g)", ell, eps, got, want, math.Abs(got-want)/want)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no cases")
	}
	// the σ a tiny ε needs, within the same roundings and the two of Δ/(√2·r)
	ell := math.Log(1e6)
	want := 1 / (math.Sqrt2 * exact(ell, 1e-12))
	if got := GaussianSigma(1, 1e-12, 1e-6); math.Abs(got-want) > 7*0x1p-53*want {
		t.Errorf("GaussianSigma(1, 1e-12, 1e-6) = %v, want %v", got, want)
	}
}
