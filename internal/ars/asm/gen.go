// Command asm generates internal/ars's assembly kernels with avo: ARS-4x32-7's words
// (genars.go) on VAES in 512-bit registers (four blocks an instruction) or on AES-NI in
// 128-bit ones, and the float32 transform of those words into normals (gen32.go:
// transform32.go's, stored as float32 for FillWideRows32 or widened to float64 and times
// sd for FillWide), on AVX-512 and AVX2, each AVX-512 transform with a twin that runs one
// group a step for a length's last groups. One generator writes the kernels of both
// widths from one description of the arithmetic, so that they cannot drift apart, and
// that description is transform32.go's operation for operation: its fma32 a VFMADD231PS
// (one rounding), its other operations the same rounded ones, the mantissa's halving and
// the quadrant chosen lane by lane, so that the kernels give the pure-Go path's bits
// (kernel_test.go compares them value by value). (Stream v2's Philox4x32-10 kernels were
// generated here until stream v3 replaced them, issue 44, and stream v1's float64
// Box–Muller before them.)
//
// It is its own module (the main module does not depend on avo); run it through the
// package's go:generate:
//
//	cd internal/ars && go generate
package main

import (
	"flag"

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
	var cs []c
	names, vals := consts32()
	an, av := wordsConsts()
	names, vals = append(names, an...), append(vals, av...)
	for i, name := range names {
		cs = append(cs, c{name, vals[i]})
	}
	consts = GLOBL("arsconst", RODATA|NOPTR)
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
// unsigned conversions, or 256-bit ones with AVX2's blends. A kernel runs chains
// registers of lanes side by side, so that the long dependency chains (a division, a
// square root, the series) of one overlap the others'.
type isa struct {
	name   string // AVX512 or AVX2
	zmm    bool
	chains int
}

// lanes is the float32 lanes of a register.
func (a isa) lanes() int {
	if a.zmm {
		return 16
	}
	return 8
}

// vs is one register a chain.
type vs []reg.VecVirtual

func (a isa) vecs() vs {
	v := make(vs, a.chains)
	for g := range v {
		v[g] = a.vec()
	}
	return v
}

// each emits f for every chain.
func (a isa) each(f func(g int)) {
	for g := range a.chains {
		f(g)
	}
}

// op3 emits op(src2, src1, dst) a chain; m3 the same with a memory (constant) first
// operand shared by the chains, i3 with an immediate.
func (a isa) op3(op func(...Op), x, y, dst vs) { a.each(func(g int) { op(x[g], y[g], dst[g]) }) }
func (a isa) m3(op func(...Op), m Op, y, dst vs) {
	a.each(func(g int) { op(m, y[g], dst[g]) })
}
func (a isa) i3(op func(...Op), imm uint64, x, dst vs) {
	a.each(func(g int) { op(Imm(imm), x[g], dst[g]) })
}

// fixed adapts a three-operand VEX-only instruction to the variadic form op3 takes.
func fixed(op func(x, y, z Op)) func(...Op) { return func(o ...Op) { op(o[0], o[1], o[2]) } }

// pairChains is the chains (groups of 16 lanes) the AVX-512 transform runs side by side:
// a flag, so that the choice can be measured.
var pairChains = flag.Int("pairChains", 4, "groups the AVX-512 transform runs side by side")

func main() {
	flag.Parse()
	ConstraintExpr("amd64")
	defineConsts()
	wordsKernel(wordsWidth{"VAES", 64, []string{"AVX512F", "VAES"}})
	wordsKernel(wordsWidth{"AES", 16, []string{"AVX", "AES"}})
	for _, narrow := range []bool{false, true} {
		pairKernel(isa{"AVX512", true, 1}, *pairChains, false, narrow)
		pairKernel(isa{"AVX512", true, 1}, 1, true, narrow)
		pairKernel(isa{"AVX2", false, 1}, 2, false, narrow) // a group a step: its own One
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
