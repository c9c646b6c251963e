package reference

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"pgregory.net/rapid"
)

// The gradients' derivatives are computed a block or a chunk at a time by the link's
// derivs (the logistic link's four at a time, logit.Derivs) and, in BatchGradient, in
// chunks of rows; both must give the bits of the row-at-a-time loop they replaced (every
// margin, then its derivative, then its term, rows in order), for the logistic and the
// (Huber-clipped) square loss, dense and sparse, clipped or not, with repeated rows and
// batches longer than a chunk, at margins past ±708 where Derivs hands lanes back to Go —
// and with what the package accepts beyond the usual: any finite label (0, −0, 2, 0.5,
// subnormal, 1e300), clip levels that make c_i NaN, +Inf, subnormal or tiny, and θ so
// large that margins overflow to ±Inf.
func TestGradientsAreTheRowLoopsBits(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n, d := rapid.IntRange(1, 150).Draw(t, "n"), rapid.IntRange(1, 9).Draw(t, "d")
		scale := rapid.SampledFrom([]float64{0.3, 3, 300, 3000, 1e306}).Draw(t, "scale")
		clip := rapid.SampledFrom([]float64{0, 0.5, 3, 1e-320, math.NaN(), math.Inf(1), -1, 1e-10}).Draw(t, "clip")
		recs := make([]Record, n)
		for i := range recs {
			x := make([]float64, d)
			for j := range x {
				if rapid.IntRange(0, 3).Draw(t, "nonzero") > 0 {
					x[j] = float64(rapid.IntRange(-1000, 1000).Draw(t, "x")) / 1000
				}
			}
			recs[i] = Record{ID: int64(i), X: x, Y: rapid.SampledFrom([]float64{1, -1, 0, math.Copysign(0, -1), 2, -2, 0.5, 3.7, 1e-310, 1e300}).Draw(t, "y")}
		}
		ds, err := FromRecords(d, recs)
		if err != nil {
			t.Fatal(err)
		}
		if rapid.Bool().Draw(t, "sparse") {
			m := CSR{Rows: n, Cols: d, Indptr: []int{0}}
			ids, y := make([]int64, n), make([]float64, n)
			for i, r := range recs {
				for j, v := range r.X {
					if v != 0 {
						m.Indices = append(m.Indices, int32(j))
						m.Values = append(m.Values, v)
					}
				}
				m.Indptr = append(m.Indptr, len(m.Values))
				ids[i], y[i] = r.ID, r.Y
			}
			if ds, err = NewSparseDataset(ids, &m, y); err != nil {
				t.Fatal(err)
			}
		}
		theta := make([]float64, d)
		for j := range theta {
			theta[j] = scale * float64(rapid.IntRange(-1000, 1000).Draw(t, "theta")) / 1000
		}
		rows := rapid.SliceOfN(rapid.IntRange(0, n-1), 1, 200).Draw(t, "rows")
		loss := Loss(Logistic{Lambda: 0.01, Clip: clip})
		if rapid.Bool().Draw(t, "square") {
			loss = Ridge{Lambda: 0.01, Clip: clip}
		}
		o := loss.Objective(ds)

		got, want := make([]float64, d), make([]float64, d)
		o.BatchGradient(got, theta, rows)
		inv := 1 / float64(len(rows))
		copy(want, theta)
		floats.Scale(o.lambda, want)
		for _, i := range rows {
			if o.sp != nil {
				o.sp.RowAddTo(want, inv*o.lk.deriv(o.sp.RowDot(i, theta), o.ds.y[i], o.clipAt[i]), i)
			} else {
				x := o.ds.x.RawRowView(i)
				floats.AddScaled(want, inv*o.lk.deriv(floats.Dot(x, theta), o.ds.y[i], o.clipAt[i]), x)
			}
		}
		sameBitsOrFail(t, "BatchGradient", got, want)

		o.Gradient(got, theta)
		inv = 1 / float64(n)
		copy(want, theta)
		blas64.Scal(o.lambda, vec(want))
		for lo := 0; lo < n; lo += gradBlock {
			hi := o.blockEnd(lo)
			o.rowsTimes(o.u[lo:hi], theta, lo)
			for i := lo; i < hi; i++ {
				o.w[i] = inv * o.lk.deriv(o.u[i], o.ds.y[i], o.clipAt[i])
			}
			o.addRowsT(want, o.w[lo:hi], lo)
		}
		sameBitsOrFail(t, "Gradient", got, want)
	})
}

func sameBitsOrFail(t *rapid.T, what string, got, want []float64) {
	for j := range got {
		if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
			t.Fatalf("%s: coordinate %d is %v, the row loop's %v", what, j, got[j], want[j])
		}
	}
}
