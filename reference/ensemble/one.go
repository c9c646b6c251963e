package ensemble

import (
	"math"

	"github.com/unlearnaudit/unlearnaudit/reference/internal/logit"
)

// LogisticGradientOne sets g to the gradient at one model θ of the mean logistic loss over
// m rows plus (λ/2)‖θ‖², g = (1/m) Σᵢ φ'(xᵢᵀθ) xᵢ + λθ (X m × d row-major, y ±1), in one
// pass over the rows: eight at a time with AVX-512 (four with AVX2), their margins (xᵢᵀθ,
// sixteen lanes over the features), their derivatives (logit.Derivs, the bits
// LogisticGradient's weights have), and their terms added into g while the rows are still
// in L1, so each row comes from memory once.
// This is the one-model path, for a run that has no lockstep partners: LogisticGradient at
// k = 1 would vectorise over models, of which there is one. Its margins sum in another order
// than LogisticGradient's (lanes, not one chain over j), so its bits are not LogisticGradient's
// at k = 1, but they are within RoundingBound of them and of reference.Logistic's, and the
// assembly (AVX-512 or AVX2, whichever the CPU has) and the Go loops agree bit for bit (the
// row blocks do not change the sums: g takes its rows in order). It does not allocate.
func LogisticGradientOne(g, X, y, theta []float64, m, d int, lambda float64) {
	checkShapes("LogisticGradientOne", g, X, y, theta, nil, m, d, 1)
	for j, v := range theta[:d] {
		g[j] = lambda * v
	}
	inv := 1 / float64(m)
	const most = 2 * rowBlock // rows a block at most: eight with AVX-512, else four
	var u, w [most]float64
	wide := HasAsm && HasAVX512
	asm := HasAsm
	for i := 0; i < m; {
		r := min(rowBlock, m-i)
		if wide && m-i >= most {
			r = most
		}
		x := X[i*d : (i+r)*d]
		switch {
		case r == most:
			dotF64x8AVX512(&x[0], d, &theta[0], d, &u[0])
		case wide && r == rowBlock:
			dotF64x4AVX512(&x[0], d, &theta[0], d, &u[0])
		case asm && r == rowBlock:
			dotF64x2AVX2(&x[0], d, &theta[0], d, &u[0])
			dotF64x2AVX2(&x[2*d], d, &theta[0], d, &u[2])
		default:
			for q := range r {
				u[q] = dotOne(x[q*d:(q+1)*d], theta[:d])
			}
		}
		logit.Derivs(w[:r], u[:r], y[i:i+r], noClip[:r], inv)
		i += r
		switch {
		case r == most:
			axpyF64x8AVX512(&x[0], d, &w[0], d, &g[0])
			continue
		case wide && r == rowBlock:
			axpyF64x4AVX512(&x[0], d, &w[0], d, &g[0])
			continue
		case asm && r == rowBlock:
			axpyF64x4AVX2(&x[0], d, &w[0], d, &g[0])
			continue
		}
		for j := range d {
			s := g[j]
			for q := range r {
				s = math.FMA(x[q*d+j], w[q], s)
			}
			g[j] = s
		}
	}
}

// oneLanes is the lanes dotOne sums in (two AVX-512 registers).
const oneLanes = 16

// dotOne is xᵀθ as LogisticGradientOne's assembly sums it: lane l takes the terms
// j ≡ l (mod 16) for j below d rounded down to 16, one fused chain each; the lanes are then
// added l with l + 8, l with l + 4, l with l + 2, then the two left; the last d mod 16
// terms follow one fused step each, in order.
func dotOne(x, theta []float64) float64 {
	d := len(theta)
	d16 := d &^ (oneLanes - 1)
	var a [oneLanes]float64
	for j := 0; j < d16; j += oneLanes {
		xs, ts := x[j:j+oneLanes], theta[j:j+oneLanes]
		for l := range a {
			a[l] = math.FMA(xs[l], ts[l], a[l])
		}
	}
	for w := oneLanes / 2; w >= 1; w /= 2 {
		for l := range w {
			a[l] += a[l+w]
		}
	}
	s := a[0]
	for j := d16; j < d; j++ {
		s = math.FMA(x[j], theta[j], s)
	}
	return s
}
