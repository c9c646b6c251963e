// Command asm generates internal/philox's assembly kernels with avo: Fill's and Fill32's
// Philox4x32-10 and Box–Muller transform on eight blocks a step in 512-bit registers
// (AVX-512 F and DQ) or four in 256-bit ones (AVX2). One generator writes the four kernels
// from one description of the arithmetic, so the two widths cannot drift apart, and that
// description is transform.go's operation for operation: every product rounded before its
// sum (VMULPD then VADDPD, never a fused multiply-add), the same division, square root and
// floor, the mantissa's halving and the quadrant chosen by blends, so that the kernels give
// the pure-Go path's bits (kernel_test.go compares them value by value).
//
// It is its own module (the main module does not depend on avo); run it through the
// package's go:generate:
//
//	cd internal/philox && go generate
package main

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The series' coefficients, transform.go's expressions (Go's constant arithmetic is exact,
// each rounded once to float64, so these are its bits).
var (
	atanhCoef = []float64{1, 1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11, 1.0 / 13, 1.0 / 15, 1.0 / 17, 1.0 / 19, 1.0 / 21}
	sinCoef   = []float64{1, -1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880, -1.0 / 39916800, 1.0 / 6227020800,
		-1.0 / 1307674368000, 1.0 / 355687428096000}
	cosCoef = []float64{1, -1.0 / 2, 1.0 / 24, -1.0 / 720, 1.0 / 40320, -1.0 / 3628800, 1.0 / 479001600,
		-1.0 / 87178291200, 1.0 / 20922789888000, -1.0 / 6402373705728000}
)

// Every constant is a 64-byte slot of eight equal quadwords (or a lane-indexed table), so
// that a 512-bit operand, a 256-bit one (its first half) and a broadcast quadword all
// read it.
var (
	consts   Mem
	constOff = map[string]int{}
)

func f64(x float64) uint64 { return math.Float64bits(x) }

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
		{"magic52mhalf", splat(f64(0x1p52 - 0.5))},
		{"magic52p1023", splat(f64(0x1p52 + 1023))},
		{"half", splat(f64(0.5))},
		{"one", splat(f64(1))},
		{"four", splat(f64(4))},
		{"minus2", splat(f64(-2))},
		{"p53", splat(f64(0x1p-53))},
		{"p32", splat(f64(0x1p-32))},
		{"mant", splat(1<<52 - 1)},
		{"sqrt2", splat(f64(math.Sqrt2))},
		{"ln2", splat(f64(math.Ln2))},
		{"pio2", splat(f64(math.Pi / 2))},
		{"sign", splat(1 << 63)},
		{"bit0", splat(1)},
		{"iota", [8]uint64{0, 1, 2, 3, 4, 5, 6, 7}},
		{"eight", splat(8)},
		{"fourq", splat(4)},
		// VPERMT2PD's tables: cosines in 0–7, sines in 8–15, pairs in block order.
		{"pairlo", [8]uint64{0, 8, 1, 9, 2, 10, 3, 11}},
		{"pairhi", [8]uint64{4, 12, 5, 13, 6, 14, 7, 15}},
		// VPERMT2PS's: A in 0–7, B 8–15, C 16–23, D 24–31; block i is A_i B_i C_i D_i.
		{"quadlo", dwords([16]uint32{0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27})},
		{"quadhi", dwords([16]uint32{4, 12, 20, 28, 5, 13, 21, 29, 6, 14, 22, 30, 7, 15, 23, 31})},
	}
	for i, x := range atanhCoef {
		cs = append(cs, c{fmt.Sprintf("atanh%d", i), splat(f64(x))})
	}
	for i, x := range sinCoef {
		cs = append(cs, c{fmt.Sprintf("sin%d", i), splat(f64(x))})
	}
	for i, x := range cosCoef {
		cs = append(cs, c{fmt.Sprintf("cos%d", i), splat(f64(x))})
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

// isa is the kernel's width: 512-bit registers with AVX-512's masks, ternary logic and
// quadword conversions, or 256-bit ones with AVX2's blends and the magic-number
// conversions.
type isa struct {
	name string // AVX512 or AVX2
	zmm  bool
}

// lanes is the blocks a step runs: one a 64-bit lane.
func (a isa) lanes() int {
	if a.zmm {
		return 8
	}
	return 4
}

func (a isa) vec() reg.VecVirtual {
	if a.zmm {
		return ZMM()
	}
	return YMM()
}

// xor3 sets dst to dst ^ src ^ the round key's quadword at key (its low word the key).
func (a isa) xor3(key Mem, src, dst reg.VecVirtual) {
	if a.zmm {
		VPTERNLOGQ_BCST(Imm(0x96), key, src, dst)
		return
	}
	t := YMM()
	VPBROADCASTQ(key, t)
	VPXOR(src, dst, dst)
	VPXOR(t, dst, dst)
}

// philox runs the ten rounds on the lanes' counters (c0 each lane's block index, c1–c3
// the stream's words, all in the low words of their quadwords; the high words are never
// read as such, VPMULUDQ takes the low ones) under the round keys at rk (quadword 2r is
// round r's k0, 2r+1 its k1) and returns the four output words, their high halves junk.
func (a isa) philox(c0, c1, c2, c3 reg.VecVirtual, rk reg.Register) (reg.VecVirtual, reg.VecVirtual, reg.VecVirtual, reg.VecVirtual) {
	for r := range 10 {
		p0, p1, h0, h1 := a.vec(), a.vec(), a.vec(), a.vec()
		VPMULUDQ(k("mul0"), c0, p0)
		VPMULUDQ(k("mul1"), c2, p1)
		VPSRLQ(Imm(32), p0, h0)
		VPSRLQ(Imm(32), p1, h1)
		a.xor3(Mem{Base: rk, Disp: 16 * r}, c1, h1)   // hi1 ^ c1 ^ k0
		a.xor3(Mem{Base: rk, Disp: 16*r + 8}, c3, h0) // hi0 ^ c3 ^ k1
		c0, c1, c2, c3 = h1, p1, h0, p0
	}
	return c0, c1, c2, c3
}

// uniform53 is (float64(hi:lo >> 11) + 0.5)·2⁻⁵³ (lo and hi are clobbered).
func (a isa) uniform53(lo, hi reg.VecVirtual) reg.VecVirtual {
	f := a.vec()
	t := a.vec()
	VPSLLQ(Imm(32), hi, t)
	if a.zmm {
		VPTERNLOGQ_BCST(Imm(0xEC), k("low32"), t, lo) // lo = lo&low32 | t: hi:lo
		VPSRLQ(Imm(11), lo, lo)
		VCVTQQ2PD(lo, f) // exact: below 2⁵³
	} else {
		VPBLENDD(Imm(0xAA), t, lo, lo) // low words from lo, high from t: hi:lo
		VPSRLQ(Imm(11), lo, lo)        // the 53-bit integer n
		VPSRLQ(Imm(32), lo, t)         // its top 21 bits
		VPOR(k("magic84"), t, t)       // 2⁸⁴ + top·2³²
		VPBLENDD(Imm(0xAA), k("magic52"), lo, lo)
		VSUBPD(k("magic84p52"), t, t) // top·2³² − 2⁵², exact
		VADDPD(lo, t, f)              // + 2⁵² + low word: n, exact
	}
	VADDPD(k("half"), f, f)
	VMULPD(k("p53"), f, f)
	return f
}

// uniform32 is (float64(w) + 0.5)·2⁻³², as 2⁵² + w − (2⁵² − ½) (exact) times 2⁻³² (w is
// clobbered).
func (a isa) uniform32(w, magic reg.VecVirtual) reg.VecVirtual {
	if a.zmm {
		VPTERNLOGQ_BCST(Imm(0xEC), k("low32"), magic, w) // w&low32 | 2⁵²'s bits
	} else {
		VPBLENDD(Imm(0xAA), k("magic52"), w, w)
	}
	VSUBPD(k("magic52mhalf"), w, w)
	VMULPD(k("p32"), w, w)
	return w
}

// horner is Σ c[k]·z^k, each product rounded before its sum: transform.go's horner.
func (a isa) horner(name string, n int, z reg.VecVirtual) reg.VecVirtual {
	p := a.vec()
	VMULPD(k(fmt.Sprintf("%s%d", name, n-1)), z, p)
	for j := n - 2; j >= 0; j-- {
		if j < n-2 {
			VMULPD(z, p, p)
		}
		VADDPD(k(fmt.Sprintf("%s%d", name, j)), p, p)
	}
	return p
}

// radius is √(−2·logUnit(u)), logUnit as transform.go computes it (u is clobbered).
func (a isa) radius(u reg.VecVirtual) reg.VecVirtual {
	e, m := a.vec(), a.vec()
	VPSRLQ(Imm(52), u, e)
	if a.zmm {
		VPORQ(k("magic52"), e, e)
		VPANDQ(k("mant"), u, m)
		VPORQ(k("one"), m, m)
	} else {
		VPOR(k("magic52"), e, e)
		VPAND(k("mant"), u, m)
		VPOR(k("one"), m, m)
	}
	VSUBPD(k("magic52p1023"), e, e) // the exponent, exact
	if a.zmm {
		big := K()
		VCMPPD(Imm(0x1E), k("sqrt2"), m, big) // m > √2
		VMULPD(k("half"), m, big, m)
		VADDPD(k("one"), e, big, e)
	} else {
		big, t := YMM(), YMM()
		VCMPPD(Imm(0x1E), k("sqrt2"), m, big)
		VMULPD(k("half"), m, t)
		VBLENDVPD(big, t, m, m)
		VADDPD(k("one"), e, t)
		VBLENDVPD(big, t, e, e)
	}
	num, den, s, z := a.vec(), a.vec(), a.vec(), a.vec()
	VSUBPD(k("one"), m, num)
	VADDPD(k("one"), m, den)
	VDIVPD(den, num, s)
	VMULPD(s, s, z)
	p := a.horner("atanh", len(atanhCoef), z)
	VADDPD(s, s, s) // 2s, exact
	VMULPD(p, s, p)
	VMULPD(k("ln2"), e, e)
	VADDPD(p, e, e)
	VMULPD(k("minus2"), e, e)
	r := a.vec()
	VSQRTPD(e, r)
	return r
}

// sinCos is sinCosTurns(v): the sine and cosine of 2πv, the quadrant's swap and signs
// chosen lane by lane (v is clobbered).
func (a isa) sinCos(v reg.VecVirtual) (reg.VecVirtual, reg.VecVirtual) {
	t, q, x, z := a.vec(), a.vec(), a.vec(), a.vec()
	VMULPD(k("four"), v, t)
	VADDPD(k("half"), t, q)
	if a.zmm {
		VRNDSCALEPD(Imm(1), q, q) // floor
	} else {
		VROUNDPD(Imm(1), q, q)
	}
	VSUBPD(q, t, x)
	VMULPD(k("pio2"), x, x)
	VMULPD(x, x, z)
	ps := a.horner("sin", len(sinCoef), z)
	VMULPD(x, ps, ps)
	pc := a.horner("cos", len(cosCoef), z)
	VADDPD(k("magic52"), q, q) // the quadrant's integer in the low bits
	sin, cos, b0, b1 := a.vec(), a.vec(), a.vec(), a.vec()
	VPSLLQ(Imm(63), q, b0) // bit 0 at the sign
	VPSLLQ(Imm(62), q, b1) // bit 1 at the sign
	if a.zmm {
		odd := K()
		VPTESTMQ(k("bit0"), q, odd)
		VBLENDMPD(pc, ps, odd, sin) // odd quadrant: the cosine
		VBLENDMPD(ps, pc, odd, cos)
		VPTERNLOGQ_BCST(Imm(0x28), k("sign"), b1, b0)  // (bit0 ^ bit1) at the sign
		VPTERNLOGQ_BCST(Imm(0x78), k("sign"), b1, sin) // sin ^= bit1 at the sign
		VPXORQ(b0, cos, cos)
	} else {
		VBLENDVPD(b0, pc, ps, sin)
		VBLENDVPD(b0, ps, pc, cos)
		VPAND(k("sign"), b1, b1)
		VPXOR(b1, b0, b0)
		VPXOR(b1, sin, sin)
		VPXOR(b0, cos, cos)
	}
	return sin, cos
}

// kernel is one of the four: float64 (Fill: two normals a block, u of words 1:0 and v of
// 3:2) or float32 (Fill32: four a block, the pairs of words 0, 1 and 2, 3, rounded once),
// every value times sd (one more rounding; sd = 1 leaves the bits).
func kernel(a isa, f32 bool) {
	typ, name := "float64", "fill64"
	if f32 {
		typ, name = "float32", "fill32"
	}
	L := a.lanes()
	TEXT(name+a.name, NOSPLIT, fmt.Sprintf("func(dst *%s, groups int, sd %s, ctr *[4]uint32, rk *[20]uint64)", typ, typ))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s%s writes groups × %d blocks of the stream at ctr (its block index, step and trial's two words) under the round keys rk, %d %s normals a block times sd, to dst.",
		name, a.name, L, map[bool]int{false: 2, true: 4}[f32], typ))
	dst := Load(Param("dst"), GP64())
	n := Load(Param("groups"), GP64())
	ctrp := Load(Param("ctr"), GP64())
	rk := Load(Param("rk"), GP64())
	sd := a.vec()
	if f32 {
		VBROADCASTSS(paramAddr("sd"), sd)
	} else {
		VBROADCASTSD(paramAddr("sd"), sd)
	}
	ctr, c1, c2, c3 := a.vec(), a.vec(), a.vec(), a.vec()
	VPBROADCASTD(Mem{Base: ctrp}, ctr)
	VPADDD(k("iota"), ctr, ctr)
	VPBROADCASTD(Mem{Base: ctrp, Disp: 4}, c1)
	VPBROADCASTD(Mem{Base: ctrp, Disp: 8}, c2)
	VPBROADCASTD(Mem{Base: ctrp, Disp: 12}, c3)
	step := "fourq"
	if a.zmm {
		step = "eight"
	}
	var idxlo, idxhi, magic reg.VecVirtual
	if a.zmm {
		idxlo, idxhi, magic = ZMM(), ZMM(), ZMM()
		if f32 {
			VMOVDQU64(k("quadlo"), idxlo)
			VMOVDQU64(k("quadhi"), idxhi)
		} else {
			VMOVDQU64(k("pairlo"), idxlo)
			VMOVDQU64(k("pairhi"), idxhi)
		}
		VMOVDQU64(k("magic52"), magic)
	}

	Label("loop")
	TESTQ(n, n)
	JZ(LabelRef("done"))
	w0, w1, w2, w3 := a.philox(ctr, c1, c2, c3, rk)
	VPADDD(k(step), ctr, ctr)
	if !f32 {
		u := a.uniform53(w0, w1)
		v := a.uniform53(w2, w3)
		r := a.radius(u)
		s, c := a.sinCos(v)
		VMULPD(r, c, c)
		VMULPD(r, s, s)
		VMULPD(sd, c, c)
		VMULPD(sd, s, s)
		if a.zmm {
			lo := ZMM()
			VMOVAPD(c, lo)
			VPERMT2PD(s, idxlo, lo)
			VPERMT2PD(s, idxhi, c)
			VMOVUPD(lo, Mem{Base: dst})
			VMOVUPD(c, Mem{Base: dst, Disp: 64})
		} else {
			lo, hi, o0, o1 := YMM(), YMM(), YMM(), YMM()
			VUNPCKLPD(s, c, lo) // c0 s0 c2 s2
			VUNPCKHPD(s, c, hi) // c1 s1 c3 s3
			VPERM2F128(Imm(0x20), hi, lo, o0)
			VPERM2F128(Imm(0x31), hi, lo, o1)
			VMOVUPD(o0, Mem{Base: dst})
			VMOVUPD(o1, Mem{Base: dst, Disp: 32})
		}
		ADDQ(Imm(uint64(16*L)), dst)
	} else {
		pair := func(wu, wv reg.VecVirtual) (reg.VecVirtual, reg.VecVirtual) {
			u := a.uniform32(wu, magic)
			v := a.uniform32(wv, magic)
			r := a.radius(u)
			s, c := a.sinCos(v)
			VMULPD(r, c, c)
			VMULPD(r, s, s)
			var cc, ss reg.VecVirtual
			if a.zmm {
				cc, ss = YMM(), YMM()
				VCVTPD2PS(c, cc)
				VCVTPD2PS(s, ss)
			} else {
				cc, ss = XMM(), XMM()
				VCVTPD2PSY(c, cc)
				VCVTPD2PSY(s, ss)
			}
			return cc, ss
		}
		A, B := pair(w0, w1)
		C, D := pair(w2, w3)
		if a.zmm {
			ab, cd := A.AsZ(), C.AsZ()
			VINSERTF64X4(Imm(1), B, ab, ab)
			VINSERTF64X4(Imm(1), D, cd, cd)
			VMULPS(sd, ab, ab)
			VMULPS(sd, cd, cd)
			lo := ZMM()
			VMOVAPS(ab, lo)
			VPERMT2PS(cd, idxlo, lo)
			VPERMT2PS(cd, idxhi, ab)
			VMOVUPS(lo, Mem{Base: dst})
			VMOVUPS(ab, Mem{Base: dst, Disp: 64})
		} else {
			x, y := A.AsY(), B.AsY()
			VINSERTF128(Imm(1), C, x, x) // A | C
			VINSERTF128(Imm(1), D, y, y) // B | D
			VMULPS(sd, x, x)
			VMULPS(sd, y, y)
			lo, hi := YMM(), YMM()
			VUNPCKLPS(y, x, lo)        // A0 B0 A1 B1 | C0 D0 C1 D1
			VUNPCKHPS(y, x, hi)        // A2 B2 A3 B3 | C2 D2 C3 D3
			VPERMPD(Imm(0xD8), lo, lo) // A0 B0 C0 D0 A1 B1 C1 D1
			VPERMPD(Imm(0xD8), hi, hi) // A2 B2 C2 D2 A3 B3 C3 D3
			VMOVUPS(lo, Mem{Base: dst})
			VMOVUPS(hi, Mem{Base: dst, Disp: 32})
		}
		ADDQ(Imm(uint64(16*L)), dst)
	}
	DECQ(n)
	JMP(LabelRef("loop"))
	Label("done")
	VZEROUPPER()
	RET()
}

func main() {
	ConstraintExpr("amd64")
	defineConsts()
	for _, a := range []isa{{"AVX512", true}, {"AVX2", false}} {
		kernel(a, false)
		kernel(a, true)
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
