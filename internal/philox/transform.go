package philox

import "math"

// The transform's log and sine-cosine are written out here, not taken from package math,
// so that the values are the same on every machine and build: math.Sincos's pure-Go
// polynomial is fused into FMAs by the compiler at GOAMD64=v3 and not at v1 (Fill's bits
// differed between the two), and an assembly kernel cannot reproduce a library's internal
// choices. Every operation here is one IEEE 754 operation, correctly rounded: the sums of products
// are math.FMA (fused, one rounding, in software where the CPU has no FMA), the other
// products explicit float64 conversions (which the Go spec forbids fusing), so that
// VFMADD231PD and VMULPD lane by lane give the same bits. Both are polynomials on a
// reduced range, evaluated by Estrin's scheme (short chains), and branch-free: the two
// selects (the mantissa's halving, the quadrant) are blends in SIMD.

// The polynomials' coefficients: near-minimax Chebyshev fits on the reduced ranges, each
// rounded once to float64 (asm/coef.py makes and checks them): atanhCoef for atanh(s)/s in
// z = s² on [0, 0.0295] (|s| ≤ (√2−1)/(√2+1) = 0.1716), within 2⁻⁵⁸ of it relatively;
// sinCoef for sin(πf/2)/f and cosCoef for cos(πf/2) in z = f² on [0, ¼] (|f| ≤ ½), within
// 2⁻⁵⁴·⁵ and 2⁻⁵⁵·⁴, the coefficients' rounding included. Taylor series need 11, 9 and
// 10 terms for these ranges (the first stream's, before issue 44); minimax needs 8, 7 and 8,
// and with π/2 folded into the coefficients f is their argument as it is, never rounded.
var (
	atanhCoef = [8]float64{1.0, 0.33333333333333826, 0.1999999999965097, 0.14285714380365935,
		0.11111098523544492, 0.09091816102189126, 0.076562570559619, 0.074049285724485}
	sinCoef = [7]float64{1.5707963267948966, -0.6459640975062443, 0.07969262624604301,
		-0.004681754132340976, 0.0001604411507421909, -3.59864335298231e-06, 5.633933781537854e-08}
	cosCoef = [8]float64{1.0, -1.2337005501361697, 0.2536695079010467, -0.02086348076331121,
		0.0009192602741831558, -2.520203677046026e-05, 4.710609726757823e-07, -6.321256869628588e-09}
)

// estrin8 is Σ c[k]·z^k by Estrin's scheme, given z² and z⁴: four pairs c[2j] + c[2j+1]·z,
// joined two by two by z², the two halves by z⁴, each step one fused multiply-add
// (math.FMA: one rounding, the same on every machine and build, and the kernels'
// VFMADD231PD). Its chain is three FMAs long where Horner's is seven.
func estrin8(c *[8]float64, z, z2, z4 float64) float64 {
	p0 := math.FMA(c[1], z, c[0])
	p1 := math.FMA(c[3], z, c[2])
	p2 := math.FMA(c[5], z, c[4])
	p3 := math.FMA(c[7], z, c[6])
	q0 := math.FMA(p1, z2, p0)
	q1 := math.FMA(p3, z2, p2)
	return math.FMA(q1, z4, q0)
}

// estrin7 is estrin8 without c[7]: the last pair is c[6] alone.
func estrin7(c *[7]float64, z, z2, z4 float64) float64 {
	p0 := math.FMA(c[1], z, c[0])
	p1 := math.FMA(c[3], z, c[2])
	p2 := math.FMA(c[5], z, c[4])
	q0 := math.FMA(p1, z2, p0)
	q1 := math.FMA(c[6], z2, p2)
	return math.FMA(q1, z4, q0)
}

// logUnit is ln u for a normal float64 u in (0, 1]: u = m·2^e with m in [√½, √2), and
// ln m = 2·atanh(s) = 2s·A(s²), s = (m−1)/(m+1), |s| ≤ 0.1716, A atanhCoef's polynomial;
// the sum e·ln 2 + 2s·A is one FMA.
func logUnit(u float64) float64 {
	b := math.Float64bits(u)
	e := float64(int64(b>>52) - 1023)
	mb := b&(1<<52-1) | 1023<<52 // m in [1, 2)
	// Above √2, halve m and add 1 to e (both exact), without a branch: the comparison
	// goes either way at random, and a mispredicted branch cost more than the rest of
	// the reduction (the kernels blend too).
	big := b2u(math.Float64frombits(mb) > math.Sqrt2)
	m := math.Float64frombits(mb - big<<52)
	e += float64(big)
	s := (m - 1) / (m + 1) // m−1 is exact (Sterbenz)
	z := float64(s * s)
	z2 := float64(z * z)
	return math.FMA(2*s, estrin8(&atanhCoef, z, z2, float64(z2*z2)), float64(e*math.Ln2))
}

// sinCosTurns is sin 2πv and cos 2πv for v in [0, 1): 4v = k + f with k an integer and
// |f| ≤ ½ exactly, sin(πf/2) = f·S(f²) and cos(πf/2) = C(f²) (sinCoef's and cosCoef's
// polynomials, sharing f²'s powers), then the quadrant k turns them by k right angles.
// Reducing in turns needs no Cody–Waite or Payne–Hanek step: 4v − k is exact, and with
// π/2 in the coefficients f is the polynomials' argument as it is, never rounded.
func sinCosTurns(v float64) (sin, cos float64) {
	t := 4 * v
	k := math.Floor(t + 0.5)
	f := t - k
	z := float64(f * f)
	z2 := float64(z * z)
	z4 := float64(z2 * z2)
	s := float64(f * estrin7(&sinCoef, z, z2, z4))
	c := estrin8(&cosCoef, z, z2, z4)
	return quadrant(s, c, k)
}

// quadrant turns (s, c) by k right angles: quadrant k mod 4 gives (s, c), (c, −s),
// (−s, −c), (−c, s): odd k swaps them, 2 and 3 negate the sine, 1 and 2 the cosine. It
// uses masks, not a switch: k is uniform, so a branch on it is mispredicted three
// times in four.
func quadrant(s, c, k float64) (sin, cos float64) {
	q := uint64(k) & 3
	swap := -(q & 1) // all ones for odd q
	sb, cb := math.Float64bits(s), math.Float64bits(c)
	sin = math.Float64frombits((sb&^swap | cb&swap) ^ (q>>1)<<63)
	cos = math.Float64frombits((cb&^swap | sb&swap) ^ ((q^q>>1)&1)<<63)
	return sin, cos
}

// b2u is 1 for true, 0 for false (SETcc, no branch).
func b2u(b bool) uint64 {
	var u uint64
	if b {
		u = 1
	}
	return u
}
