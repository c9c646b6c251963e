package hf

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"pgregory.net/rapid"
)

// hidden wraps a model so that NewSecondOrder cannot see it is a Softmax and assembles
// its Hessian from HVP columns, the route the MLP takes.
type hidden struct{ multiclass.Model }

// ridgeMinimizer is argmin Σ_{i∈rows} ½(wᵀx_i − y_i)² + (λ/2)‖w‖², solved exactly.
func ridgeMinimizer(t interface{ Fatal(...any) }, data *multiclass.Data, rows []int, lambda float64) []float64 {
	_, p := data.X.Dims()
	a := mat.NewSymDense(p, nil)
	b := mat.NewVecDense(p, nil)
	for _, i := range rows {
		x := data.Row(i)
		for j := range p {
			b.SetVec(j, b.AtVec(j)+float64(data.Y[i])*x[j])
			for k := j; k < p; k++ {
				a.SetSym(j, k, a.At(j, k)+x[j]*x[k])
			}
		}
	}
	for j := range p {
		a.SetSym(j, j, a.At(j, j)+float64(len(rows))*lambda)
	}
	var chol mat.Cholesky
	if !chol.Factorize(a) {
		t.Fatal("ridge system not positive definite")
	}
	var w mat.VecDense
	if err := chol.SolveVecTo(&w, b); err != nil {
		t.Fatal(err)
	}
	return w.RawVector().Data
}

func complement(n int, removed []int) []int {
	gone := map[int]bool{}
	for _, r := range removed {
		gone[r] = true
	}
	var out []int
	for i := range n {
		if !gone[i] {
			out = append(out, i)
		}
	}
	return out
}

// On a quadratic loss one Newton step is exact: from the full data's minimiser, NS (Eq.
// 15, no damping) lands on the remaining data's minimiser, the exact ERM retrain. The
// tolerance is the two solves' rounding, κ·d·u with the condition number κ ≤ (‖X‖²+nλ)/(nλ)
// kept below 1e4 by λ ≥ 0.05 and n ≤ 16 rows of norm ≈ 1: 1e-8 relative has a margin of
// 10³. A sign error, a missing or doubled removed Hessian, or IJ's full matrix (which is
// what Jackknife uses) misses by the deleted records' leverage, orders more.
func TestNewtonStepIsExactOnQuadratics(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := draw(t, "least-squares")
		lambda := in.tr.Config.Model.Regularization()
		if lambda < 0.05 {
			t.Skip("ill-conditioned")
		}
		n := in.data.Len()
		removed := drawSubset(t, n, "U")
		if len(removed) == n {
			return
		}
		full := ridgeMinimizer(t, in.data, seqInts(n), lambda)
		so, err := NewSecondOrder(ctx, in.tr.Config.Model, in.data, full, SecondOrderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ns, err := so.NewtonStep(ctx, removed)
		if err != nil {
			t.Fatal(err)
		}
		want := ridgeMinimizer(t, in.data, complement(n, removed), lambda)
		if gap := norm(sub(ns, want)); gap > 1e-8*(1+norm(want)) {
			t.Fatalf("NS %v, exact retrain %v: gap %.3g", ns, want, gap)
		}
	})
}

// IJ and NS solve their linear systems: checked through the models' own Hessian–vector
// products, not the assembled matrix, so a wrong assembly (a transposed block, a missing
// bias, the damping on the sum instead of the mean) shows. The Cholesky solve is backward
// stable, residual ≤ c·d²·u·‖H‖‖Δw‖ ≈ 2.5e-14·‖H‖‖Δw‖ at d ≤ 15 here (‖H‖ bounded by the
// Frobenius norm of the sum plus its diagonal terms); the 1e-9 bound leaves a margin of
// 10⁴. Both the equations' form and CodeCompat's (cross-entropy only, mean gradient).
func TestSecondOrderSolvesItsSystem(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := draw(t, "softmax", "mlp")
		m := in.tr.Config.Model
		code := rapid.Bool().Draw(t, "code compat")
		opt := SecondOrderOptions{Damping: rapid.SampledFrom([]float64{0, 0.01, 0.5}).Draw(t, "damping"), CodeCompat: code}
		if code && opt.Damping == 0 {
			opt.Damping = 0.01 // softmax's cross-entropy alone is singular (one vector added to every class)
		}
		if _, isMLP := m.(multiclass.MLP); isMLP {
			opt.Damping = 4 // the tanh network's Hessian can be indefinite; its mean is above −3.3
		}
		n := in.data.Len()
		w := in.tr.Final
		so, err := NewSecondOrder(ctx, m, in.data, w, opt)
		if err != nil {
			t.Skip(err) // indefinite: refused, which the refusal test covers
		}
		removed := drawSubset(t, n, "U")
		if len(removed) == 0 || len(removed) == n {
			return
		}
		check := func(name string, got []float64, rows []int) {
			dw := sub(got, w)
			lhs := make([]float64, len(w))
			hv := make([]float64, len(w))
			for _, i := range rows {
				m.HVP(hv, w, in.data.Row(i), in.data.Y[i], dw)
				if code {
					floats.AddScaled(hv, -m.Regularization(), dw)
				}
				floats.Add(lhs, hv)
			}
			floats.AddScaled(lhs, float64(len(rows))*opt.Damping, dw)
			rhs, g := make([]float64, len(w)), make([]float64, len(w))
			for _, i := range removed {
				m.Gradient(g, w, in.data.Row(i), in.data.Y[i])
				if code {
					floats.AddScaled(g, -m.Regularization(), w)
				}
				floats.Add(rhs, g)
			}
			if code {
				floats.Scale(1/float64(len(removed)), rhs)
			}
			scale := (mat.Norm(so.sum, 2) + float64(n)*(opt.Damping+m.Regularization())*math.Sqrt(float64(len(w)))) * norm(dw)
			if r := norm(sub(lhs, rhs)); r > 1e-9*(norm(rhs)+scale) {
				t.Fatalf("%s: residual %.3g of ‖rhs‖ %.3g", name, r, norm(rhs))
			}
		}
		ij, err := so.Jackknife(removed)
		if err != nil {
			t.Fatal(err)
		}
		check("IJ", ij, seqInts(n))
		ns, err := so.NewtonStep(ctx, removed)
		if err != nil {
			t.Skip(err)
		}
		check("NS", ns, complement(n, removed))
	})
}

// The Hessian assembled from HVP columns (the MLP's route) equals softmax's explicit one:
// both are the same sums, so they agree to rounding, 1e-12 relative.
func TestHessianAssemblyRoutesAgree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := draw(t, "softmax")
		a, err := NewSecondOrder(ctx, in.tr.Config.Model, in.data, in.tr.Final, SecondOrderOptions{Damping: 0.01})
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewSecondOrder(ctx, hidden{in.tr.Config.Model}, in.data, in.tr.Final, SecondOrderOptions{Damping: 0.01})
		if err != nil {
			t.Fatal(err)
		}
		ha, hb := a.sum.RawSymmetric().Data, b.sum.RawSymmetric().Data
		if gap := norm(sub(ha, hb)); gap > 1e-12*(1+norm(ha)) {
			t.Fatalf("explicit and HVP-assembled Hessian sums differ by %.3g", gap)
		}
	})
}

func TestSecondOrderRefusals(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	x := mat.NewDense(4, 2, nil)
	for i := range 4 {
		x.Set(i, 0, r.NormFloat64())
		x.Set(i, 1, r.NormFloat64())
	}
	data, _ := multiclass.NewData(x, []int{0, 1, 0, 1}, 2)
	m := multiclass.Softmax{K: 2, P: 2, Lambda: 0.1}
	w := make([]float64, m.Dim())
	if _, err := NewSecondOrder(ctx, m, data, w[:2], SecondOrderOptions{}); !contains(err, "w has 2 entries") {
		t.Errorf("short w: %v", err)
	}
	if _, err := NewSecondOrder(ctx, m, data, w, SecondOrderOptions{Damping: -1}); !contains(err, "damping") {
		t.Errorf("negative damping: %v", err)
	}
	// softmax's Hessian has the null direction of adding one vector to every class, so
	// cross-entropy alone without damping is singular: refused, not solved to garbage
	if _, err := NewSecondOrder(ctx, m, data, w, SecondOrderOptions{CodeCompat: true}); !contains(err, "condition number") {
		t.Errorf("singular Hessian: %v", err)
	}
	so, err := NewSecondOrder(ctx, m, data, w, SecondOrderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := so.Jackknife([]int{1, 1}); !contains(err, "named twice") {
		t.Errorf("duplicate row: %v", err)
	}
	if _, err := so.NewtonStep(ctx, []int{7}); !contains(err, "row 7 is not in the data") {
		t.Errorf("row out of range: %v", err)
	}
	if got, err := so.Jackknife(nil); err != nil || norm(sub(got, w)) != 0 {
		t.Errorf("empty request moved the model: %v %v", got, err)
	}
}

// float32 storage: every entry within its rounding, 2⁻²⁴ relative (plus 2⁻¹⁴⁹ absolute
// below the normal range), and the noiseless model after deleting U within
// 2⁻²⁴·Σ|a^{-u}_j| of the float64 store's, coordinate by coordinate — the bound
// StoreFloat32 documents. A store that truncated to float16-like precision, or summed in
// float32, would break it.
func TestFloat32Statistics(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := draw(t, "softmax", "mlp")
		n := in.data.Len()
		s64, err := in.tr.Statistics(ctx, in.data, nil, PaperOrder)
		if err != nil {
			t.Fatal(err)
		}
		s32, err := in.tr.Statistics(ctx, in.data, nil, PaperOrder)
		if err != nil {
			t.Fatal(err)
		}
		bytes64 := s64.Bytes()
		s32.StoreFloat32()
		if !s32.Float32() || 2*s32.Bytes() != bytes64 {
			t.Fatalf("store %d bytes after StoreFloat32, %d before", s32.Bytes(), bytes64)
		}
		const u = 0x1p-24
		for i := range n {
			a, _ := s64.Of(i)
			b, _ := s32.Of(i)
			for j := range a {
				if math.Abs(a[j]-b[j]) > u*math.Abs(a[j])+0x1p-149 {
					t.Fatalf("a^{-%d}[%d]: %v stored as %v", i, j, a[j], b[j])
				}
			}
		}
		removed := drawSubset(t, n, "U")
		bound := make([]float64, len(in.tr.Final))
		for _, r := range removed {
			a, _ := s64.Of(r)
			for j, v := range a {
				bound[j] += u*math.Abs(v) + 0x1p-149
			}
		}
		u64, u32 := NewUnlearner(in.tr, s64), NewUnlearner(in.tr, s32)
		if err := u64.Delete(removed...); err != nil {
			t.Fatal(err)
		}
		if err := u32.Delete(removed...); err != nil {
			t.Fatal(err)
		}
		w64, w32 := u64.Model(), u32.Model()
		for j := range w64 {
			// the sums differ by the stored roundings, plus each sum's own float64 rounding
			slack := 4 * 0x1p-53 * (math.Abs(w64[j]) + bound[j]/u) * float64(len(removed)+1)
			if math.Abs(w64[j]-w32[j]) > bound[j]+slack {
				t.Fatalf("coordinate %d: %v with float64 statistics, %v with float32; bound %.3g", j, w64[j], w32[j], bound[j])
			}
		}
		if s32.Len() != n-len(removed) {
			t.Fatalf("%d statistics left after deleting %d of %d", s32.Len(), len(removed), n)
		}
	})
}
