package ensemble

import (
	"fmt"
	"math"
	"unsafe"
)

// Block sizes: the micro-kernels work on rowBlock rows of X against panelCols models at a
// time; panelGroup models' parameters and gradients (2·d·panelGroup·8 bytes, 400 KB at
// d = 784) stay in the core's L2 cache while every row block passes over them.
const (
	rowBlock   = 4
	panelCols  = 8
	panelGroup = 32
)

// LogisticGradient sets G to the gradient, at each of k models, of the mean logistic loss
// over m rows plus (λ/2)‖θ‖²:
//
//	G = (1/m) Xᵀ R + λΘ,  R_it = −y_i σ(−y_i (XΘ)_it),
//
// with X the m × d rows (row-major, stride d), y their ±1 labels, and Θ and G d × k
// (row-major: column t is model t). It reads X once per group of 32 models, not once per
// model: the two matrix products run as a blocked matrix–matrix kernel (AVX2 and FMA
// assembly where the CPU has them, else the same blocking in Go), so k models cost far
// less than k gradients. It does not allocate.
func LogisticGradient(G, X, y, Theta []float64, m, d, k int, lambda float64) {
	if m < 1 || d < 1 || k < 1 || len(X) < m*d || len(y) < m || len(Theta) < d*k || len(G) < d*k {
		panic(fmt.Sprintf("ensemble: LogisticGradient: m = %d, d = %d, k = %d with len(X) = %d, len(y) = %d, len(Θ) = %d, len(G) = %d",
			m, d, k, len(X), len(y), len(Theta), len(G)))
	}
	for i, v := range Theta[:d*k] {
		G[i] = lambda * v
	}
	inv := 1 / float64(m)
	var z [rowBlock * panelCols]float64
	for c0 := 0; c0 < k; c0 += panelGroup {
		c1 := min(c0+panelGroup, k)
		i := 0
		for ; i+rowBlock <= m; i += rowBlock {
			x := &X[i*d]
			c := c0
			for ; c+panelCols <= c1; c += panelCols {
				mul4x8(x, d, &Theta[c], k, d, &z[0])
				for r := range rowBlock {
					yi := y[i+r]
					for t := range panelCols {
						z[r*panelCols+t] = inv * logisticDeriv(z[r*panelCols+t], yi)
					}
				}
				acc4x8(x, d, &z[0], d, &G[c], k)
			}
			if c < c1 {
				rowsGeneric(G, X, y, Theta, i, i+rowBlock, c, c1, d, k, inv)
			}
		}
		if i < m {
			rowsGeneric(G, X, y, Theta, i, m, c0, c1, d, k, inv)
		}
	}
}

// logisticDeriv is φ'(u) = −y σ(−y u) for the logistic link, computed without overflow.
func logisticDeriv(u, y float64) float64 {
	t := -y * u
	var s float64
	if t >= 0 {
		s = 1 / (1 + math.Exp(-t))
	} else {
		e := math.Exp(t)
		s = e / (1 + e)
	}
	return -y * s
}

// rowsGeneric adds rows lo..hi's terms for models c0..c1 to G, one row and one model at
// a time: the edges the micro-kernels' blocks do not cover.
func rowsGeneric(G, X, y, Theta []float64, lo, hi, c0, c1, d, k int, inv float64) {
	for i := lo; i < hi; i++ {
		x := X[i*d : (i+1)*d]
		for c := c0; c < c1; c++ {
			var u float64
			for j, xj := range x {
				u += xj * Theta[j*k+c]
			}
			w := inv * logisticDeriv(u, y[i])
			for j, xj := range x {
				G[j*k+c] += xj * w
			}
		}
	}
}

// mul4x8Go is the pure-Go micro-kernel: z (4 × 8, stride 8) = x (4 rows of d, stride ldx)
// times a (d × 8, stride lda).
func mul4x8Go(x *float64, ldx int, a *float64, lda, d int, z *float64) {
	xs := unsafe.Slice(x, 3*ldx+d)
	as := unsafe.Slice(a, (d-1)*lda+panelCols)
	zs := (*[rowBlock * panelCols]float64)(unsafe.Pointer(z))
	var acc [rowBlock][panelCols]float64
	for j := range d {
		ar := as[j*lda : j*lda+panelCols : j*lda+panelCols]
		for r := range rowBlock {
			xv := xs[r*ldx+j]
			for t, av := range ar {
				acc[r][t] = math.FMA(xv, av, acc[r][t])
			}
		}
	}
	for r := range rowBlock {
		copy(zs[r*panelCols:(r+1)*panelCols], acc[r][:])
	}
}

// acc4x8Go is the pure-Go micro-kernel: g (d × 8, stride ldg) += x (4 rows of d, stride
// ldx)ᵀ times z (4 × 8, stride 8).
func acc4x8Go(x *float64, ldx int, z *float64, d int, g *float64, ldg int) {
	xs := unsafe.Slice(x, 3*ldx+d)
	gs := unsafe.Slice(g, (d-1)*ldg+panelCols)
	zs := (*[rowBlock * panelCols]float64)(unsafe.Pointer(z))
	for j := range d {
		gr := gs[j*ldg : j*ldg+panelCols : j*ldg+panelCols]
		for r := range rowBlock {
			xv := xs[r*ldx+j]
			for t := range gr {
				gr[t] = math.FMA(xv, zs[r*panelCols+t], gr[t])
			}
		}
	}
}
