package main

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The float32 transform's kernels (transform32.go: FillWide's normals), in
// float32 lanes: sixteen a 512-bit register, eight a 256-bit one. A unit is two of the
// Philox kernel's groups (16 blocks on AVX-512, 8 on AVX2): the word pairs (w0, w1) and
// (w2, w3) of its blocks are two chains, each a radius and a sine-cosine of as many
// lanes as the register has, so a step of U units runs 2U chains side by side.

// The float32 series' coefficients, transform32.go's literals (coef.py made them).
var (
	atanh32Coef = []float32{-4, -1.333336353302002, -0.7994968891143799, -0.5984904170036316}
	sin32Coef   = []float32{1.5707963705062866, -0.6459634900093079, 0.07968021929264069, -0.004602149128913879}
	cos32Coef   = []float32{1, -1.2337005138397217, 0.25366920232772827, -0.02086007036268711, 0.0009036280680447817}
)

// splat32 is a slot of sixteen equal dwords.
func splat32(x uint32) [8]uint64 { return splat(uint64(x) | uint64(x)<<32) }

func f32bits(x float32) uint32 { return math.Float32bits(x) }

// consts32 are the float32 kernels' constants (defineConsts appends them).
func consts32() (names []string, vals [][8]uint64) {
	add := func(name string, v [8]uint64) { names, vals = append(names, name), append(vals, v) }
	add("d1", splat32(1))
	add("d126", splat32(126))
	add("d158", splat32(158))
	add("d159", splat32(159))
	add("dff", splat32(0xff))
	add("dffff", splat32(0xffff))
	add("d8exp", splat32(8<<23))        // 8 added to a float32's exponent field
	add("d126exp", splat32(126<<23))    // ½'s bits: exponent field 126
	add("halfneg", splat32(0x7F800000)) // added to a positive normal float32's bits: −x/2
	// ⌊(√2 − 1)·2³²⌋: the fraction m − 1 (as 32 fixed-point bits) is above √2 − 1 iff
	// it is above this (√2 − 1 is irrational).
	add("thr", splat32(0x6A09E667))
	add("thr1", splat32(0x6A09E668))
	add("s29", splat32(1<<29))
	add("bit30", splat32(1<<30))
	add("sign32", splat32(1<<31))
	add("p32f", splat32(f32bits(0x1p-32)))
	add("two32", splat32(f32bits(2)))
	add("f65536", splat32(f32bits(65536)))
	add("ln2x2", splat32(f32bits(float32(2*math.Ln2))))
	// VPERMT2D's table: lane 4L + j takes block 4j + L of the unit's two groups (its
	// word j at dword 2·block of the pair), so that the unpacks of the output give
	// blocks in order (kernel32).
	var pack [16]uint32
	for p := range pack {
		pack[p] = uint32(2 * (4*(p%4) + p/4))
	}
	add("pack32", dwords(pack))
	for i, x := range atanh32Coef {
		add(fmt.Sprintf("atanh32_%d", i), splat32(f32bits(x)))
	}
	for i, x := range sin32Coef {
		add(fmt.Sprintf("sin32_%d", i), splat32(f32bits(x)))
	}
	for i, x := range cos32Coef {
		add(fmt.Sprintf("cos32_%d", i), splat32(f32bits(x)))
	}
	return names, vals
}

// r is the constant in a register: shared (loaded once for the chains) on AVX-512, else
// loaded here for an operand that cannot be memory.
func (a isa) r(name string) reg.VecVirtual {
	if a.zmm {
		r := ZMM()
		VMOVDQU32(k(name), r)
		return r
	}
	r := YMM()
	VMOVDQU(k(name), r)
	return r
}

// cm is the constant as a source operand that may be memory: a shared register on
// AVX-512, the memory operand on AVX2.
func (a isa) cm(name string) Op {
	if a.zmm {
		return a.r(name)
	}
	return k(name)
}

// horner32 is c[0] + c[1]z + … + c[n−1]z^(n−1) by Horner's rule (transform32.go's
// horner4), each step one fused float32 FMA with the same addend.
func (a isa) horner32(name string, first, n int, z vs) vs {
	c := func(j int) string { return fmt.Sprintf("%s_%d", name, first+j) }
	p := a.vecs()
	cn := a.r(c(n - 2))
	a.each(func(g int) { VMOVAPS(cn, p[g]) })
	a.m3(VFMADD231PS, a.cm(c(n-1)), z, p) // c[n−1]·z + c[n−2]
	for j := n - 3; j >= 0; j-- {
		a.m3(VFMADD213PS, a.cm(c(j)), z, p) // p·z + c[j]
	}
	return p
}

// radius32 is transform32.go's radius32 of the words w (one a dword lane), w kept.
// The reduction is integer arithmetic on the word that gives float64's f and e exactly
// (a Go model of it matched radius32's over all 2³² words; TestFloat32KernelsExhaustive
// runs the kernels on them all): with E = ⌊log₂ a⌋ (−1 for a = 0, where x = ½) and
// c = 31 − E, frac = (2a + 1) << c mod 2³² is m − 1 as 32 fraction bits (the leading bit
// shifted out; x = a + ½ has E + 1 fraction bits of m, so it is exact), m > √2 iff
// frac > ⌊(√2 − 1)·2³²⌋, and then the halved mantissa's m/2 − 1 is −(2³² − frac)·2⁻³³:
// f is that word's conversion to float32 (one rounding, as float32(m − 1)) times a
// power of two, and 32 − e is c + 1 − big.
func (a isa) radius32(w vs) vs {
	eb, c, d := a.vecs(), a.vecs(), a.vecs()
	if a.zmm {
		// E + 127 as the exponent field of the word truncated to float32 (toward zero:
		// a never rounds up to the next power of two).
		a.each(func(g int) { VCVTUDQ2PS_RZ_SAE(w[g], eb[g]) })
		a.i3(VPSRLD, 23, eb, eb)
		a.m3(VPMAXUD, a.r("d126"), eb, eb) // a = 0: E = −1
	} else {
		// No unsigned or truncating conversion: a's top 24 bits and its low 8 bits
		// converted exactly (each below 2²⁴), the larger exponent field (+8 for the top).
		lo := a.vecs()
		a.i3(VPSRLD, 8, w, eb)
		a.m3(fixed(VPAND), k("dff"), w, lo)
		a.each(func(g int) { VCVTDQ2PS(eb[g], eb[g]) })
		a.each(func(g int) { VCVTDQ2PS(lo[g], lo[g]) })
		a.m3(VPADDD, k("d8exp"), eb, eb)
		a.op3(VPMAXSD, lo, eb, eb)
		a.m3(VPMAXSD, k("d126exp"), eb, eb) // a = 0: E = −1
		a.i3(VPSRLD, 23, eb, eb)
	}
	d158 := a.r("d158")
	a.each(func(g int) { VPSUBD(eb[g], d158, c[g]) }) // c = 31 − E
	a.op3(VPADDD, w, w, d)
	a.m3(VPADDD, a.cm("d1"), d, d)                    // 2a + 1
	a.each(func(g int) { VPSLLVD(c[g], d[g], d[g]) }) // frac
	d159 := a.r("d159")
	a.each(func(g int) { VPSUBD(eb[g], d159, c[g]) }) // c + 1 = 32 − e before the halving
	f := eb
	if a.zmm {
		big := make([]reg.Register, a.groups)
		thr := a.r("thr")
		a.each(func(g int) { big[g] = K(); VPCMPUD(Imm(6), thr, d[g], big[g]) }) // frac > thr
		zero := ZMM()
		VPXORD(zero, zero, zero)
		a.each(func(g int) { VPSUBD(d[g], zero, big[g], d[g]) }) // big: 2³² − frac
		a.each(func(g int) { VCVTUDQ2PS(d[g], f[g]) })
		a.m3(VMULPS, a.r("p32f"), f, f)
		hn := a.r("halfneg")
		a.each(func(g int) { VPADDD(hn, f[g], big[g], f[g]) }) // big: −f/2
		d1 := a.r("d1")
		a.each(func(g int) { VPSUBD(d1, c[g], big[g], c[g]) }) // big: e + 1
	} else {
		big, t := a.vecs(), a.vecs()
		a.m3(VPMAXUD, k("thr1"), d, t)
		a.op3(VPCMPEQD, t, d, big) // frac ≥ thr + 1
		a.op3(fixed(VPXOR), big, d, d)
		a.op3(VPSUBD, big, d, d) // big: −frac = 2³² − frac
		// The unsigned word to float32, one rounding: its high half times 2¹⁶ (exact)
		// plus its low half, fused.
		a.i3(VPSRLD, 16, d, t)
		a.m3(fixed(VPAND), k("dffff"), d, d)
		a.each(func(g int) { VCVTDQ2PS(t[g], t[g]) })
		a.each(func(g int) { VCVTDQ2PS(d[g], f[g]) })
		a.m3(VFMADD231PS, k("f65536"), t, f)
		a.m3(VMULPS, k("p32f"), f, f)
		a.m3(fixed(VPAND), k("halfneg"), big, t)
		a.op3(VPADDD, t, f, f)   // big: −f/2
		a.op3(VPADDD, big, c, c) // big: e + 1
	}
	// s = f/(2 + f), −2 ln m = s·Q(s²), R² = that + (32 − e)·2ln2, one FMA.
	den, s := a.vecs(), a.vecs()
	a.m3(VADDPS, a.cm("two32"), f, den)
	a.op3(VDIVPS, den, f, s)
	z := den
	a.op3(VMULPS, s, s, z)
	q := a.horner32("atanh32", 0, len(atanh32Coef), z)
	e := c
	a.each(func(g int) { VCVTDQ2PS(e[g], e[g]) })
	a.m3(VMULPS, a.cm("ln2x2"), e, e)
	a.op3(VFMADD231PS, s, q, e)
	a.each(func(g int) { VSQRTPS(e[g], e[g]) })
	return e
}

// sinCos32 is transform32.go's sinCos32 of the words b (one a dword lane), b kept.
func (a isa) sinCos32(b vs) (sin, cos vs) {
	t, f := a.vecs(), a.vecs()
	a.m3(VPADDD, a.cm("s29"), b, t) // bits 30, 31: the quarter turn k
	a.i3(VPSLLD, 2, b, f)
	a.each(func(g int) { VCVTDQ2PS(f[g], f[g]) }) // int32(b << 2), one rounding
	a.m3(VMULPS, a.cm("p32f"), f, f)
	z := a.vecs()
	a.op3(VMULPS, f, f, z)
	ps := a.horner32("sin32", 0, len(sin32Coef), z)
	a.op3(VMULPS, ps, f, ps) // f·S(z)
	pc := a.horner32("cos32", 1, len(cos32Coef)-1, z)
	a.m3(VFMADD213PS, a.cm("cos32_0"), z, pc) // C'(z)·z + 1
	// quadrant32: odd k swaps the sine and cosine (the cosine negated), bit 1 of k
	// negates both.
	sin, cos = a.vecs(), a.vecs()
	if a.zmm {
		odd := make([]reg.Register, a.groups)
		b30 := a.r("bit30")
		a.each(func(g int) { odd[g] = K(); VPTESTMD(b30, t[g], odd[g]) })
		a.each(func(g int) { VBLENDMPS(pc[g], ps[g], odd[g], sin[g]) })
		sg := a.r("sign32")
		a.each(func(g int) { VPXORD(sg, ps[g], odd[g], ps[g]) }) // odd: −s
		a.each(func(g int) { VBLENDMPS(ps[g], pc[g], odd[g], cos[g]) })
		a.each(func(g int) { VPTERNLOGD(Imm(0x78), sg, t[g], sin[g]) }) // sin ^= t & sign
		a.each(func(g int) { VPTERNLOGD(Imm(0x78), sg, t[g], cos[g]) })
	} else {
		odd := f
		a.i3(VPSLLD, 1, t, odd) // bit 30 at the sign: VBLENDVPS's selector
		a.each(func(g int) { VBLENDVPS(odd[g], pc[g], ps[g], sin[g]) })
		a.m3(VXORPS, k("sign32"), ps, ps)
		a.each(func(g int) { VBLENDVPS(odd[g], ps[g], pc[g], cos[g]) })
		a.m3(VANDPS, k("sign32"), t, t)
		a.op3(VXORPS, t, sin, sin)
		a.op3(VXORPS, t, cos, cos)
	}
	return sin, cos
}

// The units of 16 blocks the AVX-512 float32 kernels run side by side.
var units32 = 2

// kernel32 is FillWide's transform kernel: 4 float32 normals a block, each widened
// (exact) and times sd in float64 (one rounding), of the words philoxKernel wrote, steps
// of U units (one if one). There is no unscaled twin: sd = 1 gives the same bits
// (z·1 = z), a multiply a vector. With narrow, it is FillWideRows32's (normals32+a.name):
// the same normals stored as float32, half the bytes a unit, without sd (the engine
// scales them in its update).
func kernel32(a isa, one, narrow bool) {
	name := "fillWide"
	if narrow {
		name = "normals32"
	}
	U := 1
	if a.zmm {
		U = units32
	}
	if one {
		name += "One"
		U = 1
	}
	a.groups = 2 * U       // chains
	L := 2 * a.lanes()     // blocks a unit
	unitBytes := 4 * L * 8 // of dst: 4 float64 a block, half that if narrow
	sig, what := "func(dst *float64, words *uint64, steps int, sd float64)", "float64 normals a block (transform32.go's) times sd"
	if narrow {
		unitBytes /= 2
		sig, what = "func(dst *float32, words *uint64, steps int)", "float32 normals a block (transform32.go's)"
	}
	TEXT(name+a.name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(fmt.Sprintf("%s%s writes the normals of steps × %d blocks whose words philox%s wrote to words, 4 %s, to dst.",
		name, a.name, U*L, a.name, what))
	dst := Load(Param("dst"), GP64())
	n := Load(Param("steps"), GP64())
	wp := Load(Param("words"), GP64())
	Label("loop")
	TESTQ(n, n)
	JZ(LabelRef("done"))
	rec := a.record()
	// word j of each chain's pair, one a dword lane: chain 2u+i reads words 2i and 2i+1
	// of unit u's two groups.
	word := func(j int) vs {
		w := a.vecs()
		var idx Op
		if a.zmm {
			idx = a.r("pack32")
		}
		a.each(func(ch int) {
			u, i := ch/2, ch%2
			m0 := Mem{Base: wp, Disp: rec*2*u + 8*a.lanes()*(2*i+j)}
			m1 := m0.Offset(rec)
			if a.zmm {
				VMOVDQU32(m0, w[ch])
				VPERMT2D(m1, idx, w[ch])
			} else {
				// Per 128-bit half, the low words of two blocks of each group: lanes
				// hold blocks 0 1 4 5 | 2 3 6 7.
				VMOVDQU(m0, w[ch])
				VSHUFPS(Imm(0x88), m1, w[ch], w[ch])
			}
		})
		return w
	}
	r := a.radius32(word(0)) // the log first: R waits in one register
	s, c := a.sinCos32(word(1))
	a.op3(VMULPS, r, c, c)
	a.op3(VMULPS, r, s, s)
	var sd reg.VecVirtual
	if !narrow {
		if a.zmm {
			sd = ZMM()
		} else {
			sd = YMM()
		}
		VBROADCASTSD(paramAddr("sd"), sd)
	}
	for u := range U {
		// A, B, C, D = R₀cos₀, R₀sin₀, R₁cos₁, R₁sin₁: transposed by unpacks, lane
		// position 4L + j of X_j's each 128-bit half holding A B C D of one block.
		A, B, C, D := c[2*u], s[2*u], c[2*u+1], s[2*u+1]
		vec := func() reg.VecVirtual {
			if a.zmm {
				return ZMM()
			}
			return YMM()
		}
		acl, ach, bdl, bdh := vec(), vec(), vec(), vec()
		VUNPCKLPS(C, A, acl)
		VUNPCKHPS(C, A, ach)
		VUNPCKLPS(D, B, bdl)
		VUNPCKHPS(D, B, bdh)
		X := [4]reg.VecVirtual{A, B, C, D}
		VUNPCKLPS(bdl, acl, X[0])
		VUNPCKHPS(bdl, acl, X[1])
		VUNPCKLPS(bdh, ach, X[2])
		VUNPCKHPS(bdh, ach, X[3])
		base := u * unitBytes
		switch {
		case narrow && a.zmm: // X_j is blocks 4j to 4j+3
			for j, x := range X {
				VMOVUPS(x, Mem{Base: dst, Disp: base + 64*j})
			}
		case narrow: // X_j's halves are blocks b and b+2 (below)
			for j, x := range X {
				b := 4*(j/2) + j%2
				VMOVUPS(x.AsX(), Mem{Base: dst, Disp: base + 16*b})
				VEXTRACTF128(Imm(1), x, Mem{Base: dst, Disp: base + 16*(b+2)})
			}
		case a.zmm: // X_j's halves are blocks 4j, 4j+1 and 4j+2, 4j+3
			for j, x := range X {
				lo, hi, h := ZMM(), ZMM(), YMM()
				VCVTPS2PD(x.AsY(), lo)
				VEXTRACTF64X4(Imm(1), x, h)
				VCVTPS2PD(h, hi)
				VMULPD(sd, lo, lo)
				VMULPD(sd, hi, hi)
				VMOVUPD(lo, Mem{Base: dst, Disp: base + 128*j})
				VMOVUPD(hi, Mem{Base: dst, Disp: base + 128*j + 64})
			}
		default: // X_j's halves are blocks b and b+2 (X0: 0 2, X1: 1 3, X2: 4 6, X3: 5 7)
			for j, x := range X {
				b := 4*(j/2) + j%2 // X_j's low half's block; its high half's is b + 2
				lo, hi, h := YMM(), YMM(), XMM()
				VCVTPS2PD(x.AsX(), lo)
				VEXTRACTF128(Imm(1), x, h)
				VCVTPS2PD(h, hi)
				VMULPD(sd, lo, lo)
				VMULPD(sd, hi, hi)
				VMOVUPD(lo, Mem{Base: dst, Disp: base + 32*b})
				VMOVUPD(hi, Mem{Base: dst, Disp: base + 32*(b+2)})
			}
		}
	}
	ADDQ(U32(U*unitBytes), dst)
	ADDQ(U32(2*rec*U), wp)
	DECQ(n)
	JMP(LabelRef("loop"))
	Label("done")
	VZEROUPPER()
	RET()
}
