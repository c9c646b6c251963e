// Command asm generates reference/ensemble's AVX2/FMA micro-kernels with avo: one
// generator for both precisions, so the float64 and float32 kernels cannot drift apart.
// It is its own module (the main module does not depend on avo); run it through the
// package's go:generate:
//
//	cd reference/ensemble && go generate
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// precision is what differs between the float64 and float32 kernels: the element size,
// the lanes a register holds, and the instructions.
type precision struct {
	name   string      // "float64" or "float32"
	suffix string      // the kernels' names: mul4x8AVX2, mul4x16AVX2
	size   uint8       // bytes an element
	lanes  int         // elements a 256-bit register
	load   func(...Op) // VMOVUPD/VMOVUPS src, dst
	store  func(...Op) // the same, register to memory
	bcast  func(...Op) // VBROADCASTSD/SS m, dst
	fma    func(...Op) // VFMADD231PD/PS a, b, acc: acc += a·b
	zero   func(...Op) // VXORPD/PS r, r, r
}

var precisions = []precision{
	{name: "float64", suffix: "4x8", size: 8, lanes: 4, load: VMOVUPD, store: VMOVUPD, bcast: VBROADCASTSD, fma: VFMADD231PD, zero: VXORPD},
	{name: "float32", suffix: "4x16", size: 4, lanes: 8, load: VMOVUPS, store: VMOVUPS, bcast: VBROADCASTSS, fma: VFMADD231PS, zero: VXORPS},
}

// rows is the micro-kernels' row block; each row's panel takes two registers.
const rows = 4

func main() {
	ConstraintExpr("amd64")
	for _, p := range precisions {
		mul(p)
		acc(p)
	}
	peak()
	Generate()
}

// rowPointers loads x and ldx and returns the addresses of x's four rows.
func rowPointers(p precision) [rows]reg.Register {
	x := Load(Param("x"), GP64())
	ldx := Load(Param("ldx"), GP64())
	SHLQ(U8(shift(p.size)), ldx)
	var r [rows]reg.Register
	r[0] = x
	for i := 1; i < rows; i++ {
		r[i] = GP64()
		LEAQ(Mem{Base: r[i-1], Index: ldx, Scale: 1}, r[i])
	}
	return r
}

func shift(size uint8) uint8 {
	if size == 8 {
		return 3
	}
	return 2
}

// mul: z[r][t] = Σ_j x[r][j]·a[j][t], r < 4, t < 2·lanes: eight accumulators, one FMA
// chain per output, j in order (the pure-Go kernel's order, so both round alike).
func mul(p precision) {
	TEXT("mul"+p.suffix+"AVX2", NOSPLIT, fmt.Sprintf("func(x *%[1]s, ldx int, a *%[1]s, lda, d int, z *%[1]s)", p.name))
	Pragma("noescape")
	Doc(fmt.Sprintf("mul%sAVX2 sets z (4 × %d) to x's four rows times a's d × %d panel.", p.suffix, 2*p.lanes, 2*p.lanes))
	x := rowPointers(p)
	a := Load(Param("a"), GP64())
	lda := Load(Param("lda"), GP64())
	SHLQ(U8(shift(p.size)), lda)
	d := Load(Param("d"), GP64())
	z := Load(Param("z"), GP64())
	var accs [rows][2]reg.VecVirtual
	for r := range accs {
		for h := range accs[r] {
			accs[r][h] = YMM()
			p.zero(accs[r][h], accs[r][h], accs[r][h])
		}
	}
	j := GP64()
	XORQ(j, j)
	Label("mul" + p.suffix + "loop")
	CMPQ(j, d)
	JGE(LabelRef("mul" + p.suffix + "store"))
	a0, a1 := YMM(), YMM()
	p.load(Mem{Base: a}, a0)
	p.load(Mem{Base: a, Disp: 32}, a1)
	for r := range rows {
		b := YMM()
		p.bcast(Mem{Base: x[r], Index: j, Scale: p.size}, b)
		p.fma(a0, b, accs[r][0])
		p.fma(a1, b, accs[r][1])
	}
	ADDQ(lda, a)
	INCQ(j)
	JMP(LabelRef("mul" + p.suffix + "loop"))
	Label("mul" + p.suffix + "store")
	for r := range rows {
		for h := range 2 {
			p.store(accs[r][h], Mem{Base: z, Disp: 32 * (2*r + h)})
		}
	}
	VZEROUPPER()
	RET()
}

// acc: g[j][t] += Σ_{r<4} x[r][j]·z[r][t]: z stays in eight registers; each row of g is
// loaded, takes four FMAs in r order (the pure-Go kernel's order) and is stored.
func acc(p precision) {
	TEXT("acc"+p.suffix+"AVX2", NOSPLIT, fmt.Sprintf("func(x *%[1]s, ldx int, z *%[1]s, d int, gp *%[1]s, ldg int)", p.name))
	Pragma("noescape")
	Doc(fmt.Sprintf("acc%sAVX2 adds x's four rows, transposed, times z (4 × %d) to g's d × %d panel.", p.suffix, 2*p.lanes, 2*p.lanes))
	x := rowPointers(p)
	z := Load(Param("z"), GP64())
	d := Load(Param("d"), GP64())
	g := Load(Param("gp"), GP64())
	ldg := Load(Param("ldg"), GP64())
	SHLQ(U8(shift(p.size)), ldg)
	var zs [rows][2]reg.VecVirtual
	for r := range zs {
		for h := range zs[r] {
			zs[r][h] = YMM()
			p.load(Mem{Base: z, Disp: 32 * (2*r + h)}, zs[r][h])
		}
	}
	j := GP64()
	XORQ(j, j)
	Label("acc" + p.suffix + "loop")
	CMPQ(j, d)
	JGE(LabelRef("acc" + p.suffix + "done"))
	g0, g1 := YMM(), YMM()
	p.load(Mem{Base: g}, g0)
	p.load(Mem{Base: g, Disp: 32}, g1)
	for r := range rows {
		b := YMM()
		p.bcast(Mem{Base: x[r], Index: j, Scale: p.size}, b)
		p.fma(zs[r][0], b, g0)
		p.fma(zs[r][1], b, g1)
	}
	p.store(g0, Mem{Base: g})
	p.store(g1, Mem{Base: g, Disp: 32})
	ADDQ(ldg, g)
	INCQ(j)
	JMP(LabelRef("acc" + p.suffix + "loop"))
	Label("acc" + p.suffix + "done")
	VZEROUPPER()
	RET()
}

// peak: n rounds of twelve independent 4-wide float64 FMAs (96 flops a round), the core's
// FMA peak; returns a sum so nothing is dead code.
func peak() {
	TEXT("fmaPeakAVX2", NOSPLIT, "func(n int) float64")
	Doc("fmaPeakAVX2 runs n rounds of twelve independent 4-wide FMAs: the core's float64 peak.")
	n := Load(Param("n"), GP64())
	one, below := YMM(), YMM()
	t := GP64()
	MOVQ(U64(0x3ff0000000000000), t) // 1.0
	MOVQ(t, one.AsX())
	VBROADCASTSD(one.AsX(), one)
	MOVQ(U64(0x3fefffffffffffff), t) // just below 1: values neither grow nor vanish fast
	MOVQ(t, below.AsX())
	VBROADCASTSD(below.AsX(), below)
	var accs [12]reg.VecVirtual
	for i := range accs {
		accs[i] = YMM()
		VXORPD(accs[i], accs[i], accs[i])
	}
	Label("peakloop")
	TESTQ(n, n)
	JZ(LabelRef("peakdone"))
	for i := range accs {
		VFMADD231PD(one, below, accs[i])
	}
	DECQ(n)
	JMP(LabelRef("peakloop"))
	Label("peakdone")
	for w := 1; w < len(accs); w *= 2 {
		for i := 0; i+w < len(accs); i += 2 * w {
			VADDPD(accs[i+w], accs[i], accs[i])
		}
	}
	hi := XMM()
	VEXTRACTF128(U8(1), accs[0], hi)
	VADDPD(accs[0].AsX(), hi, hi)
	VHADDPD(hi, hi, hi)
	Store(hi, ReturnIndex(0))
	VZEROUPPER()
	RET()
}
