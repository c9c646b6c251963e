package main

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The float32 transform's kernels (transform32.go: FillWide's normals), in
// float32 lanes: sixteen a 512-bit register, eight a 256-bit one. A group is 8 blocks'
// 32 words, its first 16 the radii's words and its last 16 the angles', paired lane by
// lane; a chain is a register of lanes (a group on AVX-512, half a group on AVX2), a
// radius and a sine-cosine, and a step runs several chains side by side.

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
		big := make([]reg.Register, a.chains)
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
		odd := make([]reg.Register, a.chains)
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

// vec is a register of the width.
func (a isa) vec() reg.VecVirtual {
	if a.zmm {
		return ZMM()
	}
	return YMM()
}

// load loads a whole register.
func (a isa) load(m Mem, x reg.VecVirtual) {
	if a.zmm {
		VMOVDQU32(m, x)
	} else {
		VMOVDQU(m, x)
	}
}

// storeWide stores x's float32 lanes widened (exact) and times sd (one rounding) at m,
// its low half's then its high half's.
func (a isa) storeWide(x, sd reg.VecVirtual, m Mem) {
	var lo, hi, h reg.VecVirtual
	if a.zmm {
		lo, hi, h = ZMM(), ZMM(), YMM()
		VCVTPS2PD(x.AsY(), lo)
		VEXTRACTF64X4(Imm(1), x, h)
	} else {
		lo, hi, h = YMM(), YMM(), XMM()
		VCVTPS2PD(x.AsX(), lo)
		VEXTRACTF128(Imm(1), x, h)
	}
	VCVTPS2PD(h, hi)
	VMULPD(sd, lo, lo)
	VMULPD(sd, hi, hi)
	VMOVUPD(lo, m)
	VMOVUPD(hi, m.Offset(4*a.lanes()))
}

// pairKernel is the transform of a stream's words (kernel.go's pairs): a group is 8
// blocks, 32 words in block order, its first 16 words a (the radii's) and its last 16 b
// (the angles'), paired lane by lane: the group's 32 normals are R(a_l)·cos 2πb_l for
// l = 0 to 15, then R(a_l)·sin 2πb_l. No word crosses a lane and no value is shuffled: a
// chain is 16 lanes (a group) in a 512-bit register, 8 (half a group) in a 256-bit one,
// and a step runs chains chains side by side (one, the One twin, for a length's last
// groups). With narrow it stores the float32 normals (FillWideRows32's), else sd·z in
// float64, each widened exactly and multiplied once (FillWide's: sd = 1 gives the same
// bits, so there is no unscaled twin). In place: a step reads all its words before it
// writes a value, so the words may lie where the values go (narrow) or in the back half
// of that (kernel.go's fillWide).
func pairKernel(a isa, chains int, one, narrow bool) {
	name := "pairWide"
	if narrow {
		name = "pair32"
	}
	if one {
		name += "One"
	}
	a.chains = chains
	lanes := a.lanes()          // float32 lanes a chain
	per := 16 / lanes           // chains a group
	groups := chains / per      // groups a step
	outBytes := 8 * 32 * groups // a step's values
	sig, what := "func(dst *float64, words *uint32, steps int, sd float64)", "float64 normals times sd"
	if narrow {
		outBytes /= 2
		sig, what = "func(dst *float32, words *uint32, steps int)", "float32 normals"
	}
	TEXT(name+a.name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(fmt.Sprintf("%s%s writes the %s of steps × %d groups of 8 blocks whose words (block order, 32 a group) are at words: R(a)·cos 2πb, then R(a)·sin 2πb, for a the group's first 16 words and b its last 16.",
		name, a.name, what, groups))
	dst := Load(Param("dst"), GP64())
	n := Load(Param("steps"), GP64())
	wp := Load(Param("words"), GP64())
	Label("loop")
	TESTQ(n, n)
	JZ(LabelRef("done"))
	at := func(ch int) int { return 128*(ch/per) + 4*lanes*(ch%per) } // a chain's a, in bytes of words
	word := func(off int) vs {
		w := a.vecs()
		a.each(func(ch int) { a.load(Mem{Base: wp, Disp: at(ch) + off}, w[ch]) })
		return w
	}
	r := a.radius32(word(0)) // the log first: R waits in one register
	s, c := a.sinCos32(word(64))
	a.op3(VMULPS, r, c, c)
	a.op3(VMULPS, r, s, s)
	var sd reg.VecVirtual
	if !narrow {
		sd = a.vec()
		VBROADCASTSD(paramAddr("sd"), sd)
	}
	a.each(func(ch int) {
		for half, x := range []reg.VecVirtual{c[ch], s[ch]} {
			if narrow {
				VMOVUPS(x, Mem{Base: dst, Disp: at(ch) + 64*half})
				continue
			}
			a.storeWide(x, sd, Mem{Base: dst, Disp: 2*at(ch) + 128*half}) // float64: twice the bytes
		}
	})
	ADDQ(U32(outBytes), dst)
	ADDQ(U32(128*groups), wp)
	DECQ(n)
	JMP(LabelRef("loop"))
	Label("done")
	VZEROUPPER()
	RET()
}
