package reference_test

import (
	"math"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/props"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
	"pgregory.net/rapid"
)

// drawVec draws a vector on a grid in [−scale, scale]^d.
func drawVec(t *rapid.T, d int, scale float64, label string) []float64 {
	v := make([]float64, d)
	for j := range v {
		v[j] = scale * float64(rapid.IntRange(-1000, 1000).Draw(t, label)) / 1000
	}
	return v
}

func drawLoss(t *rapid.T, regression bool) reference.Loss {
	l := props.Loss(regression).Draw(t, "loss")
	if rapid.Bool().Draw(t, "clip") {
		c := float64(rapid.IntRange(1, 100).Draw(t, "clipAt")) / 100
		switch l := l.(type) {
		case reference.Logistic:
			return reference.Logistic{Lambda: l.Lambda, Clip: c}
		case reference.Ridge:
			return reference.Ridge{Lambda: l.Lambda, Clip: c}
		}
	}
	return l
}

func clipped(l reference.Loss) bool {
	switch l := l.(type) {
	case reference.Logistic:
		return l.Clip > 0
	case reference.Ridge:
		return l.Clip > 0
	}
	return false
}

// Central differences with step h have truncation error ≤ h²·sup|f‴|·‖v‖³/6 and rounding
// error ≤ 2·eps·|f|/h. With h = 1e-5, ‖v‖ = 1 and |f‴| ≤ 2 on these bounded data (the
// logistic φ‴ is at most 0.1, ridge's is 0) both are below 1e-9·(1 + |f|). A clipped loss
// is only C¹, but its gradient is M-Lipschitz (M the loss's smoothness), so the central
// difference is still within M·h/2 of the directional derivative.
const fdStep = 1e-5

func TestGradientMatchesFiniteDifferences(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		regression := rapid.Bool().Draw(t, "regression")
		ds := props.Dataset(props.DataConfig{Regression: regression, MaxRows: 16}).Draw(t, "data")
		loss := drawLoss(t, regression)
		obj := loss.Objective(ds)
		theta := drawVec(t, ds.Dim(), 3, "theta")
		v := drawVec(t, ds.Dim(), 1, "v")
		if reference.Norm(v) == 0 {
			return
		}
		for j := range v {
			v[j] /= reference.Norm(v)
		}
		g := make([]float64, ds.Dim())
		obj.Gradient(g, theta)
		plus, minus := shift(theta, v, fdStep), shift(theta, v, -fdStep)
		fd := (obj.Value(plus) - obj.Value(minus)) / (2 * fdStep)
		tol := 1e-9 * (1 + math.Abs(obj.Value(theta)))
		if clipped(loss) {
			tol += loss.Constants(ds, 3*math.Sqrt(float64(ds.Dim()))).Smoothness * fdStep / 2
		}
		if got := dot(g, v); math.Abs(got-fd) > tol {
			t.Fatalf("%s: ∇f·v = %.12g, finite difference %.12g", loss.Name(), got, fd)
		}
		// HVP against differences of the gradient. A clipped loss is C¹ but not C², so a
		// central difference may straddle a clip point; its HVP is checked only against the
		// dense Hessian below.
		hv := make([]float64, ds.Dim())
		obj.HessVec(hv, theta, v)
		if !clipped(loss) {
			gp, gm := make([]float64, ds.Dim()), make([]float64, ds.Dim())
			obj.Gradient(gp, plus)
			obj.Gradient(gm, minus)
			for j := range hv {
				if fdj := (gp[j] - gm[j]) / (2 * fdStep); math.Abs(hv[j]-fdj) > 1e-8 {
					t.Fatalf("%s: (Hv)_%d = %.12g, difference of gradients %.12g", loss.Name(), j, hv[j], fdj)
				}
			}
		}
		// the dense Hessian agrees with HVP (same arithmetic, different BLAS calls)
		h := mat.NewSymDense(ds.Dim(), nil)
		obj.Hessian(h, theta)
		var hvDense mat.VecDense
		hvDense.MulVec(h, mat.NewVecDense(len(v), v))
		for j := range hv {
			if math.Abs(hvDense.AtVec(j)-hv[j]) > 1e-12*(1+math.Abs(hv[j])) {
				t.Fatalf("Hessian·v = %v, HessVec = %v", hvDense.AtVec(j), hv[j])
			}
		}
	})
}

func shift(theta, v []float64, h float64) []float64 {
	out := make([]float64, len(theta))
	for j := range out {
		out[j] = theta[j] + h*v[j]
	}
	return out
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func TestGradientIsMeanOfExampleGradients(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		regression := rapid.Bool().Draw(t, "regression")
		ds := props.Dataset(props.DataConfig{Regression: regression, MaxRows: 16}).Draw(t, "data")
		loss := drawLoss(t, regression)
		obj := loss.Objective(ds)
		theta := drawVec(t, ds.Dim(), 3, "theta")
		d := ds.Dim()
		full, mean, ex, batch := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
		obj.Gradient(full, theta)
		var rows []int
		var value float64
		for i := range ds.Len() {
			loss.ExampleGradient(ex, theta, ds.Row(i), ds.Label(i))
			for j := range mean {
				mean[j] += ex[j] / float64(ds.Len())
			}
			rows = append(rows, i)
			value += loss.ExampleLoss(theta, ds.Row(i), ds.Label(i)) / float64(ds.Len())
		}
		obj.BatchGradient(batch, theta, rows)
		for j := range full {
			if math.Abs(full[j]-mean[j]) > 1e-12 || math.Abs(batch[j]-mean[j]) > 1e-12 {
				t.Fatalf("coordinate %d: full %v, batch %v, mean of examples %v", j, full[j], batch[j], mean[j])
			}
		}
		if v := obj.Value(theta); math.Abs(v-value) > 1e-12*(1+math.Abs(v)) {
			t.Fatalf("Value %v, mean of example losses %v", v, value)
		}
	})
}

// The tight Lipschitz constant is the exact supremum of the per-example gradient norm on
// the ball: no θ in the ball exceeds it, θ = −R·y·x/‖x‖ (logistic) attains it, and the
// papers' closed form is never below it.
func TestTightLipschitzIsTheSupremum(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		regression := rapid.Bool().Draw(t, "regression")
		ds := props.Dataset(props.DataConfig{Regression: regression, MaxRows: 8}).Draw(t, "data")
		loss := drawLoss(t, regression)
		radius := float64(rapid.IntRange(1, 20).Draw(t, "R"))
		tight := loss.TightConstants(ds, radius)
		paper := loss.Constants(ds, radius)
		if tight.Lipschitz > paper.Lipschitz*(1+1e-12) || tight.Smoothness > paper.Smoothness*(1+1e-12) {
			t.Fatalf("tight %+v exceeds the closed form %+v", tight, paper)
		}
		g := make([]float64, ds.Dim())
		var attained float64
		for i := range ds.Len() {
			x, y := ds.Row(i), ds.Label(i)
			xn := reference.Norm(x)
			for range 5 {
				theta := drawVec(t, ds.Dim(), radius, "theta")
				reference.ProjectBall(theta, radius)
				loss.ExampleGradient(g, theta, x, y)
				if n := reference.Norm(g); n > tight.Lipschitz*(1+1e-12) {
					t.Fatalf("‖∇f_z(θ)‖ = %v at ‖θ‖ ≤ %v exceeds the supremum %v", n, radius, tight.Lipschitz)
				}
			}
			if xn == 0 {
				continue
			}
			// the maximiser: θ = −R·y·x̂ for logistic (margin −R‖x‖), θ = −sign(y)·R·x̂ for
			// ridge (the residual as far from 0 as the ball allows)
			sign := -y
			if regression {
				sign = -math.Copysign(1, y)
			}
			arg := make([]float64, len(x))
			for j := range arg {
				arg[j] = sign * radius * x[j] / xn
			}
			loss.ExampleGradient(g, arg, x, y)
			attained = math.Max(attained, reference.Norm(g))
		}
		if attained > 0 && math.Abs(attained-tight.Lipschitz) > 1e-9*tight.Lipschitz {
			t.Fatalf("the maximiser gives ‖∇f‖ = %.12g, the supremum is %.12g", attained, tight.Lipschitz)
		}
	})
}

func TestClippingBoundsDataGradient(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		regression := rapid.Bool().Draw(t, "regression")
		ds := props.Dataset(props.DataConfig{Regression: regression, MaxRows: 8}).Draw(t, "data")
		c := float64(rapid.IntRange(1, 100).Draw(t, "clip")) / 100
		var loss reference.Loss = reference.Logistic{Clip: c}
		if regression {
			loss = reference.Ridge{Clip: c}
		}
		theta := drawVec(t, ds.Dim(), 5, "theta")
		g := make([]float64, ds.Dim())
		for i := range ds.Len() {
			loss.ExampleGradient(g, theta, ds.Row(i), ds.Label(i))
			if n := reference.Norm(g); n > c*(1+1e-12) {
				t.Fatalf("λ = 0, clip %v: ‖∇f_z‖ = %v", c, n)
			}
		}
	})
}

func TestProjectBall(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := drawVec(t, rapid.IntRange(1, 6).Draw(t, "d"), 10, "v")
		r := float64(rapid.IntRange(1, 100).Draw(t, "r")) / 10
		p := reference.ProjectBall(append([]float64(nil), v...), r)
		if n := reference.Norm(p); n > r*(1+1e-12) {
			t.Fatalf("projection has norm %v > %v", n, r)
		}
		if reference.Norm(v) <= r && reference.Distance(p, v) != 0 {
			t.Fatal("projection moved a point inside the ball")
		}
		// non-expansive against another point
		w := drawVec(t, len(v), 10, "w")
		q := reference.ProjectBall(append([]float64(nil), w...), r)
		if reference.Distance(p, q) > reference.Distance(v, w)*(1+1e-12)+1e-12 {
			t.Fatal("projection expanded a distance")
		}
	})
}

func TestStreamsAreDeterministicAndDistinct(t *testing.T) {
	a := reference.Stream(7, 3, "x").Float64()
	b := reference.Stream(7, 3, "x").Float64()
	if a != b {
		t.Fatal("same (seed, trial, purpose) gave different numbers")
	}
	for _, other := range []float64{reference.Stream(7, 4, "x").Float64(), reference.Stream(8, 3, "x").Float64(), reference.Stream(7, 3, "y").Float64()} {
		if other == a {
			t.Fatal("distinct streams gave the same first number")
		}
	}
}

// The two layouts of the products with X (row by row for data read from memory,
// matrix–vector kernels for data in cache) compute the same objective up to rounding. Each
// margin x_i·θ is a float64 dot product of d terms, whose rounding error is at most
// γ_d·s_i with s_i = Σ_k|x_ik θ_k| and γ_d = d·ε/(1 − d·ε) (Higham, Accuracy and
// Stability, §3.1), so two summation orders differ by at most 2γ_d·s_i. The link's
// derivative moves that by at most sup φ” times as much (1/4 logistic, 1 ridge), and the
// final Xᵀw sums n terms in both layouts, each with error at most γ_n·Σ_i|w_i x_ij|, where
// |w_i| ≤ (1 + s_i)/n for both losses. Then each layout scales by 1/n and adds λθ_j,
// two more roundings of at most ε/2 of (|g_j| + λ|θ_j|) each, so 2ε(|g_j| + λ|θ_j|) for
// the pair (a run at 2,000 checks found the two layouts one ulp apart with the earlier
// bound, which left these out). The value moves by at most |φ'| ≤ 1 + s_i per unit of
// margin, plus the rounding of its own sum of n terms.
func TestObjectiveLayoutsAgree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n, d := rapid.IntRange(1, 300).Draw(t, "n"), rapid.IntRange(1, 60).Draw(t, "d")
		ds := drawRecords(t, n, d)
		theta := drawVec(t, d, 3, "theta")
		eps := math.Nextafter(1, 2) - 1
		gamma := func(k int) float64 { return float64(k) * eps / (1 - float64(k)*eps) }
		s := make([]float64, n)
		for i := range n {
			for k, x := range ds.Row(i) {
				s[i] += math.Abs(x * theta[k])
			}
		}
		for _, loss := range []reference.Loss{reference.Logistic{Lambda: 0.1}, reference.Ridge{Lambda: 0.1}} {
			curv := 0.25
			if _, ok := loss.(reference.Ridge); ok {
				curv = 1
			}
			a, b := loss.Objective(ds), loss.Objective(ds)
			a.SetStreaming(true)
			b.SetStreaming(false)
			ga, gb := make([]float64, d), make([]float64, d)
			a.Gradient(ga, theta)
			b.Gradient(gb, theta)
			for j := range d {
				var tol float64
				for i := range n {
					x := math.Abs(ds.Row(i)[j])
					tol += x * (curv*2*gamma(d)*s[i] + 2*gamma(n)*(1+s[i])) / float64(n)
				}
				tol += 2 * eps * (math.Abs(gb[j]) + loss.Regularization()*math.Abs(theta[j]))
				if diff := math.Abs(ga[j] - gb[j]); diff > tol {
					t.Fatalf("%s: gradient[%d] row-wise %v, kernel %v: differ by %v > %v", loss.Name(), j, ga[j], gb[j], diff, tol)
				}
			}
			va, vb := a.Value(theta), b.Value(theta)
			var tol float64
			for i := range n {
				tol += (1 + s[i]) * 2 * gamma(d) * s[i] / float64(n)
			}
			tol += 2 * gamma(n) * math.Abs(va)
			if diff := math.Abs(va - vb); diff > tol {
				t.Fatalf("%s: value row-wise %v, kernel %v: differ by %v > %v", loss.Name(), va, vb, diff, tol)
			}
		}
	})
}

// For the logistic loss MinimiserRadius is max‖x‖/(2λ), bit for bit (halving is exact), so
// audits that used that formula keep their numbers; MostInfluential is the largest example
// gradient, found by brute force here.
func TestMinimiserRadiusAndMostInfluential(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n, d := rapid.IntRange(1, 40).Draw(t, "n"), rapid.IntRange(1, 6).Draw(t, "d")
		ds := drawRecords(t, n, d)
		lambda := float64(rapid.IntRange(1, 1000).Draw(t, "λ")) / 1000
		loss := reference.Logistic{Lambda: lambda}
		if got, want := reference.MinimiserRadius(loss, ds), ds.MaxRowNorm()/(2*lambda); got != want {
			t.Fatalf("MinimiserRadius %v, max‖x‖/(2λ) %v", got, want)
		}
		theta := drawVec(t, d, 3, "theta")
		row, norm := loss.Objective(ds).MostInfluential(theta)
		g := make([]float64, d)
		for i := range n {
			loss.ExampleGradient(g, theta, ds.Row(i), ds.Label(i))
			if reference.Norm(g) > norm {
				t.Fatalf("row %d's gradient %v exceeds the most influential row %d's %v", i, reference.Norm(g), row, norm)
			}
		}
	})
	if r := reference.MinimiserRadius(reference.Logistic{}, nil); !math.IsInf(r, 1) {
		t.Errorf("λ = 0: radius %v, want +Inf", r)
	}
}

// drawRecords draws n records of d features in [−2, 2] with labels ±1, IDs 0…n−1.
func drawRecords(t *rapid.T, n, d int) *reference.Dataset {
	rows := make([]reference.Record, n)
	for i := range rows {
		rows[i] = reference.Record{ID: int64(i), X: drawVec(t, d, 2, "x"), Y: float64(2*rapid.IntRange(0, 1).Draw(t, "y") - 1)}
	}
	ds, err := reference.FromRecords(d, rows)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}
