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
	typ   string      // the Go type: "float64" or "float32"
	short string      // in the kernels' names: F64, F32
	size  uint8       // bytes an element
	lanes int         // elements a 256-bit register
	load  func(...Op) // VMOVUPD/VMOVUPS src, dst
	store func(...Op) // the same, register to memory
	bcast func(...Op) // VBROADCASTSD/SS m, dst
	fma   func(...Op) // VFMADD231PD/PS a, b, acc: acc += a·b
	zero  func(...Op) // VXORPD/PS r, r, r
	smov  func(...Op) // VMOVSD/VMOVSS: one element, memory to register or back
	sfma  func(...Op) // VFMADD231SD/SS: one element's acc += a·b
}

var precisions = []precision{
	{typ: "float64", short: "F64", size: 8, lanes: 4, load: VMOVUPD, store: VMOVUPD, bcast: VBROADCASTSD, fma: VFMADD231PD, zero: VXORPD, smov: VMOVSD, sfma: VFMADD231SD},
	{typ: "float32", short: "F32", size: 4, lanes: 8, load: VMOVUPS, store: VMOVUPS, bcast: VBROADCASTSS, fma: VFMADD231PS, zero: VXORPS, smov: VMOVSS, sfma: VFMADD231SS},
}

// rows is the row block of the one-model kernels and of the panels' 4-row kernels; the
// panels also have 6-row kernels (rows6: twelve accumulators of the sixteen registers), which
// read a panel's parameters and gradients from cache once for six rows instead of four.
const (
	rows  = 4
	rows6 = 6
)

// A kernel is a precision on a panel of regs registers a row: 2 (the full panel: 8
// float64 or 16 float32 models) or 1 (the half panel the ensemble's edge takes before it
// goes one model at a time). Both sum in the same order, so a model's result does not
// depend on which panel it falls in.
type kernel struct {
	precision
	regs int
	rows int // rows or rows6
}

// width is the models a panel holds.
func (k kernel) width() int { return k.regs * k.lanes }

// name is the kernel's name for op ("mul" or "acc"): mulF64x8AVX2, accF32x16AVX2, …, and
// mulF64x8R6AVX2, … for the 6-row kernels.
func (k kernel) name(op string) string {
	if k.rows == rows6 {
		return fmt.Sprintf("%s%sx%dR6AVX2", op, k.short, k.width())
	}
	return fmt.Sprintf("%s%sx%dAVX2", op, k.short, k.width())
}

func main() {
	ConstraintExpr("amd64")
	for _, p := range precisions {
		for _, nr := range []int{rows, rows6} {
			for _, regs := range []int{2, 1} {
				mul(kernel{p, regs, nr})
				acc(kernel{p, regs, nr})
			}
		}
		mulOne(p)
		accOne(p)
	}
	peak()
	Generate()
}

// rowPointers loads x and ldx and returns the addresses of x's first n rows.
func rowPointers(p precision, n int) []reg.Register {
	x := Load(Param("x"), GP64())
	ldx := Load(Param("ldx"), GP64())
	SHLQ(U8(shift(p.size)), ldx)
	r := make([]reg.Register, n)
	r[0] = x
	for i := 1; i < n; i++ {
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

// mulArgs are a mul kernel's arguments in registers (strides in bytes).
type mulArgs struct {
	x         []reg.Register // x's rows
	a, lda, d reg.Register
	z         reg.Register
}

// mulHeader declares a mul kernel (func(x *F, ldx int, a *F, lda, d int, z *F)) and
// loads its arguments.
func mulHeader(p precision, nrows int, name, doc string) mulArgs {
	TEXT(name, NOSPLIT, fmt.Sprintf("func(x *%[1]s, ldx int, a *%[1]s, lda, d int, z *%[1]s)", p.typ))
	Pragma("noescape")
	Doc(doc)
	var m mulArgs
	m.x = rowPointers(p, nrows)
	m.a = Load(Param("a"), GP64())
	m.lda = Load(Param("lda"), GP64())
	SHLQ(U8(shift(p.size)), m.lda)
	m.d = Load(Param("d"), GP64())
	m.z = Load(Param("z"), GP64())
	return m
}

// accArgs are an acc kernel's arguments in registers (strides in bytes).
type accArgs struct {
	x      []reg.Register // x's rows
	z, d   reg.Register
	g, ldg reg.Register
}

// accHeader declares an acc kernel (func(x *F, ldx int, z *F, d int, gp *F, ldg int)) and
// loads its arguments.
func accHeader(p precision, nrows int, name, doc string) accArgs {
	TEXT(name, NOSPLIT, fmt.Sprintf("func(x *%[1]s, ldx int, z *%[1]s, d int, gp *%[1]s, ldg int)", p.typ))
	Pragma("noescape")
	Doc(doc)
	var a accArgs
	a.x = rowPointers(p, nrows)
	a.z = Load(Param("z"), GP64())
	a.d = Load(Param("d"), GP64())
	a.g = Load(Param("gp"), GP64())
	a.ldg = Load(Param("ldg"), GP64())
	SHLQ(U8(shift(p.size)), a.ldg)
	return a
}

// overJ emits body(j) for j = 0, …, d − 1, then the label name+end.
func overJ(name, end string, d reg.Register, body func(j reg.Register)) {
	j := GP64()
	XORQ(j, j)
	Label(name + "loop")
	CMPQ(j, d)
	JGE(LabelRef(name + end))
	body(j)
	INCQ(j)
	JMP(LabelRef(name + "loop"))
	Label(name + end)
}

// mul: z[r][t] = Σ_j x[r][j]·a[j][t], r < rows (4 or 6), t < width: rows·regs
// accumulators, one FMA chain per output, j in order (the pure-Go kernel's order, so both
// round alike, whatever the row block).
func mul(p kernel) {
	name := p.name("mul")
	m := mulHeader(p.precision, p.rows, name, fmt.Sprintf("%s sets z (%d × %d) to x's %d rows times a's d × %d panel.", name, p.rows, p.width(), p.rows, p.width()))
	accs := make([][]reg.VecVirtual, p.rows)
	for r := range accs {
		accs[r] = make([]reg.VecVirtual, p.regs)
		for h := range accs[r] {
			accs[r][h] = YMM()
			p.zero(accs[r][h], accs[r][h], accs[r][h])
		}
	}
	overJ(name, "store", m.d, func(j reg.Register) {
		as := make([]reg.VecVirtual, p.regs)
		for h := range as {
			as[h] = YMM()
			p.load(Mem{Base: m.a, Disp: 32 * h}, as[h])
		}
		for r := range p.rows {
			b := YMM()
			p.bcast(Mem{Base: m.x[r], Index: j, Scale: p.size}, b)
			for h := range as {
				p.fma(as[h], b, accs[r][h])
			}
		}
		ADDQ(m.lda, m.a)
	})
	for r := range p.rows {
		for h := range p.regs {
			p.store(accs[r][h], Mem{Base: m.z, Disp: 32 * (p.regs*r + h)})
		}
	}
	VZEROUPPER()
	RET()
}

// acc: g[j][t] += Σ_{r<rows} x[r][j]·z[r][t]: z stays in rows·regs registers; each row of
// g is loaded, takes one FMA a row in r order (the pure-Go kernel's order: rows in order,
// whatever the row block) and is stored.
func acc(p kernel) {
	name := p.name("acc")
	a := accHeader(p.precision, p.rows, name, fmt.Sprintf("%s adds x's %d rows, transposed, times z (%d × %d) to g's d × %d panel.", name, p.rows, p.rows, p.width(), p.width()))
	zs := make([][]reg.VecVirtual, p.rows)
	for r := range zs {
		zs[r] = make([]reg.VecVirtual, p.regs)
		for h := range zs[r] {
			zs[r][h] = YMM()
			p.load(Mem{Base: a.z, Disp: 32 * (p.regs*r + h)}, zs[r][h])
		}
	}
	overJ(name, "done", a.d, func(j reg.Register) {
		gs := make([]reg.VecVirtual, p.regs)
		for h := range gs {
			gs[h] = YMM()
			p.load(Mem{Base: a.g, Disp: 32 * h}, gs[h])
		}
		for r := range p.rows {
			b := YMM()
			p.bcast(Mem{Base: a.x[r], Index: j, Scale: p.size}, b)
			for h := range gs {
				p.fma(zs[r][h], b, gs[h])
			}
		}
		for h := range gs {
			p.store(gs[h], Mem{Base: a.g, Disp: 32 * h})
		}
		ADDQ(a.ldg, a.g)
	})
	VZEROUPPER()
	RET()
}

// mulOne is mul for one model (the ensemble's edge): z[r] = Σ_j x[r][j]·a[j·lda], r < 4,
// with scalar fused operations in the panels' order, so a model at the edge rounds as one
// in a panel (float32 included: the Go fallback's fused steps round twice, through float64).
func mulOne(p precision) {
	name := "mul" + p.short + "x1AVX2"
	m := mulHeader(p, rows, name, name+" sets z (4) to x's four rows times a's column of d (stride lda).")
	var accs [rows]reg.VecVirtual
	for r := range accs {
		accs[r] = XMM()
		p.zero(accs[r], accs[r], accs[r])
	}
	overJ(name, "store", m.d, func(j reg.Register) {
		av := XMM()
		p.smov(Mem{Base: m.a}, av)
		for r := range rows {
			p.sfma(Mem{Base: m.x[r], Index: j, Scale: p.size}, av, accs[r])
		}
		ADDQ(m.lda, m.a)
	})
	for r := range rows {
		p.smov(accs[r], Mem{Base: m.z, Disp: int(p.size) * r})
	}
	RET()
}

// accOne is acc for one model: g[j·ldg] += Σ_{r<4} x[r][j]·z[r], r in order.
func accOne(p precision) {
	name := "acc" + p.short + "x1AVX2"
	a := accHeader(p, rows, name, name+" adds x's four rows, transposed, times z (4) to g's column of d (stride ldg).")
	var zs [rows]reg.VecVirtual
	for r := range zs {
		zs[r] = XMM()
		p.smov(Mem{Base: a.z, Disp: int(p.size) * r}, zs[r])
	}
	overJ(name, "done", a.d, func(j reg.Register) {
		gv := XMM()
		p.smov(Mem{Base: a.g}, gv)
		for r := range rows {
			p.sfma(Mem{Base: a.x[r], Index: j, Scale: p.size}, zs[r], gv)
		}
		p.smov(gv, Mem{Base: a.g})
		ADDQ(a.ldg, a.g)
	})
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
