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
	mb := b&(1<<52-1) | 1023<<52 // m in [1, 2)
	// Above √2, halve m and add 1 to e (both exact), without a branch: the comparison
	// goes either way at random, and a mispredicted branch cost more than the rest of
	// the reduction (the kernels blend too).
	big := b2u(math.Float64frombits(mb) > math.Sqrt2)
	m := math.Float64frombits(mb - big<<52)
	e += float64(big)
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

// The pure-Go path runs two transforms side by side: logUnit2 and sinCosTurns2 are
// logUnit and sinCosTurns of two arguments, the same operations in the same order (so
// the same bits: TestTwoAtOnceIsTwiceOne), their statements interleaved so that the
// processor overlaps the two chains of dependent multiplies and adds; one at a time, it
// waits on each (1.6× slower when measured).

// logUnit2 is logUnit(u1), logUnit(u2).
func logUnit2(u1, u2 float64) (float64, float64) {
	b1, b2 := math.Float64bits(u1), math.Float64bits(u2)
	e1, e2 := float64(int64(b1>>52)-1023), float64(int64(b2>>52)-1023)
	mb1, mb2 := b1&(1<<52-1)|1023<<52, b2&(1<<52-1)|1023<<52
	g1, g2 := b2u(math.Float64frombits(mb1) > math.Sqrt2), b2u(math.Float64frombits(mb2) > math.Sqrt2)
	m1, m2 := math.Float64frombits(mb1-g1<<52), math.Float64frombits(mb2-g2<<52)
	e1 += float64(g1)
	e2 += float64(g2)
	s1, s2 := (m1-1)/(m1+1), (m2-1)/(m2+1)
	z1, z2 := s1*s1, s2*s2
	const n = len(atanhCoef)
	p1, p2 := atanhCoef[n-1], atanhCoef[n-1]
	for k := n - 2; k >= 0; k-- {
		p1 = float64(p1*z1) + atanhCoef[k]
		p2 = float64(p2*z2) + atanhCoef[k]
	}
	return float64(e1*math.Ln2) + float64(2*s1*p1), float64(e2*math.Ln2) + float64(2*s2*p2)
}

// sinCosTurns2 is sinCosTurns(v1), sinCosTurns(v2).
func sinCosTurns2(v1, v2 float64) (s1, c1, s2, c2 float64) {
	t1, t2 := 4*v1, 4*v2
	k1, k2 := math.Floor(t1+0.5), math.Floor(t2+0.5)
	x1, x2 := (t1-k1)*(math.Pi/2), (t2-k2)*(math.Pi/2)
	z1, z2 := x1*x1, x2*x2
	const ns, nc = len(sinCoef), len(cosCoef)
	ps1, ps2 := sinCoef[ns-1], sinCoef[ns-1]
	for k := ns - 2; k >= 0; k-- {
		ps1 = float64(ps1*z1) + sinCoef[k]
		ps2 = float64(ps2*z2) + sinCoef[k]
	}
	pc1, pc2 := cosCoef[nc-1], cosCoef[nc-1]
	for k := nc - 2; k >= 0; k-- {
		pc1 = float64(pc1*z1) + cosCoef[k]
		pc2 = float64(pc2*z2) + cosCoef[k]
	}
	s1, c1 = quadrant(float64(x1*ps1), pc1, k1)
	s2, c2 = quadrant(float64(x2*ps2), pc2, k2)
	return s1, c1, s2, c2
}

// b2u is 1 for true, 0 for false (SETcc, no branch).
func b2u(b bool) uint64 {
	var u uint64
	if b {
		u = 1
	}
	return u
}
