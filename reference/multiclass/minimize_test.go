package multiclass

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"pgregory.net/rapid"
)

// drawScaled draws n integers in [−k, k] and scales them by 1/k: values in [−1, 1] on a
// grid, without the extreme floats rapid's float generator leans toward.
func drawScaled(t *rapid.T, n int, name string) []float64 {
	const k = 1000
	ints := rapid.SliceOfN(rapid.IntRange(-k, k), n, n).Draw(t, name)
	out := make([]float64, n)
	for i, v := range ints {
		out[i] = float64(v) / k
	}
	return out
}

// drawProblem draws a softmax problem: rows of norm at most 2√p, random labels, λ in
// [0.01, 1] and a linear term of scale up to 5.
func drawProblem(t *rapid.T) (Softmax, *Data, []float64) {
	s := Softmax{K: rapid.IntRange(2, 4).Draw(t, "K"), P: rapid.IntRange(1, 5).Draw(t, "p"),
		Lambda: float64(rapid.IntRange(1, 100).Draw(t, "λ·100")) / 100}
	n := rapid.IntRange(1, 30).Draw(t, "n")
	xs := drawScaled(t, n*s.P, "x")
	floats.Scale(2, xs)
	ys := rapid.SliceOfN(rapid.IntRange(0, s.K-1), n, n).Draw(t, "y")
	data, err := NewData(mat.NewDense(n, s.P, xs), ys, s.K)
	if err != nil {
		t.Fatal(err)
	}
	b := drawScaled(t, s.Dim(), "b")
	floats.Scale(float64(rapid.IntRange(0, 5).Draw(t, "b scale")), b)
	return s, data, b
}

// perExampleGradient is ∇F summed example by example through Model.Gradient, not the
// Batch the Objective uses: an independent route to the same vector.
func perExampleGradient(m Model, data *Data, rows []int, linear, w []float64) []float64 {
	g, tmp := make([]float64, m.Dim()), make([]float64, m.Dim())
	for _, i := range rows {
		m.Gradient(tmp, w, data.Row(i), data.Y[i])
		floats.Add(g, tmp)
	}
	if linear != nil {
		floats.Add(g, linear)
	}
	return g
}

// Minimize reaches its tolerance on random softmax problems, checked by an independent
// gradient: F is λn-strongly convex, so ‖∇F(w)‖ ≤ tol puts w within tol/(λn) of the one
// minimiser, a proof of accuracy rather than a comparison. The Objective's own gradient
// and the per-example sum agree to rounding (1e-9 relative to the terms' scale: n ≤ 30
// sums of entries ≤ 10).
func TestMinimizeReachesTolerance(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, data, b := drawProblem(t)
		rows := make([]int, data.Len())
		for i := range rows {
			rows[i] = i
		}
		o, err := NewObjective(s, data, nil, b)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Minimize(context.Background(), o, nil, MinimizeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tol := 1e-10 * float64(data.Len())
		g := perExampleGradient(s, data, rows, b, res.W)
		own := make([]float64, s.Dim())
		o.Gradient(own, res.W)
		scale := 10 * float64(data.Len())
		for j := range g {
			if math.Abs(g[j]-own[j]) > 1e-9*scale {
				t.Fatalf("gradient entry %d: objective %v, per-example %v", j, own[j], g[j])
			}
		}
		if gn := floats.Norm(g, 2); gn > tol+1e-9*scale || res.Residual > tol {
			t.Fatalf("‖∇F‖ = %v (reported %v), want ≤ %v after %d Newton steps", gn, res.Residual, tol, res.Newton)
		}
	})
}

// On least squares the minimiser has a closed form, (XᵀX + nλI)w = Xᵀy − b: Minimize
// lands within Residual/(λn) of it (strong convexity), plus the closed form's own
// rounding (κ·2⁻⁵² relative, κ ≤ 1 + max‖x‖²/λ ≤ 2000 here, so 1e-9 with margin).
func TestMinimizeLeastSquaresClosedForm(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.IntRange(1, 5).Draw(t, "p")
		m := LeastSquares{P: p, Lambda: float64(rapid.IntRange(1, 100).Draw(t, "λ·100")) / 100}
		n := rapid.IntRange(1, 30).Draw(t, "n")
		xs := drawScaled(t, n*p, "x")
		ys := rapid.SliceOfN(rapid.IntRange(0, 2), n, n).Draw(t, "y")
		data, err := NewData(mat.NewDense(n, p, xs), ys, m.Classes())
		if err != nil {
			t.Fatal(err)
		}
		b := drawScaled(t, p, "b")
		o, _ := NewObjective(m, data, nil, b)
		res, err := Minimize(context.Background(), o, nil, MinimizeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a := mat.NewSymDense(p, nil)
		a.SymOuterK(1, data.X.T())
		rhs := mat.NewVecDense(p, nil)
		for i := range n {
			for j := range p {
				rhs.SetVec(j, rhs.AtVec(j)+float64(ys[i])*data.X.At(i, j))
			}
		}
		for j := range p {
			a.SetSym(j, j, a.At(j, j)+float64(n)*m.Lambda)
			rhs.SetVec(j, rhs.AtVec(j)-b[j])
		}
		var want mat.VecDense
		if err := want.SolveVec(a, rhs); err != nil {
			t.Fatal(err)
		}
		dist := floats.Distance(res.W, want.RawVector().Data, 2)
		if lim := res.Residual/(float64(n)*m.Lambda) + 1e-9*(1+mat.Norm(&want, 2)); dist > lim {
			t.Fatalf("‖w − w*‖ = %v; strong convexity allows %v", dist, lim)
		}
	})
}

// Solve meets its relative tolerance against the explicit Hessian sum: ‖H x − r‖ is
// recomputed with AddHessianSum, not the products the solver used.
func TestSolveAgainstExplicitHessian(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, data, _ := drawProblem(t)
		w := drawScaled(t, s.Dim(), "w")
		rhs := drawScaled(t, s.Dim(), "rhs")
		if floats.Norm(rhs, 2) == 0 {
			rhs[0] = 1
		}
		o, _ := NewObjective(s, data, nil, nil)
		const rel = 1e-10
		x, _, err := o.Solve(context.Background(), w, rhs, rel)
		if err != nil {
			t.Fatal(err)
		}
		d := s.Dim()
		h := make([]float64, d*d)
		s.AddHessianSum(h, w, blas64.General{Rows: data.Len(), Cols: s.P, Stride: s.P, Data: data.X.RawMatrix().Data})
		hx := mat.NewVecDense(d, nil)
		hx.MulVec(mat.NewDense(d, d, h), mat.NewVecDense(d, x))
		r := floats.Distance(hx.RawVector().Data, rhs, 2)
		// the explicit product rounds at 2⁻⁵²·‖H‖·‖x‖ beyond what CG measured
		if lim := rel*floats.Norm(rhs, 2) + 1e-12*mat.Norm(mat.NewDense(d, d, h), 2)*floats.Norm(x, 2); r > lim {
			t.Fatalf("‖Hx − r‖ = %v, want ≤ %v", r, lim)
		}
	})
}

// Bad input is refused with the reason: no rows, a row out of range, a linear term or
// start of the wrong length; an MLP whose Hessian is indefinite stops conjugate gradients
// with ErrNegativeCurvature instead of returning a wrong step.
func TestMinimizeRefuses(t *testing.T) {
	data, _ := NewData(mat.NewDense(2, 1, []float64{1, -1}), []int{0, 1}, 2)
	s := Softmax{K: 2, P: 1, Lambda: 0.1}
	if _, err := NewObjective(s, data, []int{2}, nil); err == nil {
		t.Error("row 2 of 2 accepted")
	}
	if _, err := NewObjective(s, data, nil, []float64{1}); err == nil {
		t.Error("a linear term of 1 entry for 4 parameters accepted")
	}
	empty, _ := NewObjective(s, data, []int{}, nil)
	if _, err := Minimize(context.Background(), empty, nil, MinimizeOptions{}); err == nil {
		t.Error("minimising over no rows accepted")
	}
	o, _ := NewObjective(s, data, nil, nil)
	if _, err := Minimize(context.Background(), o, []float64{0}, MinimizeOptions{}); err == nil {
		t.Error("a start of 1 entry accepted")
	}
	mlp := MLP{Sizes: []int{1, 2, 2}}
	w := []float64{3, -3, 0.5, -0.5, 2, -2, 2, -2, 0, 0}
	om, _ := NewObjective(mlp, data, nil, nil)
	// a direction of negative curvature: the MLP is not convex; seeded random directions
	// find one
	r := rand.New(rand.NewPCG(1, 2))
	hv := make([]float64, len(w))
	for range 1000 {
		v := make([]float64, len(w))
		for j := range v {
			v[j] = r.NormFloat64()
		}
		om.HVP(hv, w, v)
		if floats.Dot(v, hv) < 0 {
			if _, _, err := om.Solve(context.Background(), w, v, 1e-10); !errors.Is(err, ErrNegativeCurvature) {
				t.Errorf("solve along a negative-curvature right-hand side: %v; want ErrNegativeCurvature", err)
			}
			return
		}
	}
	t.Fatal("no negative-curvature direction among 1000 seeded draws; pick other weights")
}
