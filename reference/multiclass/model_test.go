package multiclass

import (
	"math"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"pgregory.net/rapid"
)

// drawModel draws a small softmax model or MLP (one or two tanh layers).
func drawModel(t *rapid.T) Model {
	k := rapid.IntRange(2, 4).Draw(t, "classes")
	p := rapid.IntRange(1, 5).Draw(t, "inputs")
	lambda := rapid.Float64Range(0, 1).Draw(t, "lambda")
	if rapid.Bool().Draw(t, "mlp") {
		sizes := []int{p}
		for range rapid.IntRange(1, 2).Draw(t, "hidden layers") {
			sizes = append(sizes, rapid.IntRange(1, 5).Draw(t, "width"))
		}
		return MLP{Sizes: append(sizes, k), Lambda: lambda}
	}
	return Softmax{K: k, P: p, Lambda: lambda}
}

func drawVec(t *rapid.T, n int, name string) []float64 {
	return rapid.SliceOfN(rapid.Float64Range(-2, 2), n, n).Draw(t, name)
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// Gradients and Hessian–vector products agree with central differences of the loss and of
// the gradient. Central differences with step h err by h²/6·|f‴| (truncation) plus
// ε·|f|/h (rounding): with h = 1e-5, entries in [−2, 2] and at most 5 × 5 layers, about
// 1e-8, so the tolerance 1e-6·(1 + |value|) is the theory's with a margin, and a wrong
// term (a sign, a missing (1 − a²), the bias left out) is off by order 1.
func TestDerivativesMatchFiniteDifferences(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := drawModel(t)
		d := m.Dim()
		w, v := drawVec(t, d, "w"), drawVec(t, d, "v")
		x := drawVec(t, m.Inputs(), "x")
		y := rapid.IntRange(0, m.Classes()-1).Draw(t, "y")
		const h = 1e-5
		g, hv := make([]float64, d), make([]float64, d)
		m.Gradient(g, w, x, y)
		m.HVP(hv, w, x, y, v)
		plus, minus := make([]float64, d), make([]float64, d)
		gp, gm := make([]float64, d), make([]float64, d)
		for i := range d {
			copy(plus, w)
			copy(minus, w)
			plus[i] += h
			minus[i] -= h
			fd := (m.Loss(plus, x, y) - m.Loss(minus, x, y)) / (2 * h)
			if math.Abs(fd-g[i]) > 1e-6*(1+math.Abs(g[i])) {
				t.Fatalf("%s: ∂ℓ/∂w_%d = %v, central difference %v", m.Name(), i, g[i], fd)
			}
		}
		for i := range d {
			plus[i], minus[i] = w[i]+h*v[i], w[i]-h*v[i]
		}
		m.Gradient(gp, plus, x, y)
		m.Gradient(gm, minus, x, y)
		for i := range d {
			fd := (gp[i] - gm[i]) / (2 * h)
			if math.Abs(fd-hv[i]) > 1e-6*(1+math.Abs(hv[i])) {
				t.Fatalf("%s: (Hv)_%d = %v, central difference of gradients %v", m.Name(), i, hv[i], fd)
			}
		}
	})
}

// A Hessian is symmetric, so uᵀ(Hv) = vᵀ(Hu) for any u, v: exact up to the rounding of
// two sums of d products (relative 1e-10), whatever the model — a check that needs no
// step size and catches an R-operator term applied on one side only.
func TestHVPIsSymmetric(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := drawModel(t)
		d := m.Dim()
		w, u, v := drawVec(t, d, "w"), drawVec(t, d, "u"), drawVec(t, d, "v")
		x := drawVec(t, m.Inputs(), "x")
		y := rapid.IntRange(0, m.Classes()-1).Draw(t, "y")
		hu, hv := make([]float64, d), make([]float64, d)
		m.HVP(hu, w, x, y, u)
		m.HVP(hv, w, x, y, v)
		a, b := dot(u, hv), dot(v, hu)
		scale := 1 + math.Abs(a) + math.Sqrt(dot(u, u)*dot(hv, hv))
		if math.Abs(a-b) > 1e-10*scale {
			t.Fatalf("%s: uᵀHv = %v, vᵀHu = %v", m.Name(), a, b)
		}
	})
}

// Softmax's Hessian–vector product is its explicit Hessian times v, to rounding; the
// Hessian is symmetric with vᵀHv/‖v‖² in [λ, ½(‖x‖² + 1) + λ] (Smoothness); and the
// batch forms equal the mean of the per-example ones.
func TestSoftmaxExplicitHessianAndBatch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := Softmax{K: rapid.IntRange(2, 4).Draw(t, "K"), P: rapid.IntRange(1, 5).Draw(t, "p"), Lambda: rapid.Float64Range(0, 1).Draw(t, "λ")}
		d := s.Dim()
		w, v := drawVec(t, d, "w"), drawVec(t, d, "v")
		n := rapid.IntRange(1, 6).Draw(t, "rows")
		xs := drawVec(t, n*s.P, "x")
		ys := rapid.SliceOfN(rapid.IntRange(0, s.K-1), n, n).Draw(t, "y")
		x := xs[:s.P]
		hess := mat.NewSymDense(d, nil)
		full := s.Hessian(w, x)
		for i := range d {
			for j := range d {
				if full[i*d+j] != full[j*d+i] {
					t.Fatalf("Hessian not symmetric at (%d, %d)", i, j)
				}
				hess.SetSym(i, j, full[i*d+j])
			}
		}
		hv := make([]float64, d)
		s.HVP(hv, w, x, ys[0], v)
		want := mat.NewVecDense(d, nil)
		want.MulVec(hess, mat.NewVecDense(d, v))
		for i := range d {
			if math.Abs(hv[i]-want.AtVec(i)) > 1e-12*(1+math.Abs(hv[i])) {
				t.Fatalf("(Hv)_%d = %v, explicit Hessian gives %v", i, hv[i], want.AtVec(i))
			}
		}
		// Rayleigh quotient: λ‖v‖² ≤ vᵀHv ≤ M‖v‖² (no eigensolver: gonum's LAPACK panics
		// on matrices whose entries span 1e-150 to 1, which rapid draws)
		vv, vhv, m := dot(v, v), dot(v, hv), s.Smoothness(math.Sqrt(dot(x, x)))
		if vhv < s.Lambda*vv-1e-12*vv || vhv > m*vv+1e-12*vv {
			t.Fatalf("vᵀHv = %v outside [λ‖v‖², M‖v‖²] = [%v, %v]", vhv, s.Lambda*vv, m*vv)
		}

		data, err := NewData(mat.NewDense(n, s.P, xs), ys, s.K)
		if err != nil {
			t.Fatal(err)
		}
		b := s.NewBatch(n)
		raw := blas64.General{Rows: n, Cols: s.P, Stride: s.P, Data: xs}
		gotG, wantG, tmp := make([]float64, d), make([]float64, d), make([]float64, d)
		loss := b.Gradient(gotG, w, raw, ys)
		MeanGradient(s, wantG, tmp, w, data, nil)
		gotH, wantH := make([]float64, d), make([]float64, d)
		b.HVP(gotH, w, raw, v)
		MeanHVP(s, wantH, tmp, w, data, nil, v)
		// Linearize once, then HVPAt: the same products without recomputing the probabilities
		at := make([]float64, d)
		b.Linearize(w, raw)
		b.HVPAt(at, v)
		if !floats.Equal(at, gotH) {
			t.Fatalf("HVPAt %v, HVP %v", at, gotH)
		}
		for i := range d {
			if math.Abs(gotG[i]-wantG[i]) > 1e-12*(1+math.Abs(wantG[i])) || math.Abs(gotH[i]-wantH[i]) > 1e-12*(1+math.Abs(wantH[i])) {
				t.Fatalf("batch gradient/HVP entry %d: %v/%v, per-example means %v/%v", i, gotG[i], gotH[i], wantG[i], wantH[i])
			}
		}
		if want := MeanLoss(s, w, data, nil); math.Abs(loss-want) > 1e-12*(1+math.Abs(want)) {
			t.Fatalf("batch loss %v, per-example mean %v", loss, want)
		}
	})
}

// AddHessianSum's blocked products equal the sum of the explicit per-example Hessians:
// the same sums in another order, so 1e-12 relative to the entries' scale (n ≤ 6 terms of
// magnitude ≤ 5 each). A block placed transposed, a bias index off by one or λ counted
// once instead of n times breaks it.
func TestSoftmaxHessianSum(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := Softmax{K: rapid.IntRange(2, 4).Draw(t, "K"), P: rapid.IntRange(1, 5).Draw(t, "p"), Lambda: rapid.Float64Range(0, 1).Draw(t, "λ")}
		d := s.Dim()
		w := drawVec(t, d, "w")
		n := rapid.IntRange(0, 6).Draw(t, "rows")
		xs := drawVec(t, n*s.P, "x")
		want := make([]float64, d*d)
		for i := range n {
			for j, h := range s.Hessian(w, xs[i*s.P:(i+1)*s.P]) {
				want[j] += h
			}
		}
		got := make([]float64, d*d)
		s.AddHessianSum(got, w, blas64.General{Rows: n, Cols: s.P, Stride: s.P, Data: xs})
		for j := range got {
			if math.Abs(got[j]-want[j]) > 1e-12*(1+math.Abs(want[j])) {
				t.Fatalf("entry (%d, %d): blocked %v, per-example sum %v", j/d, j%d, got[j], want[j])
			}
		}
	})
}

// Labels outside 0 … K−1 and rows without labels are refused, naming the row; an MLP
// without a hidden layer is refused.
func TestBadShapes(t *testing.T) {
	if _, err := NewData(mat.NewDense(2, 1, []float64{1, 2}), []int{0, 3}, 3); err == nil {
		t.Error("label 3 of a 3-class model accepted")
	}
	if _, err := NewData(mat.NewDense(2, 1, []float64{1, 2}), []int{0}, 3); err == nil {
		t.Error("2 rows with 1 label accepted")
	}
	if err := (MLP{Sizes: []int{4, 3}}).Check(); err == nil {
		t.Error("an MLP without a hidden layer accepted")
	}
	if d := (MLP{Sizes: []int{13, 64, 3}}).Dim(); d != 64*14+3*65 {
		t.Errorf("Wine MLP has %d parameters, want %d", d, 64*14+3*65)
	}
	if d := (Softmax{K: 10, P: 784}).Dim(); d != 7850 {
		t.Errorf("MNIST softmax has %d parameters, want 7850", d)
	}
}

// Softmax's per-example loss, gradient and product allocate nothing up to 16 classes:
// HF's stages call them once per record per step.
func TestSoftmaxPerExampleDoesNotAllocate(t *testing.T) {
	s := Softmax{K: 10, P: 20, Lambda: 0.1}
	w, v, dst := make([]float64, s.Dim()), make([]float64, s.Dim()), make([]float64, s.Dim())
	x := make([]float64, s.P)
	for i := range x {
		x[i] = float64(i) / 20
	}
	if n := testing.AllocsPerRun(100, func() {
		s.Loss(w, x, 3)
		s.Gradient(dst, w, x, 3)
		s.HVP(dst, w, x, 3, v)
	}); n != 0 {
		t.Errorf("%v allocations per example", n)
	}
}

// Dataset and FromDataset are inverses: the features, labels and row order survive the
// round trip, and the IDs are the row numbers; a fractional label is refused.
func TestDatasetRoundTrip(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	d, _ := NewData(x, []int{2, 0, 1}, 3)
	ds, err := d.Dataset()
	if err != nil || ds.ID(2) != 2 || ds.Label(0) != 2 {
		t.Fatalf("Dataset: %v, id %d, label %v", err, ds.ID(2), ds.Label(0))
	}
	back, err := FromDataset(ds, 3)
	if err != nil || !mat.Equal(back.X, x) || back.Y[0] != 2 || back.Y[2] != 1 {
		t.Fatalf("FromDataset: %v, %v, %v", err, mat.Formatted(back.X), back.Y)
	}
	bad, _ := reference.NewDataset([]int64{1}, mat.NewDense(1, 1, []float64{0}), []float64{0.5})
	if _, err := FromDataset(bad, 3); err == nil {
		t.Error("label 0.5 accepted")
	}
}
