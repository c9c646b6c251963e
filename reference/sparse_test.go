package reference_test

import (
	"bytes"
	"crypto/sha256"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"pgregory.net/rapid"
)

// sparsePair draws a dataset with many zero features and returns it dense and sparse.
func sparsePair(t *rapid.T) (dense, sparse *reference.Dataset) {
	n, d := rapid.IntRange(1, 12).Draw(t, "n"), rapid.IntRange(1, 12).Draw(t, "d")
	recs := make([]reference.Record, n)
	m := reference.CSR{Rows: n, Cols: d, Indptr: []int{0}}
	ids, y := make([]int64, n), make([]float64, n)
	for i := range recs {
		x := make([]float64, d)
		for j := range x {
			if rapid.IntRange(0, 2).Draw(t, "nonzero") == 0 {
				x[j] = float64(rapid.IntRange(-1000, 1000).Draw(t, "x")) / 500
			}
			if x[j] != 0 {
				m.Indices = append(m.Indices, int32(j))
				m.Values = append(m.Values, x[j])
			}
		}
		m.Indptr = append(m.Indptr, len(m.Values))
		ids[i], y[i] = int64(10*i+3), float64(2*rapid.IntRange(0, 1).Draw(t, "y")-1)
		recs[i] = reference.Record{ID: ids[i], X: x, Y: y[i]}
	}
	dense, err := reference.FromRecords(d, recs)
	if err != nil {
		t.Fatal(err)
	}
	sparse, err = reference.NewSparseDataset(ids, &m, y)
	if err != nil {
		t.Fatal(err)
	}
	return dense, sparse
}

// sameRows asserts two datasets hold the same IDs, labels and rows, bit for bit.
func sameRows(t *rapid.T, what string, a, b *reference.Dataset) {
	if a.Len() != b.Len() || a.Dim() != b.Dim() {
		t.Fatalf("%s: %d×%d vs %d×%d", what, a.Len(), a.Dim(), b.Len(), b.Dim())
	}
	for i := range a.Len() {
		if a.ID(i) != b.ID(i) || a.Label(i) != b.Label(i) || !slices.Equal(a.Row(i), b.Row(i)) {
			t.Fatalf("%s: row %d differs: %d %v %v vs %d %v %v", what, i, a.ID(i), a.Label(i), a.Row(i), b.ID(i), b.Label(i), b.Row(i))
		}
	}
}

// A sparse dataset is the same data as its dense form: every operation on records gives
// the same rows bit for bit and keeps the sparse form, and fingerprints agree.
func TestSparseDatasetOperationsMatchDense(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dense, sparse := sparsePair(t)
		sameRows(t, "as built", dense, sparse)
		var hd, hs bytes.Buffer
		dense.HashInto(&hd)
		sparse.HashInto(&hs)
		if sha256.Sum256(hd.Bytes()) != sha256.Sum256(hs.Bytes()) {
			t.Fatal("HashInto differs between the dense and the sparse form")
		}
		k := rapid.IntRange(0, dense.Len()-1).Draw(t, "drop")
		drop := dense.IDs()[:k]
		dw, err1 := dense.Without(drop...)
		sw, err2 := sparse.Without(drop...)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		sameRows(t, "Without", dw, sw)
		rec := reference.Record{ID: 1, X: make([]float64, dense.Dim()), Y: -1}
		rec.X[dense.Dim()-1] = 0.75
		da, err1 := dw.With(rec)
		sa, err2 := sw.With(rec)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		sameRows(t, "With", da, sa)
		for _, c := range []struct {
			name string
			f    func(*reference.Dataset) *reference.Dataset
		}{
			{"Scale", func(d *reference.Dataset) *reference.Dataset { return d.Scale(0.5) }},
			{"MaxAbsScale", (*reference.Dataset).MaxAbsScale},
			{"BinaryLabels", func(d *reference.Dataset) *reference.Dataset { return d.BinaryLabels(1) }},
		} {
			out := c.f(sa)
			if !out.IsSparse() {
				t.Fatalf("%s made the data dense", c.name)
			}
			sameRows(t, c.name, c.f(da), out)
		}
		// norms: Nrm2 over the stored values and over the dense row scale alike; allow the
		// last bits (relative 1e-15)
		for _, c := range []struct {
			name string
			f    func(*reference.Dataset) *reference.Dataset
		}{{"NormalizeRows", (*reference.Dataset).NormalizeRows}, {"ScaleToUnitBall", (*reference.Dataset).ScaleToUnitBall}} {
			a, b := c.f(da), c.f(sa)
			for i := range a.Len() {
				if dist := reference.Distance(a.Row(i), b.Row(i)); dist > 1e-15*(1+reference.Norm(a.Row(i))) {
					t.Fatalf("%s: row %d differs by %v", c.name, i, dist)
				}
			}
		}
		if got := sa.Standardize(); got.IsSparse() {
			t.Fatal("Standardize (centring) kept the data sparse")
		}
	})
}

// The losses evaluate sparse data directly, with the values of the dense evaluation. Both
// forms sum the same products in different orders (the dense kernels add zeros too), so
// they differ by at most the summation error 2(n + d)·u·S, u = 2⁻⁵³, with S the sum of
// the terms' magnitudes; S ≤ (1 + Σ|x_ij|)(1 + ‖θ‖₁)·c for the drawn scales (|φ'| ≤ 1 +
// |x·θ| + |y|, |φ”| ≤ 1), so the tolerance 1e-13·(1 + Σ|x|)(1 + ‖θ‖₁)(1 + ‖θ‖₁) covers it
// with room for n, d ≤ 12.
func TestSparseObjectiveMatchesDense(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dense, sparse := sparsePair(t)
		loss := drawLoss(t, rapid.Bool().Draw(t, "regression"))
		d := dense.Dim()
		theta := drawVec(t, d, 1, "theta")
		v := drawVec(t, d, 1, "v")
		var sumX float64
		for i := range dense.Len() {
			for _, x := range dense.Row(i) {
				sumX += math.Abs(x)
			}
		}
		l1 := 0.0
		for _, x := range theta {
			l1 += math.Abs(x)
		}
		tol := 1e-13 * (1 + sumX) * (1 + l1) * (1 + l1)
		od, os := loss.Objective(dense), loss.Objective(sparse)
		near := func(what string, a, b []float64) {
			if dist := reference.Distance(a, b); dist > tol {
				t.Fatalf("%s: dense %v, sparse %v (distance %v > %v)", what, a, b, dist, tol)
			}
		}
		if a, b := od.Value(theta), os.Value(theta); math.Abs(a-b) > tol {
			t.Fatalf("Value: %v vs %v", a, b)
		}
		gd, gs := make([]float64, d), make([]float64, d)
		od.Gradient(gd, theta)
		os.Gradient(gs, theta)
		near("Gradient", gd, gs)
		od.HessVec(gd, theta, v)
		os.HessVec(gs, theta, v)
		near("HessVec", gd, gs)
		od.CurvatureAt(theta).Apply(gd, v, 0.5)
		os.CurvatureAt(theta).Apply(gs, v, 0.5)
		near("Curvature.Apply", gd, gs)
		rows := []int{0, dense.Len() - 1, 0}
		od.BatchGradient(gd, theta, rows)
		os.BatchGradient(gs, theta, rows)
		near("BatchGradient", gd, gs)
		if a, b := od.BatchValue(theta, rows), os.BatchValue(theta, rows); math.Abs(a-b) > tol {
			t.Fatalf("BatchValue: %v vs %v", a, b)
		}
		od.ExampleGradient(gd, theta, dense.Len()-1)
		os.ExampleGradient(gs, theta, dense.Len()-1)
		near("ExampleGradient", gd, gs)
		for _, r := range []float64{1, 3} {
			cd, cs := loss.Constants(dense, r), loss.Constants(sparse, r)
			td, ts := loss.TightConstants(dense, r), loss.TightConstants(sparse, r)
			near("Constants", []float64{cd.Lipschitz, cd.Smoothness, cd.StrongConvexity, td.Lipschitz, td.Smoothness},
				[]float64{cs.Lipschitz, cs.Smoothness, cs.StrongConvexity, ts.Lipschitz, ts.Smoothness})
		}
		if a, b := reference.MinimiserRadius(loss, dense), reference.MinimiserRadius(loss, sparse); a != b {
			t.Fatalf("MinimiserRadius: %v vs %v", a, b)
		}
	})
}

// LIBSVM keeps text-like data sparse (60,000 features, two non-zeros a row) and dense
// data dense.
func TestParseLIBSVMChoosesTheForm(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		b.WriteString([]string{"-1", "+1"}[i%2] + " 1:0.5 60000:0.25\n")
	}
	wide, err := reference.ParseLIBSVM(strings.NewReader(b.String()), "wide", reference.LIBSVMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !wide.IsSparse() || wide.Sparse().NNZ() != 80 || wide.Dim() != 60000 {
		t.Fatalf("wide: sparse %v, %d stored, dimension %d; want sparse, 80, 60000", wide.IsSparse(), wide.Sparse().NNZ(), wide.Dim())
	}
	narrow, err := reference.ParseLIBSVM(strings.NewReader("+1 1:1 2:2\n-1 1:3 3:1\n"), "narrow", reference.LIBSVMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if narrow.IsSparse() {
		t.Fatal("a 2 × 3 file with 4 non-zeros was kept sparse")
	}
}

// One past the cap, a LIBSVM index is refused with the cap's name and how to raise it.
func TestParseLIBSVMRefusesIndexBeyondMaxValues(t *testing.T) {
	_, err := reference.ParseLIBSVM(strings.NewReader("+1 1:1\n-1 134217729:1\n"), "big.svm", reference.LIBSVMOptions{})
	if err == nil {
		t.Fatal("index 134217729 accepted")
	}
	for _, want := range []string{"big.svm:2", "reference.MaxValues", "--max-values"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}
