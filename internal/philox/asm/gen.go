// Command asm generates internal/philox's assembly kernels with avo: Philox4x32-10 and
// Fill's Box–Muller transform on groups of eight blocks in 512-bit registers (AVX-512 F
// and DQ: a Philox kernel writing the words to a buffer, transform kernels reading them,
// and one-group twins of each for a length's last groups) or four in 256-bit ones (AVX2:
// Philox and the transform in one kernel), and Fill32's and FillWide's float32
// transform (gen32.go: transform32.go's, on the Philox kernels' words). One generator writes the
// kernels from one description of the arithmetic, so the two widths cannot drift apart, and that
// description is transform.go's operation for operation: its math.FMA a VFMADD231PD (one
// rounding), its other products a VMULPD, the same division, square root and floor, the mantissa's halving and the quadrant chosen by blends, so that the kernels give
// the pure-Go path's bits (kernel_test.go compares them value by value).
//
// It is its own module (the main module does not depend on avo); run it through the
// package's go:generate:
//
//	cd internal/philox && go generate
package main

import (
	"flag"
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The polynomials' coefficients, transform.go's literals (coef.py made them), so these
// are its bits.
var (
	atanhCoef = []float64{1.0, 0.33333333333333826, 0.1999999999965097, 0.14285714380365935,
		0.11111098523544492, 0.09091816102189126, 0.076562570559619, 0.074049285724485}
	sinCoef = []float64{1.5707963267948966, -0.6459640975062443, 0.07969262624604301,
		-0.004681754132340976, 0.0001604411507421909, -3.59864335298231e-06, 5.633933781537854e-08}
	cosCoef = []float64{1.0, -1.2337005501361697, 0.2536695079010467, -0.02086348076331121,
		0.0009192602741831558, -2.520203677046026e-05, 4.710609726757823e-07, -6.321256869628588e-09}
)

// Every constant is a 64-byte slot of eight equal quadwords (or a lane-indexed table), so
// that a 512-bit operand, a 256-bit one (its first half) and a broadcast quadword all
// read it.
var (
	consts   Mem
	constOff = map[string]int{}
)

func f64(x float64) uint64 { return math.Float64bits(x) }

// ln2 is ln 2 rounded to float64, as transform.go's e*math.Ln2 multiplies by it.
var ln2 = math.Ln2

func splat(x uint64) [8]uint64 { return [8]uint64{x, x, x, x, x, x, x, x} }

// dwords packs sixteen 32-bit indices into eight quadwords, low first.
func dwords(d [16]uint32) (q [8]uint64) {
	for i := range q {
		q[i] = uint64(d[2*i]) | uint64(d[2*i+1])<<32
	}
	return q
}

func defineConsts() {
	type c struct {
		name string
		v    [8]uint64
	}
	cs := []c{
		{"mul0", splat(0xD2511F53)},
		{"mul1", splat(0xCD9E8D57)},
		{"low32", splat(0xFFFFFFFF)},
		{"magic52", splat(f64(0x1p52))}, // 2⁵²: an integer below 2³² in its low word reads as 2⁵² + w
		{"magic84", splat(f64(0x1p84))}, // 2⁸⁴: a word w in its low bits reads as 2⁸⁴ + w·2³²
		{"magic84p52", splat(f64(0x1p84 + 0x1p52))},
		{"magic52p1023", splat(f64(0x1p52 + 1023))},
		{"half", splat(f64(0.5))},
		{"one", splat(f64(1))},
		{"p53", splat(f64(0x1p-53))},
		{"p51", splat(f64(0x1p-51))},
		{"minus2ln2", splat(f64(-2 * ln2))}, // −2 times ln 2 rounded: exact
		{"mant", splat(1<<52 - 1)},
		{"sqrt2", splat(f64(math.Sqrt2))},
		{"ln2", splat(f64(math.Ln2))},
		{"sign", splat(1 << 63)},
		{"bit0", splat(1)},
		{"iota", [8]uint64{0, 1, 2, 3, 4, 5, 6, 7}},
		{"q4", splat(4)},
		{"q8", splat(8)},
		{"q16", splat(16)},
		{"q24", splat(24)},
		{"q32", splat(32)},
		{"q12", splat(12)},
		{"q40", splat(40)},
		{"q48", splat(48)},
		{"q56", splat(56)},
		{"q64", splat(64)},
		// VPERMT2PD's tables: cosines in 0–7, sines in 8–15, pairs in block order.
		{"pairlo", [8]uint64{0, 8, 1, 9, 2, 10, 3, 11}},
		{"pairhi", [8]uint64{4, 12, 5, 13, 6, 14, 7, 15}},
	}
	for i, x := range atanhCoef {
		cs = append(cs, c{fmt.Sprintf("atanh%d", i), splat(f64(-4 * x))}) // −4 times: see radius
	}
	for i, x := range sinCoef {
		cs = append(cs, c{fmt.Sprintf("sin%d", i), splat(f64(x))})
	}
	for i, x := range cosCoef {
		cs = append(cs, c{fmt.Sprintf("cos%d", i), splat(f64(x))})
	}
	names, vals := consts32()
	for i, name := range names {
		cs = append(cs, c{name, vals[i]})
	}
	consts = GLOBL("philoxconst", RODATA|NOPTR)
	for i, x := range cs {
		constOff[x.name] = 64 * i
		for l, q := range x.v {
			DATA(64*i+8*l, U64(q))
		}
	}
}

// k is the constant's memory operand.
func k(name string) Mem {
	off, ok := constOff[name]
	if !ok {
		panic("no constant " + name)
	}
	return consts.Offset(off)
}

// isa is the kernel's width: 512-bit registers with AVX-512's masks, ternary logic,
// exponent and mantissa extraction and quadword conversions, or 256-bit ones with AVX2's
// blends and magic-number conversions. A kernel runs groups groups of lanes() blocks side
// by side, instruction by instruction, so that the long dependency chains (ten rounds, a
// division, a square root, three polynomials) of one group overlap the others'.
type isa struct {
	name   string // AVX512 or AVX2
	zmm    bool
	groups int
	share  bool // constants loaded once for the groups (shared)
	split  bool // the transform only, of words philoxKernel wrote (AVX-512)
}

// lanes is the blocks a group runs: one a 64-bit lane.
func (a isa) lanes() int {
	if a.zmm {
		return 8
	}
	return 4
}

// vs is one register a group.
type vs []reg.VecVirtual

func (a isa) vecs() vs {
	v := make(vs, a.groups)
	for g := range v {
		if a.zmm {
			v[g] = ZMM()
		} else {
			v[g] = YMM()
		}
	}
	return v
}

// each emits f for every group.
func (a isa) each(f func(g int)) {
	for g := range a.groups {
		f(g)
	}
}

// op2 emits op(src, dst) a group, op3 op(src2, src1, dst); m2 and m3 the same with a
// memory (constant) first operand shared by the groups.
func (a isa) op3(op func(...Op), x, y, dst vs) { a.each(func(g int) { op(x[g], y[g], dst[g]) }) }
func (a isa) m3(op func(...Op), m Op, y, dst vs) {
	a.each(func(g int) { op(m, y[g], dst[g]) })
}
func (a isa) i3(op func(...Op), imm uint64, x, dst vs) {
	a.each(func(g int) { op(Imm(imm), x[g], dst[g]) })
}

// shared reports whether a constant is loaded once into a register that every group's
// operation reads, rather than read by each as a memory operand: a 512-bit load is one of
// two a cycle, and with the groups' memory operands the kernels were bound by loads more
// than by any arithmetic pipe.
func (a isa) shared() bool { return a.zmm && a.groups > 1 && a.share }

// c is the constant's operand for an operation every group runs: a register loaded once
// (shared), else its memory operand.
func (a isa) c(name string) Op {
	if !a.shared() {
		return k(name)
	}
	r := ZMM()
	VMOVUPD(k(name), r)
	return r
}

// fixed adapts a three-operand VEX-only instruction to the variadic form op3 takes.
func fixed(op func(x, y, z Op)) func(...Op) { return func(o ...Op) { op(o[0], o[1], o[2]) } }

// xor3 sets dst to dst ^ src ^ the round key's quadword at key (its low word the key),
// in 256-bit registers (the AVX-512 Philox is philoxByGroup).
func (a isa) xor3(key Mem, src, dst vs) {
	t := YMM()
	VPBROADCASTQ(key, t)
	a.each(func(g int) { VPXOR(src[g], dst[g], dst[g]) })
	a.each(func(g int) { VPXOR(t, dst[g], dst[g]) })
}

// xorc sets dst to dst ^ the quadword at m (a lane-invariant word in its low half).
func (a isa) xorc(m Mem, dst vs) {
	t := YMM()
	VPBROADCASTQ(m, t)
	a.each(func(g int) { VPXOR(t, dst[g], dst[g]) })
}

// philox (AVX2's; AVX-512's is philoxByGroup) runs the ten rounds on the lanes' block
// indices c0 (in the low words of their quadwords; the high words are never read as such, VPMULUDQ takes the low ones) and
// returns the four output words, their high halves junk. The stream's other counter
// words (step, trial) are the same in every lane, so round 1's second product and round
// 2's first are lane-invariant: kernel.go's preRounds computes them once a call and folds
// them into the round keys, pre (quadword 2r is round r's k0, 2r+1 its k1, except slots
// 0, 1, 2, 3 and 5, which carry the folded words: see preRounds).
func (a isa) philox(c0 vs, pre reg.Register) (vs, vs, vs, vs) {
	slot := func(i int) Mem { return Mem{Base: pre, Disp: 8 * i} }
	m0, m1 := k("mul0"), k("mul1")
	// Round 1: c0, c1 become lane-invariant; c2 = hi0 ^ (trial's high word ^ k1).
	p0, h0 := a.vecs(), a.vecs()
	a.m3(VPMULUDQ, m0, c0, p0)
	a.i3(VPSRLQ, 32, p0, h0)
	a.xorc(slot(1), h0)
	c2, c3 := h0, p0
	// Round 2: its first product is lane-invariant; c0 = hi1 ^ (c1 ^ k0), c2 = c3 ^
	// (hi0 ^ k1), c3 lane-invariant.
	p1, h1 := a.vecs(), a.vecs()
	a.m3(VPMULUDQ, m1, c2, p1)
	a.i3(VPSRLQ, 32, p1, h1)
	a.xorc(slot(2), h1)
	a.xorc(slot(3), c3)
	c0, c1, c2 := h1, p1, c3
	// Round 3: c3 is lane-invariant, folded into k1.
	p0, p1, h0, h1 = a.vecs(), a.vecs(), a.vecs(), a.vecs()
	a.m3(VPMULUDQ, m0, c0, p0)
	a.m3(VPMULUDQ, m1, c2, p1)
	a.i3(VPSRLQ, 32, p0, h0)
	a.i3(VPSRLQ, 32, p1, h1)
	a.xor3(slot(4), c1, h1)
	a.xorc(slot(5), h0)
	c0, c1, c2, c3 = h1, p1, h0, p0
	for r := 3; r < 10; r++ {
		p0, p1, h0, h1 := a.vecs(), a.vecs(), a.vecs(), a.vecs()
		a.m3(VPMULUDQ, m0, c0, p0)
		a.m3(VPMULUDQ, m1, c2, p1)
		a.i3(VPSRLQ, 32, p0, h0)
		a.i3(VPSRLQ, 32, p1, h1)
		a.xor3(slot(2*r), c1, h1)   // hi1 ^ c1 ^ k0
		a.xor3(slot(2*r+1), c3, h0) // hi0 ^ c3 ^ k1
		c0, c1, c2, c3 = h1, p1, h0, p0
	}
	return c0, c1, c2, c3
}

// philoxByGroup is philox (same operations, same words) with each round emitted group
// after group rather than operation by operation: a round's temporaries are then live
// for one group at a time, so that the Philox kernel holds more groups (four words each)
// side by side; out of order, the processor runs the groups' rounds together all the
// same. The round keys are broadcast once for all the groups; in 512-bit registers the
// multipliers wait in registers and the three-way xors are VPTERNLOGQ, in 256-bit ones
// (sixteen registers) the multipliers are memory operands and the xors two VPXORs.
func (a isa) philoxByGroup(ctr vs, pre reg.Register) (vs, vs, vs, vs) {
	G := a.groups
	vec := func() reg.VecVirtual {
		if a.zmm {
			return ZMM()
		}
		return YMM()
	}
	var m0, m1 Op = k("mul0"), k("mul1")
	if a.zmm {
		r0, r1 := ZMM(), ZMM()
		VMOVDQU64(k("mul0"), r0)
		VMOVDQU64(k("mul1"), r1)
		m0, m1 = r0, r1
	}
	key := func(i int) reg.VecVirtual {
		t := vec()
		VPBROADCASTQ(Mem{Base: pre, Disp: 8 * i}, t)
		return t
	}
	xor := func(x, dst Op) {
		if a.zmm {
			VPXORQ(x, dst, dst)
		} else {
			VPXOR(x, dst, dst)
		}
	}
	xor3 := func(k, x, dst Op) { // dst ^= x ^ k
		if a.zmm {
			VPTERNLOGQ(Imm(0x96), k, x, dst)
		} else {
			VPXOR(x, dst, dst)
			VPXOR(k, dst, dst)
		}
	}
	c0, c1, c2, c3 := make(vs, G), make(vs, G), make(vs, G), make(vs, G)
	// Round 1: c0, c1 become lane-invariant; c2 = hi0 ^ (trial's high word ^ k1).
	k1 := key(1)
	for g := range G {
		p0, h0 := vec(), vec()
		VPMULUDQ(m0, ctr[g], p0)
		VPSRLQ(Imm(32), p0, h0)
		xor(k1, h0)
		c2[g], c3[g] = h0, p0
	}
	// Round 2: c0 = hi1 ^ (c1 ^ k0), c2 = c3 ^ (hi0 ^ k1); c3 lane-invariant.
	k2, k3 := key(2), key(3)
	for g := range G {
		p1, h1 := vec(), vec()
		VPMULUDQ(m1, c2[g], p1)
		VPSRLQ(Imm(32), p1, h1)
		xor(k2, h1)
		xor(k3, c3[g])
		c0[g], c1[g], c2[g] = h1, p1, c3[g]
	}
	// Round 3: c3 is lane-invariant, folded into k1.
	k4, k5 := key(4), key(5)
	for g := range G {
		p0, p1, h0, h1 := vec(), vec(), vec(), vec()
		VPMULUDQ(m0, c0[g], p0)
		VPMULUDQ(m1, c2[g], p1)
		VPSRLQ(Imm(32), p0, h0)
		VPSRLQ(Imm(32), p1, h1)
		xor3(k4, c1[g], h1)
		xor(k5, h0)
		c0[g], c1[g], c2[g], c3[g] = h1, p1, h0, p0
	}
	for r := 3; r < 10; r++ {
		ka, kb := key(2*r), key(2*r+1)
		for g := range G {
			p0, p1, h0, h1 := vec(), vec(), vec(), vec()
			VPMULUDQ(m0, c0[g], p0)
			VPMULUDQ(m1, c2[g], p1)
			VPSRLQ(Imm(32), p0, h0)
			VPSRLQ(Imm(32), p1, h1)
			xor3(ka, c1[g], h1) // hi1 ^ c1 ^ k0
			xor3(kb, c3[g], h0) // hi0 ^ c3 ^ k1
			c0[g], c1[g], c2[g], c3[g] = h1, p1, h0, p0
		}
	}
	return c0, c1, c2, c3
}

// uniform53 is (float64(hi:lo >> 11) + 0.5)·2⁻⁵³ times 2^shift (exact: a power of two), lo
// and hi clobbered. The sine-cosine's 4v is its v with shift 2.
func (a isa) uniform53(lo, hi vs, shift int) vs {
	f, t := a.vecs(), a.vecs()
	a.i3(VPSLLQ, 32, hi, t)
	if a.zmm {
		low := a.c("low32")
		a.each(func(g int) { ternC(Imm(0xEC), low, t[g], lo[g]) }) // lo&low32 | t: hi:lo
		a.i3(VPSRLQ, 11, lo, lo)
		// In place: avo takes a fresh destination of VCVTQQ2PD as read (its masked
		// form merges), which keeps it live round the loop.
		a.each(func(g int) { VCVTQQ2PD(lo[g], lo[g]) }) // exact: below 2⁵³
		f = lo
	} else {
		a.each(func(g int) { VPBLENDD(Imm(0xAA), t[g], lo[g], lo[g]) }) // low words from lo, high from t
		a.i3(VPSRLQ, 11, lo, lo)                                        // the 53-bit integer n
		a.i3(VPSRLQ, 32, lo, t)                                         // its top 21 bits
		a.m3(fixed(VPOR), k("magic84"), t, t)                           // 2⁸⁴ + top·2³²
		a.each(func(g int) { VPBLENDD(Imm(0xAA), k("magic52"), lo[g], lo[g]) })
		a.m3(VSUBPD, k("magic84p52"), t, t) // top·2³² − 2⁵², exact
		a.op3(VADDPD, lo, t, f)             // + 2⁵² + low word: n, exact
	}
	a.m3(VADDPD, a.c("half"), f, f)
	a.m3(VMULPD, a.c(fmt.Sprintf("p%d", 53-shift)), f, f)
	return f
}

// estrin is Σ c[k]·z^k (n = 7 or 8 coefficients) by Estrin's scheme: transform.go's
// estrin8 and estrin7, each step one VFMADD231PD (one rounding, as math.FMA), the same
// operands in the same order (an FMA's product is exact, so which factor is which does
// not matter; the addend does). z2 and z4 are z² and z⁴, computed here (as late as they
// are needed, to keep few registers live) if nil, and returned for the next series.
func (a isa) estrin(name string, n int, z, z2, z4 vs) (p, z2out, z4out vs) {
	c := func(j int) Op { return a.c(fmt.Sprintf("%s%d", name, j)) }
	pair := func(j int) vs { // c[j] + c[j+1]·z
		p := a.vecs()
		cj := c(j)
		a.each(func(g int) { VMOVUPD(cj, p[g]) })
		a.m3(VFMADD231PD, c(j+1), z, p)
		return p
	}
	p0, p1 := pair(0), pair(2)
	if z2 == nil {
		z2 = a.vecs()
		a.op3(VMULPD, z, z, z2)
	}
	a.op3(VFMADD231PD, p1, z2, p0) // q0
	p2 := pair(4)
	if n == 8 {
		p3 := pair(6)
		a.op3(VFMADD231PD, p3, z2, p2) // q1
	} else {
		a.m3(VFMADD231PD, c(6), z2, p2)
	}
	if z4 == nil {
		z4 = a.vecs()
		a.op3(VMULPD, z2, z2, z4)
	}
	a.op3(VFMADD231PD, p2, z4, p0)
	return p0, z2, z4
}

// radius is √(−2·logUnit(u)), logUnit as transform.go computes it, u clobbered. The −2
// is folded into the FMA's three operands: e·(−2 ln 2) and −4s are exactly −2 times
// e·ln 2 and 2s (a power of two commutes with rounding), so fma(−4s, A, e·(−2 ln 2)) is
// exactly −2 times logUnit's fma(2s, A, e·ln 2). The −4 is carried by the series (its
// coefficients are −4 times transform.go's, exactly: each Estrin step's rounding commutes
// with it), a product fewer: s·(−4A) is the same exact product as (−4s)·A.
func (a isa) radius(u vs) vs {
	e, m := a.vecs(), a.vecs()
	if a.zmm {
		a.each(func(g int) { VGETEXPPD(u[g], e[g]) })          // the unbiased exponent, as a float64
		a.each(func(g int) { VGETMANTPD(Imm(0), u[g], m[g]) }) // the mantissa in [1, 2)
		big := make([]reg.Register, a.groups)
		sqrt2 := a.c("sqrt2")
		a.each(func(g int) { big[g] = K(); VCMPPD(Imm(0x1E), sqrt2, m[g], big[g]) }) // m > √2
		half := a.c("half")
		a.each(func(g int) { VMULPD(half, m[g], big[g], m[g]) })
		one := a.c("one")
		a.each(func(g int) { VADDPD(one, e[g], big[g], e[g]) })
	} else {
		a.i3(VPSRLQ, 52, u, e)
		a.m3(fixed(VPOR), k("magic52"), e, e)
		a.m3(fixed(VPAND), k("mant"), u, m)
		a.m3(fixed(VPOR), k("one"), m, m)
		a.m3(VSUBPD, k("magic52p1023"), e, e) // the exponent, exact
		big, t := a.vecs(), a.vecs()
		a.each(func(g int) { VCMPPD(Imm(0x1E), k("sqrt2"), m[g], big[g]) })
		a.m3(VMULPD, k("half"), m, t)
		a.each(func(g int) { VBLENDVPD(big[g], t[g], m[g], m[g]) })
		a.m3(VADDPD, k("one"), e, t)
		a.each(func(g int) { VBLENDVPD(big[g], t[g], e[g], e[g]) })
	}
	num, den, s, z := a.vecs(), a.vecs(), a.vecs(), a.vecs()
	one := a.c("one")
	a.m3(VSUBPD, one, m, num)
	a.m3(VADDPD, one, m, den)
	a.op3(VDIVPD, den, num, s)
	a.op3(VMULPD, s, s, z)
	p, _, _ := a.estrin("atanh", len(atanhCoef), z, nil, nil) // −4A
	a.m3(VMULPD, a.c("minus2ln2"), e, e)                      // −2 times e·ln 2 rounded, exact
	a.op3(VFMADD231PD, p, s, e)                               // −2 times logUnit's FMA
	r := a.vecs()
	a.each(func(g int) { VSQRTPD(e[g], r[g]) })
	return r
}

// sinCos is sinCosTurns(v) from t = 4v: the sine and cosine of 2πv, the quadrant's swap
// and signs chosen lane by lane, t clobbered.
//
// If spill is not nil, the sine waits there (32 bytes a group) while the cosine's series
// runs: the two-group AVX2 kernels have no sixteenth register for it.
func (a isa) sinCos(t vs, spill *Mem) (vs, vs) {
	q, x, z := a.vecs(), a.vecs(), a.vecs()
	a.m3(VADDPD, a.c("half"), t, q)
	if a.zmm {
		a.i3(VRNDSCALEPD, 1, q, q) // floor
	} else {
		a.i3(fixed(VROUNDPD), 1, q, q)
	}
	a.op3(VSUBPD, q, t, x) // f, exact
	a.op3(VMULPD, x, x, z)
	ps, z2, z4 := a.estrin("sin", len(sinCoef), z, nil, nil)
	a.op3(VMULPD, x, ps, ps)
	if spill != nil {
		for g := range a.groups {
			VMOVUPD(ps[g], spill.Offset(32*g))
		}
	}
	pc, _, _ := a.estrin("cos", len(cosCoef), z, z2, z4)
	if spill != nil {
		ps = a.vecs()
		for g := range a.groups {
			VMOVUPD(spill.Offset(32*g), ps[g])
		}
	}
	a.m3(VADDPD, a.c("magic52"), q, q) // the quadrant's integer in the low bits
	sin, cos, b0, b1 := a.vecs(), a.vecs(), a.vecs(), a.vecs()
	a.i3(VPSLLQ, 63, q, b0) // bit 0 at the sign
	a.i3(VPSLLQ, 62, q, b1) // bit 1 at the sign
	if a.zmm {
		odd := make([]reg.Register, a.groups)
		bit0 := a.c("bit0")
		a.each(func(g int) { odd[g] = K(); VPTESTMQ(bit0, q[g], odd[g]) })
		a.each(func(g int) { VBLENDMPD(pc[g], ps[g], odd[g], sin[g]) }) // odd quadrant: the cosine
		a.each(func(g int) { VBLENDMPD(ps[g], pc[g], odd[g], cos[g]) })
		sign := a.c("sign")
		a.each(func(g int) { ternC(Imm(0x28), sign, b1[g], b0[g]) })  // (bit0 ^ bit1) at the sign
		a.each(func(g int) { ternC(Imm(0x78), sign, b1[g], sin[g]) }) // sin ^= bit1 at the sign
		a.op3(VPXORQ, b0, cos, cos)
	} else {
		a.each(func(g int) { VBLENDVPD(b0[g], pc[g], ps[g], sin[g]) })
		a.each(func(g int) { VBLENDVPD(b0[g], ps[g], pc[g], cos[g]) })
		a.m3(fixed(VPAND), k("sign"), b1, b1)
		a.op3(fixed(VPXOR), b1, b0, b0)
		a.op3(fixed(VPXOR), b1, sin, sin)
		a.op3(fixed(VPXOR), b0, cos, cos)
	}
	return sin, cos
}

// kernel is one of Fill's kernels (two float64 normals a block, u of words 1:0 and v of
// 3:2; Fill32's are kernel32), every value times sd if scaled (one more rounding); with
// a.split, of the words philoxKernel wrote, else Philox's too; one group a step if one
// (its One twin).
func kernel(a isa, scaled bool, one bool) {
	typ, name := "float64", "fill64"
	if scaled {
		name += "Scaled"
	}
	a.share = *share
	if one {
		name += "One"
		a.groups = 1
	}
	L := a.lanes()
	G := a.groups
	if a.split {
		TEXT(name+a.name, NOSPLIT, fmt.Sprintf("func(dst *%s, words *uint64, groups int, sd %s)", typ, typ))
	} else {
		TEXT(name+a.name, NOSPLIT, fmt.Sprintf("func(dst *%s, groups int, sd %s, block uint32, pre *[20]uint64)", typ, typ))
	}
	Pragma("noescape")
	what := "2 float64 normals a block"
	if scaled {
		what += " times sd"
	} else {
		what += " (sd unused)"
	}
	if a.split {
		Doc(fmt.Sprintf("%s%s writes the normals of groups × %d blocks whose words philox%s wrote to words, %s, to dst.",
			name, a.name, G*L, a.name, what))
	} else {
		Doc(fmt.Sprintf("%s%s writes groups × %d blocks of the stream from block on, its words and keys in pre (preRounds), %s, to dst.",
			name, a.name, G*L, what))
	}
	dst := Load(Param("dst"), GP64())
	n := Load(Param("groups"), GP64())
	var pre, wp reg.Register
	if a.split {
		wp = Load(Param("words"), GP64())
	} else {
		pre = Load(Param("pre"), GP64())
	}
	var sd reg.VecVirtual
	if scaled {
		if a.zmm {
			sd = ZMM()
		} else {
			sd = YMM()
		}
		VBROADCASTSD(paramAddr("sd"), sd)
	}
	// The lanes count from the block index; group g's from it + g·L.
	var ctr0 reg.VecVirtual
	if !a.split {
		ctr0 = a.vecs()[0]
		b, bx := Load(Param("block"), GP32()), XMM()
		VMOVD(b, bx)
		VPBROADCASTD(bx, ctr0)
		VPADDD(k("iota"), ctr0, ctr0)
	}
	var local Mem // u's wait in the two-group AVX2 float64 kernels
	if !a.zmm && G > 1 {
		local = AllocLocal(64 * G) // u's, then the sine's
	}
	// idx loads VPERMT2PD's table just before its use (a register held
	// round the loop is one fewer for the groups).
	idx := func(name string) reg.VecVirtual {
		r := ZMM()
		VMOVDQU64(k(name), r)
		return r
	}

	Label("loop")
	TESTQ(n, n)
	JZ(LabelRef("done"))
	var w0, w1, w2, w3 vs
	word := func(j int) vs { // word j of the groups, from the words philoxKernel wrote
		w := a.vecs()
		a.each(func(g int) {
			m := Mem{Base: wp, Disp: a.record()*g + 8*L*j}
			if a.zmm {
				VMOVDQU64(m, w[g])
			} else {
				VMOVDQU(m, w[g])
			}
		})
		return w
	}
	if !a.split {
		ctr := make(vs, G)
		ctr[0] = ctr0
		for g := 1; g < G; g++ {
			ctr[g] = a.vecs()[0]
			VPADDD(k(fmt.Sprintf("q%d", g*L)), ctr0, ctr[g])
		}
		w0, w1, w2, w3 = a.philox(ctr, pre)
		VPADDD(k(fmt.Sprintf("q%d", G*L)), ctr0, ctr0)
	}
	if !a.zmm && G > 1 {
		// Few registers live at once, so that two groups fit AVX2's sixteen: u waits on
		// the stack while the sine-cosine runs, the sine and cosine in dst (where the
		// normals go) while the log runs.
		if a.split { // u's words are read when the log runs
			w2, w3 = word(2), word(3)
		} else {
			u := a.uniform53(w0, w1, 0)
			for g := range G {
				VMOVUPD(u[g], local.Offset(32*g))
			}
		}
		t := a.uniform53(w2, w3, 2) // 4v
		sine := local.Offset(32 * G)
		s, c := a.sinCos(t, &sine)
		for g := range G {
			VMOVUPD(s[g], Mem{Base: dst, Disp: 16 * L * g})
			VMOVUPD(c[g], Mem{Base: dst, Disp: 16*L*g + 32})
		}
		var u vs
		if a.split {
			u = a.uniform53(word(0), word(1), 0)
		} else {
			u = a.vecs()
			for g := range G {
				VMOVUPD(local.Offset(32*g), u[g])
			}
		}
		r := a.radius(u)
		s, c = a.vecs(), a.vecs()
		for g := range G {
			VMULPD(Mem{Base: dst, Disp: 16 * L * g}, r[g], s[g])
			VMULPD(Mem{Base: dst, Disp: 16*L*g + 32}, r[g], c[g])
		}
		if scaled {
			a.each(func(g int) { VMULPD(sd, c[g], c[g]) })
			a.each(func(g int) { VMULPD(sd, s[g], s[g]) })
		}
		for g := range G {
			off := 16 * L * g
			lo, hi := YMM(), YMM()
			VUNPCKLPD(s[g], c[g], lo) // c0 s0 c2 s2
			VUNPCKHPD(s[g], c[g], hi) // c1 s1 c3 s3
			VPERM2F128(Imm(0x20), hi, lo, s[g])
			VPERM2F128(Imm(0x31), hi, lo, c[g])
			VMOVUPD(s[g], Mem{Base: dst, Disp: off})
			VMOVUPD(c[g], Mem{Base: dst, Disp: off + 32})
		}
	} else {
		var s, c vs
		if a.split {
			// Few registers live at once, so that more groups fit: the sine and cosine
			// wait in dst (where the normals go) while the log runs, and u's words are
			// read when it does.
			t := a.uniform53(word(2), word(3), 2) // 4v
			s, c = a.sinCos(t, nil)
			for g := range G {
				VMOVUPD(s[g], Mem{Base: dst, Disp: 16 * L * g})
				VMOVUPD(c[g], Mem{Base: dst, Disp: 16*L*g + 8*L})
			}
			r := a.radius(a.uniform53(word(0), word(1), 0))
			s, c = a.vecs(), a.vecs()
			for g := range G {
				VMULPD(Mem{Base: dst, Disp: 16*L*g + 8*L}, r[g], c[g])
				VMULPD(Mem{Base: dst, Disp: 16 * L * g}, r[g], s[g])
			}
		} else {
			u := a.uniform53(w0, w1, 0) // first: u waits in one register, not two words
			t := a.uniform53(w2, w3, 2) // 4v
			s, c = a.sinCos(t, nil)
			r := a.radius(u)
			a.op3(VMULPD, r, c, c)
			a.op3(VMULPD, r, s, s)
		}
		if scaled {
			a.each(func(g int) { VMULPD(sd, c[g], c[g]) })
			a.each(func(g int) { VMULPD(sd, s[g], s[g]) })
		}
		var plo, phi Op
		if a.zmm && a.shared() {
			plo, phi = idx("pairlo"), idx("pairhi")
		}
		for g := range G {
			off := 16 * L * g
			if a.zmm {
				lo := ZMM()
				VMOVAPD(c[g], lo)
				if !a.shared() {
					plo, phi = idx("pairlo"), idx("pairhi")
				}
				VPERMT2PD(s[g], plo, lo)
				VPERMT2PD(s[g], phi, c[g])
				VMOVUPD(lo, Mem{Base: dst, Disp: off})
				VMOVUPD(c[g], Mem{Base: dst, Disp: off + 64})
			} else {
				lo, hi, o0, o1 := YMM(), YMM(), YMM(), YMM()
				VUNPCKLPD(s[g], c[g], lo) // c0 s0 c2 s2
				VUNPCKHPD(s[g], c[g], hi) // c1 s1 c3 s3
				VPERM2F128(Imm(0x20), hi, lo, o0)
				VPERM2F128(Imm(0x31), hi, lo, o1)
				VMOVUPD(o0, Mem{Base: dst, Disp: off})
				VMOVUPD(o1, Mem{Base: dst, Disp: off + 32})
			}
		}
	}
	ADDQ(U32(16*L*G), dst)
	if a.split {
		ADDQ(U32(a.record()*G), wp)
	}
	DECQ(n)
	JMP(LabelRef("loop"))
	Label("done")
	VZEROUPPER()
	RET()
}

// record is the bytes of a group's words in the buffer: words 0 to 3, a vector each.
func (a isa) record() int { return 32 * a.lanes() }

// store stores a whole vector.
func (a isa) store(x reg.VecVirtual, m Mem) {
	if a.zmm {
		VMOVDQU64(x, m)
	} else {
		VMOVDQU(x, m)
	}
}

// philoxKernel is philox+a.name (philoxOne+a.name, one group a step, if one):
// Philox4x32-10 of groups × lanes() blocks a step, its four words (a block a quadword
// lane, the word in its low half) stored to words as a record of four vectors a group,
// which the split transform kernels read. Apart from the transform, Philox's ten
// dependent rounds have the registers for more groups side by side than the one kernel
// held, and their chains overlap.
func philoxKernel(a isa, one bool) {
	name := "philox"
	if one {
		name += "One"
		a.groups = 1
	}
	L, G := a.lanes(), a.groups
	TEXT(name+a.name, NOSPLIT, "func(words *uint64, steps int, block uint32, pre *[20]uint64)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s%s writes the words of steps × %d blocks of the stream from block on, its words and keys in pre (preRounds), to words: a record of words 0, 1, 2 and 3 (a block a quadword, the word in its low half) for each %d blocks.", name, a.name, G*L, L))
	wp := Load(Param("words"), GP64())
	n := Load(Param("steps"), GP64())
	pre := Load(Param("pre"), GP64())
	ctr0 := a.vecs()[0]
	b, bx := Load(Param("block"), GP32()), XMM()
	VMOVD(b, bx)
	VPBROADCASTD(bx, ctr0)
	VPADDD(k("iota"), ctr0, ctr0)
	Label("loop")
	TESTQ(n, n)
	JZ(LabelRef("done"))
	ctr := make(vs, G)
	ctr[0] = ctr0
	for g := 1; g < G; g++ {
		ctr[g] = a.vecs()[0]
		VPADDD(k(fmt.Sprintf("q%d", g*L)), ctr0, ctr[g])
	}
	w0, w1, w2, w3 := a.philoxByGroup(ctr, pre)
	VPADDD(k(fmt.Sprintf("q%d", G*L)), ctr0, ctr0)
	for j, w := range []vs{w0, w1, w2, w3} {
		a.each(func(g int) { a.store(w[g], Mem{Base: wp, Disp: a.record()*g + 8*L*j}) })
	}
	ADDQ(U32(a.record()*G), wp)
	DECQ(n)
	JMP(LabelRef("loop"))
	Label("done")
	VZEROUPPER()
	RET()
}

// The kernels' groups side by side: flags so that the choice can be measured.
var (
	groups512 = flag.Int("groups512", 3, "groups of 8 blocks the AVX-512 float64 transform runs side by side")
	units32F  = flag.Int("units32", 2, "units of 16 blocks the AVX-512 float32 transform runs side by side")
	groups2   = flag.Int("groups2", 2, "groups of 4 blocks an AVX2 float64 step runs side by side")
	groupsP   = flag.Int("groupsP", 6, "groups of 8 blocks the AVX-512 Philox kernel runs side by side")
	share     = flag.Bool("share", true, "AVX-512 constants loaded once into a register for the groups")
)

// ternC is VPTERNLOGQ of a constant: broadcast from memory if c is a memory operand (a
// quadword of its slot), else the register it was loaded into.
func ternC(imm, c, x, dst Op) {
	if m, ok := c.(Mem); ok {
		VPTERNLOGQ_BCST(imm, m, x, dst)
		return
	}
	VPTERNLOGQ(imm, c, x, dst)
}

func main() {
	flag.Parse()
	units32 = *units32F
	ConstraintExpr("amd64")
	defineConsts()
	// On AVX-512, a kernel of each kind runs one group a step (One) too: a stream's
	// last groups, so that a length needs no more blocks than a group's eight past it.
	avx512 := isa{"AVX512", true, *groups512, false, true}
	for _, one := range []bool{false, true} {
		philoxKernel(isa{"AVX512", true, *groupsP, true, true}, one)
		for _, scaled := range []bool{false, true} {
			kernel(avx512, scaled, one)
		}
		for _, wide := range []bool{false, true} {
			kernel32(avx512, wide, one)
		}
	}
	// On AVX2, the float32 transform is split too (one unit of two groups a step, its
	// own One); float64 is one kernel, Philox and the transform: split, its Philox's two
	// groups (all AVX2's sixteen registers hold) waited on their chains, 7 % slower when
	// measured.
	for _, one := range []bool{false, true} {
		philoxKernel(isa{"AVX2", false, 2, false, true}, one)
	}
	for _, scaled := range []bool{false, true} {
		kernel(isa{"AVX2", false, *groups2, false, false}, scaled, false)
	}
	for _, wide := range []bool{false, true} {
		kernel32(isa{"AVX2", false, 1, false, true}, wide, false)
	}
	Generate()
}

// paramAddr is the frame address of the named argument.
func paramAddr(name string) Mem {
	b, err := Param(name).Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}
