package ars

import "math"

// The float32 transform: FillWide's float32 normals, four a block, from the block's
// 32-bit words. Box–Muller in float32 arithmetic after an exact reduction, so that a SIMD
// kernel runs sixteen lanes a 512-bit register with series of four and five terms. Every
// operation is one correctly rounded IEEE 754 float32 operation (the sums of products
// fused, fma32), so that VFMADD231PS and the other packed instructions lane by lane give
// the same bits as this Go. It is written out here, not taken from package math, so that
// the values are the same on every machine and build (math.Sincos's pure-Go polynomial is
// fused into FMAs by the compiler at GOAMD64=v3 and not at v1) and an assembly kernel can
// reproduce it operation for operation.
//
// A pair of words (a, b) gives one radius and one angle:
//
//	u = (a + ½)·2⁻³²,  R = √(−2 ln u),  v = b·2⁻³²,  the normals R·cos 2πv, R·sin 2πv.
//
// The log: x = a + ½ is exact in float64, x = m·2^e with m in [√½, √2) (both exact), so
// −2 ln u = (32 − e)·2ln2 − 2 ln m, and with f = m − 1 (exact; then rounded once to
// float32, relatively: a u near 1 keeps its small log's digits) and s = f/(2 + f),
// −2 ln m = −4 atanh s = s·Q(s²). The angle: 4v = k + f, k the nearest integer, f in
// [−½, ½) read from b's low 30 bits as a signed integer (rounded once to float32,
// relatively: an angle near a right angle keeps its digits), sin(πf/2) = f·S(f²),
// cos(πf/2) = C(f²), turned by k right angles (quadrant32).

// The float32 series' coefficients: near-minimax fits of −4·atanh(s)/s in z = s² on
// [0, 0.02944] (|s| ≤ (√2−1)/(√2+1)), sin(πf/2)/f and cos(πf/2) in z = f² on [0, ¼],
// rounded to float32 (asm/coef.py makes and checks them): within 2⁻²⁹·², 2⁻²⁴·⁷ (the
// rounding of π/2, the first coefficient, is nearly all of it) and 2⁻²⁶·⁶ relatively.
var (
	atanh32Coef = [4]float32{-4, -1.333336353302002, -0.7994968891143799, -0.5984904170036316}
	sin32Coef   = [4]float32{1.5707963705062866, -0.6459634900093079, 0.07968021929264069, -0.004602149128913879}
	cos32Coef   = [5]float32{1, -1.2337005138397217, 0.25366920232772827, -0.02086007036268711, 0.0009036280680447817}
)

// ln2x2 is 2 ln 2 rounded to float32.
const ln2x2 = float32(2 * math.Ln2)

// fma32 is x·y + z rounded once to float32, as VFMADD231PS computes it. x·y is exact in
// float64 (24 + 24 bits), so the float64 sum s is x·y + z rounded once; rounding s again
// to float32 is the fused result unless s lies exactly halfway between two float32s and
// the sum was inexact, where the exact sum's side of s decides (double rounding's one
// failure, TestFMA32IsFused). That holds for all float32 operands, signed zeros,
// subnormals, overflow (its tie included), ±Inf and NaN as VFMADD231PS treats them.
func fma32(x, y, z float32) float32 {
	// The conversion keeps the compiler from fusing p into the sums below (arm64, ppc64,
	// s390x, riscv64, loong64 and GOAMD64=v3 do otherwise): p is exact, so a fused
	// p + z or s − p would give the same bits, but this way nothing rests on it.
	p := float64(float64(x) * float64(y))
	s := p + float64(z)
	r := float32(s)
	if float64(r) == s {
		return r // s is a float32: the exact sum is within half a float64 ulp of it
	}
	// The sum's rounding error, exactly (Knuth's TwoSum).
	bv := s - p
	e := (p - (s - bv)) + (float64(z) - bv)
	if e == 0 {
		return r
	}
	other := math.Nextafter32(r, float32(math.Copysign(math.Inf(1), s-float64(r))))
	mid := (float64(r) + float64(other)) / 2
	if math.IsInf(mid, 0) {
		// r or other is ±Inf: the tie rounding to it is ±(2¹²⁸ − 2¹⁰³), between
		// ±MaxFloat32 and ±2¹²⁸. (The transform's sums are far from it.)
		mid = math.Copysign(0x1p128-0x1p103, mid)
	}
	if s != mid {
		return r // s is not a tie: the exact sum rounds as s does
	}
	// A tie in s, broken by the error: toward other if the exact sum lies on its side.
	if (e > 0) == (float64(other) > s) {
		return other
	}
	return r
}

// radius32 is R = √(−2 ln u) for u = (a + ½)·2⁻³², in float32.
func radius32(a uint32) float32 {
	x := float64(a) + 0.5 // exact: 33 bits
	b := math.Float64bits(x)
	e := int32(b>>52) - 1023 // x in [2^e, 2^(e+1)), e in [−1, 31]
	mb := b&(1<<52-1) | 1023<<52
	// Above √2, halve m and add 1 to e, without a branch (the comparison goes either way
	// at random; the kernels compare and select lane by lane).
	big := b2u(math.Float64frombits(mb) > math.Sqrt2)
	m := math.Float64frombits(mb - big<<52) // in [√½, √2)
	e += int32(big)
	f := float32(m - 1) // m − 1 exact (Sterbenz), rounded once
	s := f / (2 + f)
	z := s * s
	q := horner4(&atanh32Coef, z)
	big2 := float32(32-e) * ln2x2 // (32 − e)·2ln2, e ≤ 32: ≥ 0
	return float32(math.Sqrt(float64(fma32(s, q, big2))))
}

// horner4 is c[0] + c[1]z + c[2]z² + c[3]z³ by Horner's rule, each step one fma32.
func horner4(c *[4]float32, z float32) float32 {
	return fma32(fma32(fma32(c[3], z, c[2]), z, c[1]), z, c[0])
}

// sinCos32 is sin 2πv and cos 2πv for v = b·2⁻³², in float32.
func sinCos32(b uint32) (sin, cos float32) {
	k := (b + 1<<29) >> 30              // nearest quarter turn (mod 4)
	f := float32(int32(b<<2)) * 0x1p-32 // 4v − k in [−½, ½), rounded once
	z := f * f
	s := f * horner4(&sin32Coef, z)
	c := fma32(horner4((*[4]float32)(cos32Coef[1:]), z), z, cos32Coef[0])
	return quadrant32(s, c, k)
}

// quadrant32 turns (s, c) by k right angles: quadrant k mod 4 gives (s, c), (c, −s),
// (−s, −c), (−c, s): odd k swaps them, 2 and 3 negate the sine, 1 and 2 the cosine. It
// uses masks, not a switch: k is uniform, so a branch on it is mispredicted three times
// in four.
func quadrant32(s, c float32, k uint32) (sin, cos float32) {
	q := k & 3
	swap := -(q & 1)
	sb, cb := math.Float32bits(s), math.Float32bits(c)
	sin = math.Float32frombits((sb&^swap | cb&swap) ^ (q>>1)<<31)
	cos = math.Float32frombits((cb&^swap | sb&swap) ^ ((q^q>>1)&1)<<31)
	return sin, cos
}

// pairNormals is a group's 32 float32 normals from its 32 words (block order): for
// l = 0 to 15, R·cos 2πv at l and R·sin 2πv at 16 + l, R the radius of w[l] and v the
// angle of w[16 + l], as the kernels pair them lane by lane.
func pairNormals(w *[groupValues]uint32) (z [groupValues]float32) {
	for l := range groupValues / 2 {
		r := radius32(w[l])
		s, c := sinCos32(w[groupValues/2+l])
		z[l], z[groupValues/2+l] = r*c, r*s
	}
	return z
}

// b2u is 1 for true, 0 for false (SETcc, no branch).
func b2u(b bool) uint64 {
	var u uint64
	if b {
		u = 1
	}
	return u
}
