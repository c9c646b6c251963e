package philox

import "math"

// The transform's log and sine-cosine are written out here, not taken from package math,
// so that the values are the same on every machine and build: math.Sincos's pure-Go
// polynomial is fused into FMAs by the compiler at GOAMD64=v3 and not at v1 (Fill's bits
// differed between the two), and an assembly kernel cannot reproduce a library's internal
// choices. Each product here is rounded before its sum (an explicit float64 conversion, which
// the Go spec forbids fusing), so that mulpd then addpd lane by lane gives the same bits.
// Both are plain Taylor series on a reduced range, so their truncation error is bounded
// by the first dropped term, and branch-free: the two selects (the mantissa's halving, the
// quadrant) are blends in SIMD.

// The series' coefficients: 1/(2k+1) for atanh, ±1/n! for sine and cosine (Go's constant
// arithmetic is exact, each rounded once to float64).
var (
	atanhCoef = [...]float64{1, 1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11, 1.0 / 13, 1.0 / 15, 1.0 / 17, 1.0 / 19, 1.0 / 21}
	sinCoef   = [...]float64{1, -1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880, -1.0 / 39916800, 1.0 / 6227020800,
		-1.0 / 1307674368000, 1.0 / 355687428096000}
	cosCoef = [...]float64{1, -1.0 / 2, 1.0 / 24, -1.0 / 720, 1.0 / 40320, -1.0 / 3628800, 1.0 / 479001600,
		-1.0 / 87178291200, 1.0 / 20922789888000, -1.0 / 6402373705728000}
)

// horner is Σ c[k]·z^k, each product rounded before its sum.
func horner(c []float64, z float64) float64 {
	p := c[len(c)-1]
	for k := len(c) - 2; k >= 0; k-- {
		p = float64(p*z) + c[k]
	}
	return p
}

// logUnit is ln u for a normal float64 u in (0, 1]: u = m·2^e with m in [√½, √2), and
// ln m = 2·atanh(s) = 2s·Σ s^2k/(2k+1), s = (m−1)/(m+1), |s| ≤ 0.172. The series stops at
// s²¹⁻¹: the first dropped term is 6·10⁻¹⁹ of the sum.
func logUnit(u float64) float64 {
	b := math.Float64bits(u)
	e := float64(int64(b>>52) - 1023)
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52) // in [1, 2)
	if m > math.Sqrt2 {
		m, e = m*0.5, e+1 // exact
	}
	s := (m - 1) / (m + 1) // m−1 is exact (Sterbenz)
	return float64(e*math.Ln2) + float64(2*s*horner(atanhCoef[:], s*s))
}

// sinCosTurns is sin 2πv and cos 2πv for v in [0, 1): 4v = k + f with k an integer and
// |f| ≤ ½ exactly, x = f·π/2 in [−π/4, π/4], the series to x¹⁷ and x¹⁸ (the first dropped
// terms are below 10⁻¹⁹), then the quadrant k turns (sin x, cos x) by k right angles.
// Reducing in turns needs no Cody–Waite or Payne–Hanek step: 4v − k is exact.
func sinCosTurns(v float64) (sin, cos float64) {
	t := 4 * v
	k := math.Floor(t + 0.5)
	x := (t - k) * (math.Pi / 2)
	z := x * x
	s := float64(x * horner(sinCoef[:], z))
	c := horner(cosCoef[:], z)
	switch int(k) & 3 {
	case 0:
		return s, c
	case 1:
		return c, -s
	case 2:
		return -s, -c
	default:
		return -c, s
	}
}
