// expFMA's steps are Go's exp_amd64.s (FMA path), Copyright 2010 The Go Authors, BSD-style
// licence (NOTICE), translated to Go; its constants are Shibata's SLEEF's.

package fexp

import (
	"math"
)

// The constants of Go's exp_amd64.s (from Shibata's SLEEF): ln 2 split in two, log₂ e,
// the largest argument before overflow, and the series' coefficients 1/n!.
const (
	ln2U     = 0.69314718055966295651160180568695068359375
	ln2L     = 0.28235290563031577122588448175013436025525412068e-12
	log2e    = 1.4426950408889634073599246810018920
	overflow = 7.09782712893384e+02

	c2 = 0.5
	c3 = 1.6666666666666666667e-1
	c4 = 4.1666666666666666667e-2
	c5 = 8.3333333333333333333e-3
	c6 = 1.3888888888888888889e-3
	c7 = 1.9841269841269841270e-4
	c8 = 2.4801587301587301587e-5
)

// Exp is e^x, the bits math.Exp returns on an amd64 CPU with AVX and FMA (exp_amd64.s's
// FMA path), on every CPU and architecture: math.Exp itself where it takes that path
// (mathFuses), else expFMA.
func Exp(x float64) float64 {
	if mathFuses {
		return math.Exp(x)
	}
	return expFMA(x)
}

// expFMA is exp_amd64.s's FMA path in Go. Each step is one IEEE 754 operation, the fused
// ones math.FMA (exact in software where the CPU has no FMA), and every product is
// converted explicitly so that no compiler fuses it with the sum after it.
func expFMA(x float64) float64 {
	b := math.Float64bits(x)
	if b&^(1<<63) >= 0x7FF0000000000000 { // ±Inf or NaN
		if b == 0xFFF0000000000000 {
			return 0
		}
		return x
	}
	if x > overflow {
		return math.Inf(1)
	}
	e := roundInt32(float64(log2e * x)) // CVTSD2SL: to nearest, ties to even
	fe := float64(e)
	r := math.FMA(-fe, ln2U, x) // x − e·ln 2 in two fused steps
	r = math.FMA(-fe, ln2L, r)
	r = float64(r * 0.0625) // the argument reduced by 16 …
	p := math.FMA(c8, r, c7)
	p = math.FMA(p, r, c6)
	p = math.FMA(p, r, c5)
	p = math.FMA(p, r, c4)
	p = math.FMA(p, r, c3)
	p = math.FMA(p, r, c2)
	p = math.FMA(p, r, 1)
	r = float64(r * p) // e^r − 1 by the series, then squared back four times:
	for range 3 {      // (e^r − 1)(e^r + 1) = e^2r − 1
		q := r + 2
		r = float64(r * q)
	}
	q := r + 2
	r = math.FMA(r, q, 1) // … plus one: e^(x − e·ln 2)
	return scale(r, e)
}

// roundInt32 is CVTSD2SL under the default rounding: t to the nearest int32, ties to even,
// and the integer indefinite −2³¹ where that is out of range (t is not NaN here).
func roundInt32(t float64) int32 {
	t = math.RoundToEven(t)
	if t < math.MinInt32 || t > math.MaxInt32 {
		return math.MinInt32
	}
	return int32(t)
}

// scale is r·2^e as exp_amd64.s's ldexp: a biased exponent in 32 bits, +Inf past the
// largest, and below the smallest normal two multiplications (2^(e+1022) then 2⁻¹⁰²²),
// 0 when e + 1023 < −52.
func scale(r float64, e int32) float64 {
	be := e + 0x3FF
	if be <= 0 {
		if be < -52 {
			return 0
		}
		r = float64(r * math.Float64frombits(uint64(uint32(be+0x3FE))<<52))
		be = 1
	}
	if be >= 0x7FF {
		return math.Inf(1)
	}
	return float64(r * math.Float64frombits(uint64(uint32(be))<<52))
}
