package estimate

import (
	"math"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// mulLowerT is gonum's z·lᵀ to the bit, on both sides of gonum's split between the
// serial unblocked product and the blocked one (fewer or more than 4 blocks of 64), at
// dimensions around the block width and the multiples of 4, on both sides of mulLowerT's
// own split over the cores; with Gaussian entries, and with small integers, whose sums
// cancel to exact zeros (the signed-zero cases the skipping must not change).
func TestMulLowerTIsGonumsProduct(t *testing.T) {
	r := reference.Stream(1, 0, "estimate/mullowert")
	cases := 0
	for _, d := range []int{1, 2, 3, 4, 5, 7, 31, 63, 64, 65, 66, 67, 68, 100, 127, 128, 129, 131, 190} {
		for _, m := range []int{1, 3, 64, 65, 129, 193, 257, 300} {
			for _, ints := range []bool{false, true} {
				z, l := mat.NewDense(m, d, nil), mat.NewDense(d, d, nil)
				val := func() float64 {
					if ints {
						return float64(r.IntN(5) - 2)
					}
					return r.NormFloat64()
				}
				for i := range m {
					for j := range d {
						z.Set(i, j, val())
					}
				}
				for i := range d {
					for j := 0; j <= i; j++ {
						l.Set(i, j, val())
					}
				}
				var want mat.Dense
				want.Mul(z, l.T())
				got := mat.NewDense(m, d, nil)
				got.Apply(func(int, int, float64) float64 { return math.NaN() }, got) // every entry must be written
				mulLowerT(got, z, l)
				for i := range m {
					for j := range d {
						if g, w := got.At(i, j), want.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
							t.Fatalf("m=%d d=%d integers %v: entry (%d, %d) is %v, gonum's %v", m, d, ints, i, j, g, w)
						}
					}
				}
				cases++
			}
		}
	}
	t.Logf("%d products compared", cases)
}

// syrkByRows is gonum's Syrk to the bit: row counts on each side of Gemv's groups of 4
// rows, dimensions up to past its blocks, Gaussian entries, small integers (exact zeros,
// so zero multipliers gonum skips, and sums cancelling to zero), whole zero columns, and
// tiny values whose multipliers underflow to zero.
func TestSyrkByRowsIsGonumsSyrk(t *testing.T) {
	r := reference.Stream(2, 0, "estimate/syrk")
	cases := 0
	for _, d := range []int{1, 2, 3, 4, 5, 9, 31, 64, 65, 100, 131} {
		for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 63, 300, 601} {
			for kind := range 4 {
				c := mat.NewDense(n, d, nil)
				for i := range n {
					for j := range d {
						switch kind {
						case 0:
							c.Set(i, j, r.NormFloat64())
						case 1:
							c.Set(i, j, float64(r.IntN(5)-2))
						case 2:
							if j%3 != 1 { // every third column zero
								c.Set(i, j, r.NormFloat64())
							}
						case 3:
							c.Set(i, j, r.NormFloat64()*[]float64{1e-300, 1, 1e150}[r.IntN(3)])
						}
					}
				}
				alpha := 1 / float64(n)
				want := mat.NewSymDense(d, nil)
				blas64.Syrk(blas.Trans, alpha, c.RawMatrix(), 0, want.RawSymmetric())
				got := mat.NewSymDense(d, nil)
				for i := range d {
					for j := i; j < d; j++ {
						got.SetSym(i, j, math.NaN()) // every entry must be written
					}
				}
				syrkByRows(got, c, alpha)
				for i := range d {
					for j := i; j < d; j++ {
						if g, w := got.At(i, j), want.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
							t.Fatalf("n=%d d=%d kind %d: entry (%d, %d) is %v, gonum's %v", n, d, kind, i, j, g, w)
						}
					}
				}
				cases++
			}
		}
	}
	t.Logf("%d products compared", cases)
}
