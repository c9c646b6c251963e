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

// LogisticHVP sets HV to the Hessian–vector products, at each of k models Θ and directions
// V (both d × k, column t model t and its direction), of LogisticGradient's objective:
//
//	HV = (1/m) Xᵀ (S ∘ XV) + λV,  S_it = σ(z_it)σ(−z_it), z = XΘ,
//
// with the same blocking, kernels and summation orders as LogisticGradient (so a model's
// product is the same bits wherever it sits among the k). It does not allocate.
func LogisticHVP(HV, X, y, Theta, V []float64, m, d, k int, lambda float64) {
	if m < 1 || d < 1 || k < 1 || len(X) < m*d || len(y) < m || len(Theta) < d*k || len(V) < d*k || len(HV) < d*k {
		panic(fmt.Sprintf("ensemble: LogisticHVP: m = %d, d = %d, k = %d with len(X) = %d, len(y) = %d, len(Θ) = %d, len(V) = %d, len(HV) = %d",
			m, d, k, len(X), len(y), len(Theta), len(V), len(HV)))
	}
	for i, v := range V[:d*k] {
		HV[i] = lambda * v
	}
	inv := 1 / float64(m)
	var z, zv [rowBlock * panelCols]float64
	for c0 := 0; c0 < k; c0 += panelGroup {
		c1 := min(c0+panelGroup, k)
		i := 0
		for ; i+rowBlock <= m; i += rowBlock {
			x := &X[i*d]
			c := c0
			for ; c+panelCols <= c1; c += panelCols {
				mul4x8(x, d, &Theta[c], k, d, &z[0])
				mul4x8(x, d, &V[c], k, d, &zv[0])
				for q := range z {
					z[q] = inv * logisticCurv(z[q]) * zv[q]
				}
				acc4x8(x, d, &z[0], d, &HV[c], k)
			}
			if c < c1 {
				hvpGeneric(HV, X, Theta, V, i, i+rowBlock, c, c1, d, k, inv)
			}
		}
		if i < m {
			hvpGeneric(HV, X, Theta, V, i, m, c0, c1, d, k, inv)
		}
	}
}

// logisticCurv is φ″(u) = σ(u)σ(−u), the same for both labels.
func logisticCurv(u float64) float64 {
	e := math.Exp(-math.Abs(u))
	return e / ((1 + e) * (1 + e))
}

// hvpGeneric is rowsGeneric for LogisticHVP.
func hvpGeneric(HV, X, Theta, V []float64, lo, hi, c0, c1, d, k int, inv float64) {
	for i := lo; i < hi; i++ {
		x := X[i*d : (i+1)*d]
		for c := c0; c < c1; c++ {
			var u, uv float64
			for j, xj := range x {
				u = math.FMA(xj, Theta[j*k+c], u)
			}
			for j, xj := range x {
				uv = math.FMA(xj, V[j*k+c], uv)
			}
			w := inv * logisticCurv(u) * uv
			for j, xj := range x {
				HV[j*k+c] = math.FMA(xj, w, HV[j*k+c])
			}
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
// a time: the edges the micro-kernels' blocks do not cover. It sums in the micro-kernels'
// order with their fused operations (xᵢᵀθ over j from 0, then G over the rows in order),
// so a model's gradient is the same bits wherever it sits among the k: in a panel or at
// the edge, in an ensemble of 1 or of 128.
func rowsGeneric(G, X, y, Theta []float64, lo, hi, c0, c1, d, k int, inv float64) {
	for i := lo; i < hi; i++ {
		x := X[i*d : (i+1)*d]
		for c := c0; c < c1; c++ {
			var u float64
			for j, xj := range x {
				u = math.FMA(xj, Theta[j*k+c], u)
			}
			w := inv * logisticDeriv(u, y[i])
			for j, xj := range x {
				G[j*k+c] = math.FMA(xj, w, G[j*k+c])
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

// RoundingBound bounds |G_jt − Ĝ_jt| between two float64 evaluations of model t's gradient
// coordinate j that sum in any orders, with or without fused operations (this package's and
// reference.Logistic's, say); u = 2⁻⁵³ and γ_n = nu/(1 − nu) (Higham, Accuracy and
// Stability of Numerical Algorithms, §3.1):
//
//   - each evaluation's xᵢᵀθ is off by at most γ_d Σ_j |x_ij θ_j|, so the two by twice that;
//   - φ' is ¼-Lipschitz, and σ costs exp (at most 1 ulp) and three operations, so the two
//     φ'ᵢ differ by at most ¼·|Δ(xᵢᵀθ)| + 2·5u|φ'ᵢ|;
//   - the sum (1/m)Σᵢ x_ij φ'ᵢ + λθ_j of m + 1 terms is off by γ_{m+2} of its absolute
//     terms in each evaluation (the scaling by 1/m included).
//
// Half of it bounds one evaluation's error against the exact gradient.
func RoundingBound(X, y, Theta []float64, m, d, k, j, t int, lambda float64) float64 {
	var b, abs float64
	for i := range m {
		var uAbs, ui float64
		for l := range d {
			uAbs += math.Abs(X[i*d+l] * Theta[l*k+t])
			ui += X[i*d+l] * Theta[l*k+t]
		}
		dphi := math.Abs(logisticDeriv(ui, y[i]))
		dDeriv := 0.25*2*Gamma(d)*uAbs + 2*5*Unit*dphi
		b += math.Abs(X[i*d+j]) * dDeriv / float64(m)
		abs += math.Abs(X[i*d+j]*dphi) / float64(m)
	}
	abs += math.Abs(lambda * Theta[j*k+t])
	return b + 2*Gamma(m+2)*abs
}

// Unit is float64's unit roundoff, 2⁻⁵³.
const Unit = 0x1p-53

// Gamma is Higham's γ_n = nu/(1 − nu): the relative error bound of n float64 operations.
func Gamma(n int) float64 { return float64(n) * Unit / (1 - float64(n)*Unit) }
