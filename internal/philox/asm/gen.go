// Command asm generates internal/philox's assembly kernels with avo: Philox4x32-10 on
// groups of eight blocks in 512-bit registers (AVX-512 F and DQ) or four in 256-bit ones
// (AVX2), writing the words where FillWide's normals go (or to FillWideRows32's
// buffer), and FillWide's float32 transform (gen32.go: transform32.go's, on the Philox
// kernels' words, its normals widened to float64, or stored as float32 for
// FillWideRows32), each with a twin that runs one group (unit) a step for a length's
// last groups. One generator writes the kernels of both widths from one description of the arithmetic, so that they cannot drift apart,
// and that description is transform32.go's operation for operation: its fma32 a
// VFMADD231PS (one rounding), its other operations the same rounded ones, the mantissa's
// halving and the quadrant chosen lane by lane, so that the kernels give the pure-Go
// path's bits (kernel_test.go compares them value by value). (Stream v1's float64
// Box–Muller kernels were generated here too until they were removed, issue 44, and the
// float32-output kernels of Fill32 and its peers until those were removed as unused.)
//
// It is its own module (the main module does not depend on avo); run it through the
// package's go:generate:
//
//	cd internal/philox && go generate
package main

import (
	"flag"
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Every constant is a 64-byte slot of eight equal quadwords (or a lane-indexed table), so
// that a 512-bit operand, a 256-bit one (its first half) and a broadcast quadword all
// read it.
var (
	consts   Mem
	constOff = map[string]int{}
)

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
		{"iota", [8]uint64{0, 1, 2, 3, 4, 5, 6, 7}},
		// The Philox kernels' counter steps: a group's lanes past the first group's, and
		// a step's (flag -groupsP up to 8).
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

// isa is the kernel's width: 512-bit registers with AVX-512's masks, ternary logic and
// unsigned conversions, or 256-bit ones with AVX2's blends. A kernel runs groups groups
// (chains) of lanes side by side, so that the long dependency chains (ten rounds, a
// division, a square root, the series) of one group overlap the others'.
type isa struct {
	name   string // AVX512 or AVX2
	zmm    bool
	groups int
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

// fixed adapts a three-operand VEX-only instruction to the variadic form op3 takes.
func fixed(op func(x, y, z Op)) func(...Op) { return func(o ...Op) { op(o[0], o[1], o[2]) } }

// philoxByGroup is Philox4x32-10 of each group's lanes, block indices ctr (in the low
// words of their quadwords; VPMULUDQ reads the low ones), its four output words returned,
// their high halves junk. The stream's other counter words (step, trial) are the same in
// every lane, so round 1's second product and round 2's first are lane-invariant:
// kernel.go's preRounds computes them once a call and folds them into the round keys,
// pre (quadword 2r is round r's k0, 2r+1 its k1, except slots 0, 1, 2, 3 and 5, which
// carry the folded words: see preRounds). Each round is emitted group after group
// rather than operation by operation: a round's temporaries are then live
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
// which the transform kernels read. Apart from the transform, Philox's ten dependent
// rounds have the registers for more groups side by side, and their chains overlap.
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
	units32F = flag.Int("units32", 2, "units of 16 blocks the AVX-512 float32 transform runs side by side")
	groupsP  = flag.Int("groupsP", 6, "groups of 8 blocks the AVX-512 Philox kernel runs side by side")
)

func main() {
	flag.Parse()
	units32 = *units32F
	ConstraintExpr("amd64")
	defineConsts()
	// On AVX-512, a kernel of each kind runs one group (unit) a step (One) too: a
	// stream's last groups, so that a length needs no more blocks than a group's eight
	// past it.
	for _, one := range []bool{false, true} {
		philoxKernel(isa{"AVX512", true, *groupsP}, one)
		kernel32(isa{"AVX512", true, 1}, one, false)
	}
	// On AVX2, the float32 transform runs one unit of two groups a step: its own One.
	for _, one := range []bool{false, true} {
		philoxKernel(isa{"AVX2", false, 2}, one)
	}
	kernel32(isa{"AVX2", false, 1}, false, false)
	// FillWideRows32's float32-output transform, after the others so that theirs stay
	// where they were.
	kernel32(isa{"AVX512", true, 1}, false, true)
	kernel32(isa{"AVX512", true, 1}, true, true)
	kernel32(isa{"AVX2", false, 1}, false, true)
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
