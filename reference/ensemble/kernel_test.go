package ensemble

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// problem draws m rows of d features (norm ≤ 1), ±1 labels and k models in the ball of
// radius 3, as Θ (d × k, column t model t).
func problem(m, d, k int, seed uint64) (X, y, Theta []float64) {
	r := rand.New(rand.NewPCG(seed, 7))
	X, y, Theta = make([]float64, m*d), make([]float64, m), make([]float64, d*k)
	for i := range m {
		var s float64
		for j := range d {
			X[i*d+j] = r.NormFloat64()
			s += X[i*d+j] * X[i*d+j]
		}
		for j := range d {
			X[i*d+j] /= math.Sqrt(s) * (1 + r.Float64())
		}
		y[i] = float64(1 - 2*r.IntN(2))
	}
	for i := range Theta {
		Theta[i] = 3 * r.NormFloat64() / math.Sqrt(float64(d))
	}
	return X, y, Theta
}

// gradientBound is a rounding bound on |G_jt − Ĝ_jt| between two float64 evaluations of
// the same gradient that sum in any orders (with or without FMA), u = 2⁻⁵³ and
// γ_n = nu/(1 − nu) (Higham, Accuracy and Stability, §3.1):
//
//   - each evaluation's uᵢ = xᵢᵀθ is off by at most γ_d Σ_j |x_ij θ_j|, so the two by twice that;
//   - φ' is ¼-Lipschitz, and σ costs exp (≤ 1 ulp) and three operations: |Δφ'ᵢ| ≤ ¼|Δuᵢ| + 2·5u|φ'ᵢ|;
//   - the sum (1/m)Σᵢ x_ij φ'ᵢ + λθ_j of m + 1 terms is off by γ_{m+2} of its absolute terms
//     in each evaluation (the 1/m scaling included).
func gradientBound(X, y, Theta []float64, m, d, k, j, t int, lambda float64) float64 {
	const u = 0x1p-53
	gamma := func(n int) float64 { return float64(n) * u / (1 - float64(n)*u) }
	var b, abs float64
	for i := range m {
		var uAbs, ui float64
		for l := range d {
			uAbs += math.Abs(X[i*d+l] * Theta[l*k+t])
			ui += X[i*d+l] * Theta[l*k+t]
		}
		dphi := math.Abs(logisticDeriv(ui, y[i]))
		dDeriv := 0.25*2*gamma(d)*uAbs + 2*5*u*dphi
		b += math.Abs(X[i*d+j]) * dDeriv / float64(m)
		abs += math.Abs(X[i*d+j]*dphi) / float64(m)
	}
	abs += math.Abs(lambda * Theta[j*k+t])
	return b + 2*gamma(m+2)*abs
}

// Every model's gradient is reference.Logistic's, one model at a time, within the rounding
// bound the two summation orders allow; the shapes cover full blocks, edge rows (m mod 4)
// and edge models (k mod 8), one group and several.
func TestLogisticGradientMatchesReference(t *testing.T) {
	for _, c := range []struct{ m, d, k int }{{37, 19, 13}, {64, 40, 8}, {9, 5, 1}, {130, 33, 70}, {3, 7, 9}} {
		X, y, Theta := problem(c.m, c.d, c.k, uint64(c.m*c.k))
		const lambda = 0.05
		G := make([]float64, c.d*c.k)
		LogisticGradient(G, X, y, Theta, c.m, c.d, c.k, lambda)
		ids := make([]int64, c.m)
		for i := range ids {
			ids[i] = int64(i)
		}
		ds, err := reference.NewDataset(ids, mat.NewDense(c.m, c.d, X), y)
		if err != nil {
			t.Fatal(err)
		}
		obj := reference.Logistic{Lambda: lambda}.Objective(ds)
		theta, g := make([]float64, c.d), make([]float64, c.d)
		worst := 0.0
		for tt := range c.k {
			for j := range c.d {
				theta[j] = Theta[j*c.k+tt]
			}
			obj.Gradient(g, theta)
			for j := range c.d {
				diff := math.Abs(G[j*c.k+tt] - g[j])
				bound := gradientBound(X, y, Theta, c.m, c.d, c.k, j, tt, lambda)
				if diff > bound {
					t.Fatalf("%+v: model %d, coordinate %d: %v against the reference's %v (off by %.3g, bound %.3g)", c, tt, j, G[j*c.k+tt], g[j], diff, bound)
				}
				worst = max(worst, diff/bound)
			}
		}
		t.Logf("%+v: worst difference %.3g of the rounding bound", c, worst)
	}
}

// The assembly and the pure-Go micro-kernels sum in the same order with the same fused
// operations: the gradients agree bit for bit.
func TestAsmMatchesGo(t *testing.T) {
	if !HasAsm {
		t.Skip("no AVX2 and FMA here: the pure-Go kernel is the only one")
	}
	X, y, Theta := problem(101, 50, 45, 3)
	a, b := make([]float64, 50*45), make([]float64, 50*45)
	LogisticGradient(a, X, y, Theta, 101, 50, 45, 0.1)
	HasAsm = false
	defer func() { HasAsm = true }()
	LogisticGradient(b, X, y, Theta, 101, 50, 45, 0.1)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("coordinate %d: assembly %v, Go %v", i, a[i], b[i])
		}
	}
}

func TestLogisticGradientAllocatesNothing(t *testing.T) {
	X, y, Theta := problem(64, 30, 16, 1)
	G := make([]float64, 30*16)
	if n := testing.AllocsPerRun(10, func() { LogisticGradient(G, X, y, Theta, 64, 30, 16, 0.1) }); n != 0 {
		t.Errorf("%v allocations a call", n)
	}
}

func TestLogisticGradientRefusesShortSlices(t *testing.T) {
	X, y, Theta := problem(8, 4, 2, 1)
	defer func() {
		if recover() == nil {
			t.Error("a G too short for d × k was accepted")
		}
	}()
	LogisticGradient(make([]float64, 7), X, y, Theta, 8, 4, 2, 0)
}
