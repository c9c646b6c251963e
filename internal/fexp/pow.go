// Pow's steps past its special cases are Go's math.Pow (src/math/pow.go), Copyright 2009
// The Go Authors, BSD-style licence (NOTICE), with fexp.Exp for math.Exp.

package fexp

import "math"

// Pow is x^y, the bits math.Pow returns on an amd64 CPU with AVX and FMA, on every CPU.
// math.Pow raises x to y's fractional part with math.Exp(yf·log x) and to its integer
// part by squarings; only the first depends on the CPU. Wherever math.Pow does not reach
// it (special values, integer y, y = ±½, or math.Exp fusing), Pow is math.Pow; else it is
// math.Pow's own steps with Exp.
func Pow(x, y float64) float64 {
	if mathFuses {
		return math.Pow(x, y)
	}
	return powFMA(x, y)
}

// powFMA is math.Pow with expFMA for math.Exp: math.Pow itself where it does not reach
// math.Exp.
func powFMA(x, y float64) float64 {
	if y == 0 || x == 1 || y == 1 || math.IsNaN(x) || math.IsNaN(y) || x == 0 ||
		math.IsInf(y, 0) || math.IsInf(x, 0) || y == 0.5 || y == -0.5 {
		return math.Pow(x, y)
	}
	yi, yf := math.Modf(math.Abs(y))
	if yf == 0 || x < 0 {
		return math.Pow(x, y) // no math.Exp on these (a fractional y is below 2⁵², so yi is too)
	}
	if yf > 0.5 {
		yf--
		yi++
	}
	a1 := expFMA(float64(yf * math.Log(x))) // ans = a1·2^ae: x^yf first
	ae := 0
	x1, xe := math.Frexp(x)
	for i := int64(yi); i != 0; i >>= 1 { // then x^yi by squarings, by the bits of yi
		if xe < -1<<12 || 1<<12 < xe {
			ae += xe // past any float64's exponent: Ldexp under- or overflows
			break
		}
		if i&1 == 1 {
			a1 *= x1
			ae += xe
		}
		x1 *= x1
		xe <<= 1
		if x1 < .5 {
			x1 += x1
			xe--
		}
	}
	if y < 0 {
		a1 = 1 / a1
		ae = -ae
	}
	return math.Ldexp(a1, ae)
}
