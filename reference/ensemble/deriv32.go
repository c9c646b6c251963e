package ensemble

import "math"

// logisticDeriv32 is φ'(u) = −y σ(−y u) in float32 arithmetic throughout: the derivative
// LogisticGradient32 weighs its rows by on every path (Go, AVX2, AVX-512), where before it
// was logisticDeriv's float64 value rounded to float32. In float64 the derivative took
// eight lanes a 512-bit register and a float64 exp and division, 4–7 % of a b = 128
// float32 epoch; here it takes sixteen, about a fifth of that (0.9 % in a profile). With
// t = −y·u (exact for y = ±1) and e = exp32(−|t|):
//
//	σ(t) = 1/(1 + e) for t ≥ 0,  e/(1 + e) for t < 0,
//
// each operation rounded once to float32 (no fused operations, so that every path, and
// the compiler on every architecture, gives the same bits). Its error against the exact
// derivative is at most 5·2⁻²⁴ of |φ'| plus 2⁻¹⁴⁹ (exp32's 3·2⁻²⁴ through σ, and 1 + e
// and the division's roundings; the 2⁻¹⁴⁹ is where e underflows to a subnormal), the
// budget RoundingBound32 gives it; TestLogisticDeriv32Accuracy measures it.
func logisticDeriv32(u, y float32) float32 {
	t := -y * u
	e := exp32(-float32(math.Abs(float64(t)))) // −|t| (−0 at t = ±0, as the kernels' sign bit set)
	num := e
	if t >= 0 {
		num = 1
	}
	return -y * (num / float32(1+e))
}

// exp32's constants: ln 2 = ln2Hi + ln2Lo with ln2Hi = 355/512 (9 bits, so k·ln2Hi is
// exact for |k| < 2¹⁵), log₂e rounded to float32, and P(r) ≈ (eʳ − 1 − r)/r² on
// |r| ≤ ln2/2 (a Chebyshev fit rounded to float32, asm/expcoef.py: eʳ to 2^−26.6).
const (
	log2e32 float32 = 1.4426950216293335
	ln2Hi32 float32 = 0.693359375
	ln2Lo32 float32 = -0.00021219444170128554
)

var exp32Coef = [5]float32{0.5, 0.16666577756404877, 0.041666556149721146, 0.008363173343241215, 0.0013926175888627768}

// exp32 is eˣ for x ≤ 0 (or NaN) in float32: k = round(x·log₂e) (to even), r = x − k·ln2
// (x − k·ln2Hi exact, then k·ln2Lo's rounded product subtracted), eʳ = 1 + (r + r²·P(r)) by
// Horner, each product and sum rounded once, then times 2ᵏ, rounded once where the result
// is subnormal (as AVX-512's VSCALEFPS rounds it). The kernels compute the same operations
// for |x| ≤ 87, where the result is normal, and leave the rest to it. Below −104, eˣ is
// less than half of float32's least subnormal: 0.
func exp32(x float32) float32 {
	if x < -104 {
		return 0
	}
	k := float32(math.RoundToEven(float64(x * log2e32)))
	r := x - float32(k*ln2Hi32)
	r -= float32(k * ln2Lo32)
	c := &exp32Coef
	p := float32(c[4]*r) + c[3]
	p = float32(p*r) + c[2]
	p = float32(p*r) + c[1]
	p = float32(p*r) + c[0]
	q := float32(float32(r*r) * p)
	er := 1 + float32(r+q)
	return float32(math.Ldexp(float64(er), int(k)))
}
