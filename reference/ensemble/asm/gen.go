// Command asm generates reference/ensemble's AVX2/FMA micro-kernels and its AVX-512 ones
// (12 rows × 2 registers of models) with avo — one generator for both precisions, so the
// float64 and float32 kernels cannot drift apart — and, with -set logit,
// reference/internal/logit's four-lane logistic derivatives.
// It is its own module (the main module does not depend on avo); run it through the
// package's go:generate:
//
//	cd reference/ensemble && go generate
package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"

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
	mul   func(...Op) // VMULPD/PS a, b, dst: dst = a·b
}

var precisions = []precision{
	{typ: "float64", short: "F64", size: 8, lanes: 4, load: VMOVUPD, store: VMOVUPD, bcast: VBROADCASTSD, fma: VFMADD231PD, zero: VXORPD, smov: VMOVSD, sfma: VFMADD231SD, mul: VMULPD},
	{typ: "float32", short: "F32", size: 4, lanes: 8, load: VMOVUPS, store: VMOVUPS, bcast: VBROADCASTSS, fma: VFMADD231PS, zero: VXORPS, smov: VMOVSS, sfma: VFMADD231SS, mul: VMULPS},
}

// rows is the row block of the one-model kernels and of the panels' 4-row kernels; the
// panels also have 6-row kernels (rows6: twelve accumulators of the sixteen registers), which
// read a panel's parameters and gradients from cache once for six rows instead of four.
const (
	rows   = 4
	rows6  = 6
	rows12 = 12
)

// The AVX-512 kernels take twelve rows against two 512-bit registers of models (16
// float64, 32 float32): 24 accumulators of the 32 registers. Against the AVX2 panels they
// read a row of parameters or gradients from cache once for twelve rows instead of six,
// and x's rows once for 16 models instead of 8. (Six rows against four registers was
// measured too: slower, it reads Θ and G twice as often.)
const wideRegs = 2

// A kernel is a precision on a panel of regs registers a row: 2 (the full panel: 8
// float64 or 16 float32 models) or 1 (the half panel the ensemble's edge takes before it
// goes one model at a time). Both sum in the same order, so a model's result does not
// depend on which panel it falls in.
type kernel struct {
	precision
	regs int
	rows int  // rows, rows6 or rows12 (the AVX-512 kernels also 8 and 4)
	zmm  bool // 512-bit registers (AVX-512): twice the lanes
	evex bool // an AVX-512 kernel (thirty-two registers; 256-bit ones unless zmm)
}

// width is the models a panel holds.
func (k kernel) width() int { return k.regs * k.vlanes() }

// vlanes is the elements a register holds; vbytes its bytes.
func (k kernel) vlanes() int {
	if k.zmm {
		return 2 * k.lanes
	}
	return k.lanes
}

func (k kernel) vbytes() int { return 32 * k.vlanes() / k.lanes }

// vec allocates a vector register of the kernel's width.
func (k kernel) vec() reg.VecVirtual {
	if k.zmm {
		return ZMM()
	}
	return YMM()
}

// zero clears a register of the kernel's: VPXORQ on AVX-512 kernels' (AVX-512F, and VL for
// the 256-bit ones: VXORPD on a ZMM register needs DQ, and on Y16–Y31 VL), else the
// precision's VXORPD/PS.
func (k kernel) zeroVec(r reg.VecVirtual) {
	if k.evex {
		VPXORQ(r, r, r)
		return
	}
	k.zero(r, r, r)
}

// name is the kernel's name for op ("mul" or "acc"): mulF64x8AVX2, accF32x16AVX2, …, and
// mulF64x8R6AVX2, … for the 6-row kernels.
func (k kernel) name(op string) string {
	if k.evex {
		return fmt.Sprintf("%s%sx%dR%dAVX512", op, k.short, k.width(), k.rows)
	}
	if k.rows == rows6 {
		return fmt.Sprintf("%s%sx%dR6AVX2", op, k.short, k.width())
	}
	return fmt.Sprintf("%s%sx%dAVX2", op, k.short, k.width())
}

func main() {
	set := flag.String("set", "ensemble", "the functions to generate: ensemble (reference/ensemble's kernels) or logit (reference/internal/logit's derivatives)")
	flag.Parse()
	ConstraintExpr("amd64")
	if *set == "logit" {
		derivs()
		Generate()
		return
	}
	for _, p := range precisions {
		for _, nr := range []int{rows, rows6} {
			for _, regs := range []int{2, 1} {
				mul(kernel{p, regs, nr, false, false})
				acc(kernel{p, regs, nr, false, false})
			}
		}
		// AVX-512: two 512-bit registers of models (the wide block), one (narrow), one
		// 256-bit (half), each on 12, 8 or 4 rows, so that a batch's rows all go through
		// them whatever b mod 12; the mul kernels also in an init form (mulWideInit)
		for _, shape := range []struct {
			regs int
			zmm  bool
		}{{wideRegs, true}, {1, true}, {1, false}} {
			for _, nr := range []int{rows12, 8, rows} {
				k := kernel{p, shape.regs, nr, shape.zmm, true}
				mulWide(k)
			}
			accRows(kernel{p, shape.regs, 0, shape.zmm, true})
		}
		mulOne(p)
		accOne(p)
	}
	dotOne(true, 8)
	axpyOne(true, 8)
	dotOne(true, rows)
	axpyOne(true, rows)
	dotOne(false, 2)
	axpyOne(false, rows)
	for _, f32 := range []bool{false, true} {
		noisyStep(f32, 2)
		noisyStep(f32, 1)
	}
	weights512(precisions[0])
	weights32()
	weights32AVX2()
	peak()
	peak512()
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
			accs[r][h] = p.vec()
			p.zero(accs[r][h], accs[r][h], accs[r][h])
		}
	}
	overJ(name, "store", m.d, func(j reg.Register) {
		as := make([]reg.VecVirtual, p.regs)
		for h := range as {
			as[h] = p.vec()
			p.load(Mem{Base: m.a, Disp: p.vbytes() * h}, as[h])
		}
		for r := range p.rows {
			b := p.vec()
			p.bcast(Mem{Base: m.x[r], Index: j, Scale: p.size}, b)
			for h := range as {
				p.fma(as[h], b, accs[r][h])
			}
		}
		ADDQ(m.lda, m.a)
	})
	for r := range p.rows {
		for h := range p.regs {
			p.store(accs[r][h], Mem{Base: m.z, Disp: p.vbytes() * (p.regs*r + h)})
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
			zs[r][h] = p.vec()
			p.load(Mem{Base: a.z, Disp: p.vbytes() * (p.regs*r + h)}, zs[r][h])
		}
	}
	overJ(name, "done", a.d, func(j reg.Register) {
		gs := make([]reg.VecVirtual, p.regs)
		for h := range gs {
			gs[h] = p.vec()
			p.load(Mem{Base: a.g, Disp: p.vbytes() * h}, gs[h])
		}
		for r := range p.rows {
			b := p.vec()
			p.bcast(Mem{Base: a.x[r], Index: j, Scale: p.size}, b)
			for h := range gs {
				p.fma(zs[r][h], b, gs[h])
			}
		}
		for h := range gs {
			p.store(gs[h], Mem{Base: a.g, Disp: p.vbytes() * h})
		}
		ADDQ(a.ldg, a.g)
	})
	VZEROUPPER()
	RET()
}

// rowsAt addresses x's rows in the wide kernels, which have too many rows for a register
// each: a base every four rows, advanced one element a step, and the rows between it and
// the next through ldx and 3·ldx.
type rowsAt struct {
	bases     []reg.Register
	ldx, ldx3 reg.Register
	size      uint8
}

// loadRows loads x and ldx and sets up n rows' addresses.
func loadRows(p precision, n int) rowsAt {
	ra := rowsAt{size: p.size}
	x := Load(Param("x"), GP64())
	ra.ldx = Load(Param("ldx"), GP64())
	SHLQ(U8(shift(p.size)), ra.ldx)
	ra.ldx3 = GP64()
	LEAQ(Mem{Base: ra.ldx, Index: ra.ldx, Scale: 2}, ra.ldx3)
	ra.bases = []reg.Register{x}
	for r := 4; r < n; r += 4 {
		b := GP64()
		LEAQ(Mem{Base: ra.bases[len(ra.bases)-1], Index: ra.ldx, Scale: 4}, b)
		ra.bases = append(ra.bases, b)
	}
	return ra
}

// at is row r's element at the current step.
func (ra rowsAt) at(r int) Mem {
	b := ra.bases[r/4]
	switch r % 4 {
	case 1:
		return Mem{Base: b, Index: ra.ldx, Scale: 1}
	case 2:
		return Mem{Base: b, Index: ra.ldx, Scale: 2}
	case 3:
		return Mem{Base: b, Index: ra.ldx3, Scale: 1}
	}
	return Mem{Base: b}
}

// step moves every row to its next element.
func (ra rowsAt) step() {
	for _, b := range ra.bases {
		ADDQ(U8(ra.size), b)
	}
}

// overSteps emits body() d times (d ≥ 0, counted down in the register), then the label
// name+end.
func overSteps(name, end string, d reg.Register, body func()) {
	Label(name + "loop")
	TESTQ(d, d)
	JZ(LabelRef(name + end))
	body()
	DECQ(d)
	JMP(LabelRef(name + "loop"))
	Label(name + end)
}

// flagUnlessAll sets special to 1 unless the lane mask m (moved to a general register by
// KMOVW or VMOVMSKPS/PD) has all of full's bits: some lane left the kernel's range, and the
// caller redoes the block in Go. label names the jump past.
func flagUnlessAll(m reg.Register, full uint32, special reg.Register, label string) {
	CMPL(m, U32(full))
	JE(LabelRef(label))
	MOVQ(U64(1), special)
	Label(label)
}

// zeroZ clears a 512-bit register (VPXORQ: AVX-512F alone, where VXORPD on ZMM needs DQ).
func zeroZ(r reg.VecVirtual) { VPXORQ(r, r, r) }

// mulWide is mul with AVX-512 registers: rows × regs accumulators (24 of the 32 at most),
// one FMA chain per output, j in order, so a model rounds here as in the AVX2 panels and in
// Go. The rows after the block (the next block's, in pass512's order) are prefetched as it
// goes: when it ends they are in L1 or on their way, not in memory.
func mulWide(p kernel) {
	name := p.name("mul")
	TEXT(name, NOSPLIT, fmt.Sprintf("func(x *%[1]s, ldx int, a *%[1]s, lda, d int, z *%[1]s)", p.typ))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s sets z (%d × %d) to x's %d rows times a's d × %d panel (AVX-512).", name, p.rows, p.width(), p.rows, p.width()))
	ra := loadRows(p.precision, p.rows)
	a := Load(Param("a"), GP64())
	lda := Load(Param("lda"), GP64())
	SHLQ(U8(shift(p.size)), lda)
	d := Load(Param("d"), GP64())
	accs := make([][]reg.VecVirtual, p.rows)
	for r := range accs {
		accs[r] = make([]reg.VecVirtual, p.regs)
		for h := range accs[r] {
			accs[r][h] = p.vec()
			p.zeroVec(accs[r][h])
		}
	}
	// the next rows, rows·size bytes a step: over the d steps, as many bytes as the block's
	// (a prefetch never faults, so the rows after x's last need not exist)
	pf := GP64()
	LEAQ(Mem{Base: ra.bases[len(ra.bases)-1], Index: ra.ldx, Scale: 4}, pf)
	pfBytes := p.rows * int(p.size)
	overSteps(name, "store", d, func() {
		for l := 0; l < pfBytes; l += 64 {
			PREFETCHT0(Mem{Base: pf, Disp: l})
		}
		ADDQ(U8(pfBytes), pf)
		as := make([]reg.VecVirtual, p.regs)
		for h := range as {
			as[h] = p.vec()
			p.load(Mem{Base: a, Disp: p.vbytes() * h}, as[h])
		}
		for r := range p.rows {
			b := p.vec()
			p.bcast(ra.at(r), b)
			for h := range as {
				p.fma(as[h], b, accs[r][h])
			}
		}
		ADDQ(lda, a)
		ra.step()
	})
	z := Load(Param("z"), GP64())
	for r := range p.rows {
		for h := range p.regs {
			p.store(accs[r][h], Mem{Base: z, Disp: p.vbytes() * (p.regs*r + h)})
		}
	}
	VZEROUPPER()
	RET()
}

// accRows is acc turned around for a chunk of rows at once: g's rows are held in registers,
// cols of them (8 for a panel of two registers, 16 for one), while every row of the chunk
// passes, then stored, so that g is read and written once a chunk instead of once every
// twelve rows:
//
//	g[j][t] = init + Σ_{r<rows} x[r][j]·z[r][t],  init = lambda·base[j][t] (base non-nil) or g[j][t],
//
// z rows × width (stride width). Each output is one rounded product (as Go's lambda*v, the
// Init kernels' λ·base) then one FMA a row in r order: the bits of accWide over the same rows
// in blocks, from the same start.
func accRows(p kernel) {
	name := fmt.Sprintf("accRows%sx%dAVX512", p.short, p.width())
	TEXT(name, NOSPLIT, fmt.Sprintf("func(x *%[1]s, ldx int, z *%[1]s, rows, d int, gp *%[1]s, ldg int, base *%[1]s, lambda %[1]s)", p.typ))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s sets g's d × %d panel (stride ldg) to lambda times base's (if base is not nil; else g's own) plus x's rows, transposed, times z (rows × %d), a row at a time in order (AVX-512).", name, p.width(), p.width()))
	x := Load(Param("x"), GP64())
	ldx := Load(Param("ldx"), GP64())
	SHLQ(U8(shift(p.size)), ldx)
	g := Load(Param("gp"), GP64())
	ldg := Load(Param("ldg"), GP64())
	SHLQ(U8(shift(p.size)), ldg)
	base := Load(Param("base"), GP64())
	lamX := Load(Param("lambda"), XMM())
	lam := p.vec()
	p.bcast(lamX, lam)
	cols := 16 / p.regs
	// accRows prefetches nothing (the mul kernels prefetch the rows after each of their
	// blocks): its chunk's rows were just read by them, and are in L2 if chunkBytes fits
	d := Load(Param("d"), GP64())
	for _, nc := range []int{cols, 1} {
		loop := fmt.Sprintf("%scols%d", name, nc)
		Label(loop)
		CMPQ(d, U8(nc))
		JL(LabelRef(loop + "end"))
		accs := make([][]reg.VecVirtual, nc)
		for c := range accs {
			accs[c] = make([]reg.VecVirtual, p.regs)
			for h := range accs[c] {
				accs[c][h] = p.vec()
			}
		}
		// the tile's start: lambda·base, or g
		row := GP64() // the tile's row c (g or base), walked down a row at a time
		fromG, started := loop+"g", loop+"start"
		TESTQ(base, base)
		JZ(LabelRef(fromG))
		MOVQ(base, row)
		for c := range nc {
			for h := range p.regs {
				p.mul(Mem{Base: row, Disp: p.vbytes() * h}, lam, accs[c][h])
			}
			ADDQ(ldg, row)
		}
		JMP(LabelRef(started))
		Label(fromG)
		MOVQ(g, row)
		for c := range nc {
			for h := range p.regs {
				p.load(Mem{Base: row, Disp: p.vbytes() * h}, accs[c][h])
			}
			ADDQ(ldg, row)
		}
		Label(started)
		xr := GP64()
		MOVQ(x, xr)
		zp := Load(Param("z"), GP64())
		n := Load(Param("rows"), GP64())
		overSteps(loop+"r", "done", n, func() {
			zs := make([]reg.VecVirtual, p.regs)
			for h := range zs {
				zs[h] = p.vec()
				p.load(Mem{Base: zp, Disp: p.vbytes() * h}, zs[h])
			}
			for c := range nc {
				b := p.vec()
				p.bcast(Mem{Base: xr, Disp: c * int(p.size)}, b)
				for h := range zs {
					p.fma(zs[h], b, accs[c][h])
				}
			}
			ADDQ(ldx, xr)
			ADDQ(U32(p.vbytes()*p.regs), zp)
		})
		MOVQ(g, row)
		for c := range nc {
			for h := range p.regs {
				p.store(accs[c][h], Mem{Base: row, Disp: p.vbytes() * h})
			}
			ADDQ(ldg, row)
		}
		MOVQ(row, g)
		TESTQ(base, base)
		JZ(LabelRef(loop + "nobase"))
		for range nc {
			ADDQ(ldg, base)
		}
		Label(loop + "nobase")
		ADDQ(U8(nc*int(p.size)), x)
		SUBQ(U8(nc), d)
		JMP(LabelRef(loop))
		Label(loop + "end")
	}
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
	sum := peakRounds("peak", YMM, func(r reg.VecVirtual) { VXORPD(r, r, r) })
	hi := XMM()
	VEXTRACTF128(U8(1), sum, hi)
	VADDPD(sum.AsX(), hi, hi)
	VHADDPD(hi, hi, hi)
	Store(hi, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// peakRounds is the body of a peak kernel: n rounds of twelve independent FMAs on vec's
// registers (zeroed by zero), whose sum, added pairwise, it returns in a register (the
// loop's labels start with label).
func peakRounds(label string, vec func() reg.VecVirtual, zero func(reg.VecVirtual)) reg.VecVirtual {
	n := Load(Param("n"), GP64())
	one, below := vec(), vec()
	t := GP64()
	MOVQ(U64(0x3ff0000000000000), t) // 1.0
	MOVQ(t, one.AsX())
	VBROADCASTSD(one.AsX(), one)
	MOVQ(U64(0x3fefffffffffffff), t) // just below 1: values neither grow nor vanish fast
	MOVQ(t, below.AsX())
	VBROADCASTSD(below.AsX(), below)
	var accs [12]reg.VecVirtual
	for i := range accs {
		accs[i] = vec()
		zero(accs[i])
	}
	Label(label + "loop")
	TESTQ(n, n)
	JZ(LabelRef(label + "done"))
	for i := range accs {
		VFMADD231PD(one, below, accs[i])
	}
	DECQ(n)
	JMP(LabelRef(label + "loop"))
	Label(label + "done")
	for w := 1; w < len(accs); w *= 2 {
		for i := 0; i+w < len(accs); i += 2 * w {
			VADDPD(accs[i+w], accs[i], accs[i])
		}
	}
	return accs[0]
}

// expConsts are math.Exp's constants on amd64 (src/math/exp_amd64.s, from Shibata's SLEEF),
// parsed from the same decimals as the Go assembler parses them, each four times over (a
// register's worth): LOG2E, the two halves of ln 2, the reduction's 1/16, the Taylor
// coefficients from 1/8! up to 1, 2, and our own: ±1, the sign bit, the exponent bias, and
// the largest |t| whose exp(−|t|) takes math.Exp's normal path (denormal results, below
// about −708.4, and NaN go to the caller's scalar code).
// namedBits is a constant of a table (constTable): its name and its bits.
type namedBits struct {
	name string
	bits uint64
}

var expConsts = []namedBits{
	{"log2e", f("1.4426950408889634073599246810018920")},
	{"ln2u", f("0.69314718055966295651160180568695068359375")},
	{"ln2l", f("0.28235290563031577122588448175013436025525412068e-12")},
	{"sixteenth", f("0.0625")},
	{"c8", f("2.4801587301587301587e-5")},
	{"c7", f("1.9841269841269841270e-4")},
	{"c6", f("1.3888888888888888889e-3")},
	{"c5", f("8.3333333333333333333e-3")},
	{"c4", f("4.1666666666666666667e-2")},
	{"c3", f("1.6666666666666666667e-1")},
	{"c2", f("0.5")},
	{"one", f("1.0")},
	{"two", f("2.0")},
	{"sign", 1 << 63},
	{"abs", 1<<63 - 1},
	{"bias", 0x3ff},
	{"normal", f("708")},
}

func f(s string) uint64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic(err)
	}
	return math.Float64bits(v)
}

// expData lays expConsts out (32 bytes each) once and returns each one's address.
var expData map[string]Mem

func expConst(name string) Mem {
	return constAt(&expData, "expconst", 4, 8, expConsts, name)
}

// constAt returns the address of the constant name of consts, a table laid out under
// symbol at its first use (into *table): each constant lanes times over, size bytes a
// lane (8 or 4, the low bits then). It panics on a name the table lacks.
func constAt(table *map[string]Mem, symbol string, lanes, size int, consts []namedBits, name string) Mem {
	if *table == nil {
		*table = map[string]Mem{}
		base := GLOBL(symbol, RODATA|NOPTR)
		slot := lanes * size
		for i, c := range consts {
			for l := range lanes {
				if size == 4 {
					DATA(slot*i+4*l, U32(uint32(c.bits)))
				} else {
					DATA(slot*i+8*l, U64(c.bits))
				}
			}
			(*table)[c.name] = base.Offset(slot * i)
		}
	}
	m, ok := (*table)[name]
	if !ok {
		panic("no constant " + name + " in " + symbol)
	}
	return m
}

// expLanes is math.Exp's avxfma path (exp_amd64.s) on four lanes, for arguments on its
// normal path (finite, result normal): the same operations in the same order, so the
// same bits.
func expLanes(x reg.VecVirtual) reg.VecVirtual {
	x1 := YMM()
	VMULPD(expConst("log2e"), x, x1)
	bx := XMM()
	VCVTPD2DQY(x1, bx) // rounds to nearest, as CVTSD2SL does
	VCVTDQ2PD(bx, x1)
	x0 := YMM()
	VMOVAPD(x, x0)
	VFNMADD231PD(expConst("ln2u"), x1, x0)
	VFNMADD231PD(expConst("ln2l"), x1, x0)
	VMULPD(expConst("sixteenth"), x0, x0)
	p := YMM()
	VMOVUPD(expConst("c8"), p)
	for _, c := range []string{"c7", "c6", "c5", "c4", "c3", "c2", "one"} {
		VFMADD213PD(expConst(c), x0, p)
	}
	VMULPD(p, x0, x0)
	for range 3 {
		VADDPD(expConst("two"), x0, p)
		VMULPD(p, x0, x0)
	}
	VADDPD(expConst("two"), x0, p)
	VFMADD213PD(expConst("one"), p, x0)
	scale := YMM()
	VPMOVSXDQ(bx, scale)
	VPADDQ(expConst("bias"), scale, scale)
	VPSLLQ(U8(52), scale, scale)
	VMULPD(scale, x0, x0)
	return x0
}

// peak512: peak with twelve independent 8-wide FMAs (192 flops a round) on 512-bit
// registers: the same peak on cores that split them in two (AMD's Zen 4), twice it on
// cores with two full-width FMA units.
func peak512() {
	TEXT("fmaPeakAVX512", NOSPLIT, "func(n int) float64")
	Doc("fmaPeakAVX512 runs n rounds of twelve independent 8-wide FMAs: the core's float64 peak with AVX-512.")
	sum := peakRounds("peak512", ZMM, zeroZ).AsX()
	Store(sum, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// derivs: w[i] = inv · (−y_i · min(σ(−y_i·u_i), c_i)) for i < n (n a multiple of 4), the
// logistic derivative clipped at c_i (reference's logisticLink.deriv; "min" as its s > c
// comparison: a NaN s stays), four lanes at a time, with exp as math.Exp does it on amd64
// (expLanes). It returns 1 if some −y_i·u_i was NaN or beyond ±708: the caller redoes those
// in Go.
func derivs() {
	TEXT("derivsAVX2", NOSPLIT, "func(w, u, y, c *float64, n int, inv float64) int")
	Pragma("noescape")
	Doc("derivsAVX2 sets w[i] = inv·(−y[i]·min(σ(−y[i]·u[i]), c[i])) for i < n (a multiple of 4), as the Go code computes it; it returns 1 if a lane left math.Exp's normal path (the caller then recomputes).")
	w := Load(Param("w"), GP64())
	u := Load(Param("u"), GP64())
	y := Load(Param("y"), GP64())
	c := Load(Param("c"), GP64())
	n := Load(Param("n"), GP64())
	inv := YMM()
	VBROADCASTSD(Load(Param("inv"), XMM()), inv)
	special := GP64()
	XORQ(special, special)
	zero := YMM()
	VXORPD(zero, zero, zero)
	Label("derivsloop")
	TESTQ(n, n)
	JZ(LabelRef("derivsdone"))
	negY, t := YMM(), YMM()
	VMOVUPD(Mem{Base: y}, negY)
	VXORPD(expConst("sign"), negY, negY)
	VMULPD(Mem{Base: u}, negY, t) // t = −y·u
	abs, ok := YMM(), YMM()
	VANDPD(expConst("abs"), t, abs)
	VCMPPD(U8(0x12), expConst("normal"), abs, ok) // |t| ≤ 708 (LE_OQ: NaN fails)
	m := GP32()
	VMOVMSKPD(ok, m)
	flagUnlessAll(m, 0xf, special, "derivsnormal")
	pos, negT, x := YMM(), YMM(), YMM()
	VCMPPD(U8(0x1d), zero, t, pos) // t ≥ 0 (GE_OQ)
	VXORPD(expConst("sign"), t, negT)
	VBLENDVPD(pos, negT, t, x) // x = t ≥ 0 ? −t : t
	e := expLanes(x)
	num, den, s := YMM(), YMM(), YMM()
	VBLENDVPD(pos, expConst("one"), e, num)
	VADDPD(expConst("one"), e, den)
	VDIVPD(den, num, s) // σ(t)
	cv, gt := YMM(), YMM()
	VMOVUPD(Mem{Base: c}, cv)
	VCMPPD(U8(0x1e), cv, s, gt) // s > c (GT_OQ: a NaN s stays)
	VBLENDVPD(gt, cv, s, s)
	VMULPD(s, negY, s) // −y·s
	VMULPD(s, inv, s)
	VMOVUPD(s, Mem{Base: w})
	for _, p := range []reg.Register{w, u, y, c} {
		ADDQ(U8(32), p)
	}
	SUBQ(U8(4), n)
	JMP(LabelRef("derivsloop"))
	Label("derivsdone")
	Store(special, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// oneLanes is the lanes of the one-model margins (LogisticGradientOne): lane l sums x_j·θ_j
// over j ≡ l mod 16, j < d &^ 15, in two 512-bit accumulators.
const oneLanes = 16

// 2^oneAheadLog2 is how many rows ahead the one-model margins prefetch (PREFETCHT1, into L2):
// two blocks of eight, so that memory keeps streaming while a block's terms are added from
// the caches (axpyOne reads nothing new), the gap in which it stood idle before.
// LogisticGradientOne ran 15–20 % faster with it on Zen 4 (one model's epoch at full batch
// and at b = 128); prefetching one block ahead, or in axpyOne as well, was no faster, and
// into L1 (PREFETCHT0) or non-temporally slower than none. A prefetch past X's end is
// dropped, never a fault.
const oneAheadLog2 = 4 // 16 rows

// dotOne: u[r] = x_r·θ for four rows (zmm; two rows with AVX2's sixteen registers),
// vectorised over j: sixteen lanes a row (two 512-bit accumulators, or four 256-bit), lane l
// summing j ≡ l (mod 16); then lanes l and l + 8 added, l and l + 4, l and l + 2, the last
// two (VHADDPD), then the last d mod 16 terms one scalar FMA each in order: the order dotGo
// follows, so the same bits on both paths.
func dotOne(zmm bool, nrows int) {
	name, regs, vb := fmt.Sprintf("dotF64x%dAVX512", nrows), 2, 64
	vec := ZMM
	if !zmm {
		name, nrows, regs, vb = "dotF64x2AVX2", 2, 4, 32
		vec = YMM
	}
	TEXT(name, NOSPLIT, "func(x *float64, ldx int, theta *float64, d int, u *float64)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s sets u[r] = x_r·θ for x's %d rows, 16 lanes over j, as dotGo sums.", name, nrows))
	p := precisions[0]
	x := rowPointers(p, nrows)
	th := Load(Param("theta"), GP64())
	d := Load(Param("d"), GP64())
	steps := GP64()
	MOVQ(d, steps)
	SHRQ(U8(4), steps)
	ANDQ(U8(oneLanes-1), d)
	ahead := Load(Param("ldx"), GP64()) // bytes from a row to the row 2^oneAheadLog2 rows on
	SHLQ(U8(shift(p.size)+oneAheadLog2), ahead)
	acc := make([][]reg.VecVirtual, nrows)
	for r := range acc {
		acc[r] = make([]reg.VecVirtual, regs)
		for h := range acc[r] {
			acc[r][h] = vec()
			if zmm {
				VPXORQ(acc[r][h], acc[r][h], acc[r][h]) // AVX-512F (VXORPD on ZMM needs DQ)
			} else {
				VXORPD(acc[r][h], acc[r][h], acc[r][h])
			}
		}
	}
	overSteps(name+"v", "tail", steps, func() {
		for r := range nrows { // the step's two lines of each row 16 rows on, into L2
			PREFETCHT1(Mem{Base: x[r], Index: ahead, Scale: 1})
			PREFETCHT1(Mem{Base: x[r], Index: ahead, Scale: 1, Disp: 64})
		}
		for h := range regs {
			t := vec()
			VMOVUPD(Mem{Base: th, Disp: vb * h}, t)
			for r := range nrows {
				VFMADD231PD(Mem{Base: x[r], Disp: vb * h}, t, acc[r][h])
			}
		}
		ADDQ(U8(128), th)
		for r := range nrows {
			ADDQ(U8(128), x[r])
		}
	})
	s := make([]reg.VecVirtual, nrows)
	for r := range nrows {
		var hi reg.VecVirtual
		if zmm {
			VADDPD(acc[r][1], acc[r][0], acc[r][0]) // l + (l + 8)
			hi = YMM()
			VEXTRACTF64X4(U8(1), acc[r][0], hi)
			VADDPD(hi, acc[r][0].AsY(), hi) // l + (l + 4)
		} else {
			VADDPD(acc[r][2], acc[r][0], acc[r][0]) // lanes 0–3 + 8–11
			VADDPD(acc[r][3], acc[r][1], acc[r][1]) // lanes 4–7 + 12–15
			VADDPD(acc[r][1], acc[r][0], acc[r][0]) // l + (l + 4)
			hi = acc[r][0]
		}
		h2 := XMM()
		VEXTRACTF128(U8(1), hi, h2)
		VADDPD(h2, hi.AsX(), h2) // l + (l + 2)
		VHADDPD(h2, h2, h2)
		s[r] = h2
	}
	overSteps(name, "store", d, func() {
		t := XMM()
		VMOVSD(Mem{Base: th}, t)
		for r := range nrows {
			VFMADD231SD(Mem{Base: x[r]}, t, s[r])
			ADDQ(U8(8), x[r])
		}
		ADDQ(U8(8), th)
	})
	u := Load(Param("u"), GP64())
	for r := range nrows {
		VMOVSD(s[r], Mem{Base: u, Disp: 8 * r})
	}
	VZEROUPPER()
	RET()
}

// axpyOne: g[j] += Σ_{r<4} x_r[j]·w[r], one FMA a row in r order, 16 j's a step (two
// 512-bit registers, or four 256-bit), then the last d mod 16 one at a time: the bits of
// the Go loop.
func axpyOne(zmm bool, nrows int) {
	name, regs, vb := fmt.Sprintf("axpyF64x%dAVX512", nrows), 2, 64
	vec := ZMM
	if !zmm {
		name, regs, vb = "axpyF64x4AVX2", 4, 32
		vec = YMM
	}
	TEXT(name, NOSPLIT, "func(x *float64, ldx int, w *float64, d int, gp *float64)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s adds Σ_r w[r]·x_r to g for x's %d rows, rows in order.", name, nrows))
	p := precisions[0]
	x := rowPointers(p, nrows)
	wp := Load(Param("w"), GP64())
	w := make([]reg.VecVirtual, nrows)
	for r := range w {
		w[r] = vec()
		VBROADCASTSD(Mem{Base: wp, Disp: 8 * r}, w[r])
	}
	d := Load(Param("d"), GP64())
	g := Load(Param("gp"), GP64())
	steps := GP64()
	MOVQ(d, steps)
	SHRQ(U8(4), steps)
	ANDQ(U8(oneLanes-1), d)
	overSteps(name+"v", "tail", steps, func() {
		t := make([]reg.VecVirtual, regs)
		for h := range t {
			t[h] = vec()
			VMOVUPD(Mem{Base: g, Disp: vb * h}, t[h])
		}
		for r := range nrows {
			for h := range t {
				VFMADD231PD(Mem{Base: x[r], Disp: vb * h}, w[r], t[h])
			}
		}
		for h := range t {
			VMOVUPD(t[h], Mem{Base: g, Disp: vb * h})
		}
		ADDQ(U8(128), g)
		for r := range nrows {
			ADDQ(U8(128), x[r])
		}
	})
	overSteps(name, "done", d, func() {
		t := XMM()
		VMOVSD(Mem{Base: g}, t)
		for r := range nrows {
			VFMADD231SD(Mem{Base: x[r]}, w[r].AsX(), t)
			ADDQ(U8(8), x[r])
		}
		VMOVSD(t, Mem{Base: g})
		ADDQ(U8(8), g)
	})
	VZEROUPPER()
	RET()
}

// noisyStep: noisyStepF64x16AVX512, noisyStepF64x8AVX512 and their F32 forms, the SGLU
// ensemble's update θ[i·k+t] ← θ[i·k+t] + (sd·z[t·ldz+i] − η·g[i·k+t]), norm2[t] += v·v,
// for runs in blocks of 8·tiles (blocks of them, from run 0) and coordinates i < n (a
// multiple of 8). z is float32 (the normals as drawn: half the bytes of sd·z in float64),
// widened exactly and multiplied by sd in float64, one rounding, the product Go's
// sd*float64(z) gives. A tile is 8 coordinates of 8 runs: the runs' rows of z (8
// consecutive coordinates each) are loaded, scaled and transposed in registers, then the
// tile's 8 rows of θ and g are read contiguously. Every operation rounds as Go's loop does — multiply, subtract, add,
// multiply, add, no fused step — and each run's squared norm is added in its lane in
// coordinate order, so the bits of the Go loop. The float32 form reads float32 gradients
// (widened exactly, VCVTPS2PD) and also writes float32(v) into theta32 (VCVTPD2PS, to
// nearest as Go's conversion). Two tiles side by side (16 runs) keep two norms' addition
// chains in flight and, in float32, write theta32 a whole 64-byte line at a time (float32
// at d = 784, k = 32: 249 ns a run's step with one tile, 207 with two).
func noisyStep(f32 bool, tiles int) {
	w := 8 * tiles
	name := fmt.Sprintf("noisyStepF64x%dAVX512", w)
	sig := "func(theta *float64, z *float32, sd float64, grad *float64, norm2 *float64, n, ldz, k, blocks int, eta float64)"
	if f32 {
		name = fmt.Sprintf("noisyStepF32x%dAVX512", w)
		sig = "func(theta *float64, theta32 *float32, z *float32, sd float64, grad *float32, norm2 *float64, n, ldz, k, blocks int, eta float64)"
	}
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(fmt.Sprintf("%s applies the noisy step to runs 0…%d·blocks−1 at coordinates i < n (n a multiple of 8), adding each run's v·v to norm2 in coordinate order.", name, w))
	etaX := Load(Param("eta"), XMM())
	eta := ZMM()
	VBROADCASTSD(etaX, eta)
	sdX := Load(Param("sd"), XMM())
	sd := ZMM()
	VBROADCASTSD(sdX, sd)
	blocks := Load(Param("blocks"), GP64())
	k := Load(Param("k"), GP64())
	ldz := Load(Param("ldz"), GP64())
	SHLQ(U8(2), ldz)                 // bytes
	zblk := Load(Param("z"), GP64()) // row t0 of z
	t0 := GP64()                     // the block's first run
	XORQ(t0, t0)
	Label(name + "block")
	TESTQ(blocks, blocks)
	JZ(LabelRef(name + "done"))
	acc := make([]reg.VecVirtual, tiles)
	np := Load(Param("norm2"), GP64())
	for h := range acc {
		acc[h] = ZMM()
		VMOVUPD(Mem{Base: np, Index: t0, Scale: 8, Disp: 64 * h}, acc[h])
	}
	theta := Load(Param("theta"), GP64())
	g := Load(Param("grad"), GP64())
	var theta32 reg.Register
	if f32 {
		theta32 = Load(Param("theta32"), GP64())
	}
	ri := GP64() // i·k + t0: the element the tile's row starts at in θ and g
	MOVQ(t0, ri)
	zp := GP64() // coordinate i of row t0 of z
	MOVQ(zblk, zp)
	n := Load(Param("n"), GP64())
	SHRQ(U8(3), n)
	overSteps(name+"tile", "end", n, func() {
		// rows t and t+1 at p and p + ldz, p advancing two rows at a time (one register
		// beside zp: twelve general registers in all, none of R14 and R15)
		p := GP64()
		MOVQ(zp, p)
		c := make([][]reg.VecVirtual, tiles)
		for h := range c {
			r := make([]reg.VecVirtual, 8)
			for t := range r {
				r[t] = ZMM()
			}
			for t := 0; t < 8; t += 2 {
				if t > 0 || h > 0 {
					LEAQ(Mem{Base: p, Index: ldz, Scale: 2}, p)
				}
				VCVTPS2PD(Mem{Base: p}, r[t])
				VCVTPS2PD(Mem{Base: p, Index: ldz, Scale: 1}, r[t+1])
				VMULPD(sd, r[t], r[t])
				VMULPD(sd, r[t+1], r[t+1])
			}
			c[h] = transpose8(r)
		}
		for j := range 8 {
			var n32 reg.VecVirtual
			for h := range tiles {
				v := ZMM()
				if f32 {
					VCVTPS2PD(Mem{Base: g, Index: ri, Scale: 4, Disp: 32 * h}, v)
				} else {
					VMOVUPD(Mem{Base: g, Index: ri, Scale: 8, Disp: 64 * h}, v)
				}
				VMULPD(eta, v, v)                                                 // η·g
				VSUBPD(v, c[h][j], v)                                             // z − η·g
				VADDPD(Mem{Base: theta, Index: ri, Scale: 8, Disp: 64 * h}, v, v) // θ + (z − η·g)
				VMOVUPD(v, Mem{Base: theta, Index: ri, Scale: 8, Disp: 64 * h})
				if f32 {
					switch h {
					case 0:
						n32 = ZMM()
						VCVTPD2PS(v, n32.AsY())
					case 1: // the second tile's eight into the upper half: one 64-byte store
						y := YMM()
						VCVTPD2PS(v, y)
						VINSERTF64X4(U8(1), y, n32, n32)
					}
				}
				VMULPD(v, v, v)
				VADDPD(v, acc[h], acc[h])
			}
			if f32 {
				if tiles == 2 {
					VMOVUPS(n32, Mem{Base: theta32, Index: ri, Scale: 4})
				} else {
					VMOVUPS(n32.AsY(), Mem{Base: theta32, Index: ri, Scale: 4})
				}
			}
			ADDQ(k, ri)
		}
		ADDQ(U8(32), zp)
	})
	np = Load(Param("norm2"), GP64())
	for h := range acc {
		VMOVUPD(acc[h], Mem{Base: np, Index: t0, Scale: 8, Disp: 64 * h})
	}
	ADDQ(U8(w), t0)
	LEAQ(Mem{Base: zblk, Index: ldz, Scale: 8}, zblk)
	if tiles == 2 {
		LEAQ(Mem{Base: zblk, Index: ldz, Scale: 8}, zblk)
	}
	DECQ(blocks)
	JMP(LabelRef(name + "block"))
	Label(name + "done")
	VZEROUPPER()
	RET()
}

// transpose8 returns the columns of the 8 × 8 float64 tile whose rows are r: c[j][t] =
// r[t][j], by unpacking pairs of rows, then two rounds of 128-bit lane shuffles
// (VSHUFF64X2 0x88 takes lanes 0 and 2 of each source, 0xdd lanes 1 and 3).
func transpose8(r []reg.VecVirtual) []reg.VecVirtual {
	t := make([]reg.VecVirtual, 8)
	for p := 0; p < 8; p += 2 {
		t[p], t[p+1] = ZMM(), ZMM()
		VUNPCKLPD(r[p+1], r[p], t[p])   // r[p][0] r[p+1][0] | r[p][2] r[p+1][2] | …
		VUNPCKHPD(r[p+1], r[p], t[p+1]) // r[p][1] r[p+1][1] | r[p][3] r[p+1][3] | …
	}
	u := make([]reg.VecVirtual, 8)
	for h := 0; h < 8; h += 4 { // rows h…h+3
		for q := range 2 { // the low (q = 0) or high (1) unpack
			lo, hi := ZMM(), ZMM()
			VSHUFF64X2(U8(0x88), t[h+2+q], t[h+q], lo)
			VSHUFF64X2(U8(0xdd), t[h+2+q], t[h+q], hi)
			u[h+2*q], u[h+2*q+1] = lo, hi
		}
	}
	// u[h+0]: columns 0 and 4 of rows h…h+3 (lanes: col 0 of rows h,h+1 | col 4 of h,h+1 |
	// col 0 of h+2,h+3 | col 4 of h+2,h+3); u[h+1]: columns 2 and 6; u[h+2]: 1 and 5;
	// u[h+3]: 3 and 7
	c := make([]reg.VecVirtual, 8)
	for m, cols := range [][2]int{{0, 4}, {2, 6}, {1, 5}, {3, 7}} {
		c[cols[0]], c[cols[1]] = ZMM(), ZMM()
		VSHUFF64X2(U8(0x88), u[4+m], u[m], c[cols[0]])
		VSHUFF64X2(U8(0xdd), u[4+m], u[m], c[cols[1]])
	}
	return c
}

// expConst8 is expConst's constant eight times over (a 512-bit register's worth), in a table
// of its own.
var expData8 map[string]Mem

func expConst8(name string) Mem { return constAt(&expData8, "expconst8", 8, 8, expConsts, name) }

// expLanes8 is expLanes on eight lanes (AVX-512F) of each of xs, the vectors' operations
// interleaved (one step for every vector, then the next): the same operations in the same
// order on each vector, so math.Exp's bits for arguments on its normal path, with the
// vectors' dependent chains overlapping instead of waiting on each other.
func expLanes8(xs []reg.VecVirtual) []reg.VecVirtual {
	n := len(xs)
	vecs := func() []reg.VecVirtual {
		v := make([]reg.VecVirtual, n)
		for i := range v {
			v[i] = ZMM()
		}
		return v
	}
	x1, x0, p, scale := vecs(), vecs(), vecs(), vecs()
	bx := make([]reg.VecVirtual, n)
	for i, x := range xs {
		VMULPD(expConst8("log2e"), x, x1[i])
	}
	for i := range xs {
		bx[i] = YMM()
		VCVTPD2DQ(x1[i], bx[i]) // rounds to nearest, as CVTSD2SL does
	}
	for i := range xs {
		VCVTDQ2PD(bx[i], x1[i])
	}
	for i, x := range xs {
		VMOVAPD(x, x0[i])
	}
	for i := range xs {
		VFNMADD231PD(expConst8("ln2u"), x1[i], x0[i])
	}
	for i := range xs {
		VFNMADD231PD(expConst8("ln2l"), x1[i], x0[i])
	}
	for i := range xs {
		VMULPD(expConst8("sixteenth"), x0[i], x0[i])
	}
	for i := range xs {
		VMOVUPD(expConst8("c8"), p[i])
	}
	for _, c := range []string{"c7", "c6", "c5", "c4", "c3", "c2", "one"} {
		for i := range xs {
			VFMADD213PD(expConst8(c), x0[i], p[i])
		}
	}
	for i := range xs {
		VMULPD(p[i], x0[i], x0[i])
	}
	for range 3 {
		for i := range xs {
			VADDPD(expConst8("two"), x0[i], p[i])
		}
		for i := range xs {
			VMULPD(p[i], x0[i], x0[i])
		}
	}
	for i := range xs {
		VADDPD(expConst8("two"), x0[i], p[i])
	}
	for i := range xs {
		VFMADD213PD(expConst8("one"), p[i], x0[i])
	}
	for i := range xs {
		VPMOVSXDQ(bx[i], scale[i])
	}
	for i := range xs {
		VPADDQ(expConst8("bias"), scale[i], scale[i])
	}
	for i := range xs {
		VPSLLQ(U8(52), scale[i], scale[i])
	}
	for i := range xs {
		VMULPD(scale[i], x0[i], x0[i])
	}
	return x0
}

// exp32Consts are deriv32.go's float32 constants (logisticDeriv32 and exp32), sixteen
// lanes each; the tests hold the kernels to that Go code's bits.
// f32 is v's bits, for a table of float32 constants.
func f32(v float32) uint64 { return uint64(math.Float32bits(v)) }

var exp32Consts = []namedBits{
	{"log2e", f32(1.4426950216293335)},
	{"ln2hi", f32(0.693359375)},
	{"ln2lo", f32(-0.00021219444170128554)},
	{"c0", f32(0.5)},
	{"c1", f32(0.16666577756404877)},
	{"c2", f32(0.041666556149721146)},
	{"c3", f32(0.008363173343241215)},
	{"c4", f32(0.0013926175888627768)},
	{"one", f32(1)},
	{"sign", 1 << 31},
	{"abs", 1<<31 - 1},
	{"normal", f32(87)},
}

var exp32Data map[string]Mem

// exp32Const is exp32Consts's constant sixteen times over (a 512-bit register's worth; a
// 256-bit operand reads its first half).
func exp32Const(name string) Mem { return constAt(&exp32Data, "exp32const", 16, 4, exp32Consts, name) }

// exp32Lanes emits exp32's steps up to eʳ for each of xs (x ≤ 0), the vectors' operations
// interleaved: k = round(x·log₂e) by round (to nearest, even on ties), r = x − k·ln2Hi −
// k·ln2Lo, eʳ = 1 + (r + r²·P(r)) by Horner, each product and sum rounded once, as
// deriv32.go's exp32 computes them. It returns k and eʳ; the caller multiplies by 2ᵏ.
func exp32Lanes(xs []reg.VecVirtual, vecs func() []reg.VecVirtual, round func(k reg.VecVirtual)) (k, e []reg.VecVirtual) {
	k, r, c, p, q := vecs(), vecs(), vecs(), vecs(), vecs()
	each := func(f func(i int)) {
		for i := range xs {
			f(i)
		}
	}
	each(func(i int) { VMULPS(exp32Const("log2e"), xs[i], k[i]) })
	each(func(i int) { round(k[i]) })
	each(func(i int) { VMULPS(exp32Const("ln2hi"), k[i], c[i]) })
	each(func(i int) { VSUBPS(c[i], xs[i], r[i]) }) // x − k·ln2Hi (exact)
	each(func(i int) { VMULPS(exp32Const("ln2lo"), k[i], c[i]) })
	each(func(i int) { VSUBPS(c[i], r[i], r[i]) })
	each(func(i int) { VMULPS(exp32Const("c4"), r[i], p[i]) })
	for _, cn := range []string{"c3", "c2", "c1"} {
		each(func(i int) { VADDPS(exp32Const(cn), p[i], p[i]) })
		each(func(i int) { VMULPS(r[i], p[i], p[i]) })
	}
	each(func(i int) { VADDPS(exp32Const("c0"), p[i], p[i]) })
	each(func(i int) { VMULPS(r[i], r[i], q[i]) })
	each(func(i int) { VMULPS(p[i], q[i], q[i]) })              // r²·P
	each(func(i int) { VADDPS(q[i], r[i], q[i]) })              // r + r²·P
	each(func(i int) { VADDPS(exp32Const("one"), q[i], q[i]) }) // eʳ
	return k, q
}

// weights32: wz[r·w + t] = inv·logisticDeriv32(z[r·w + t], y[r]) for rows r < rows and w
// models (a multiple of 8), sixteen lanes at a time (a row's 16-lane vectors two at a
// time, interleaved, then one, then its last eight lanes in a 256-bit register):
// deriv32.go's operations in its order, each rounded once, so its bits. It returns 1 if
// some |y·z| was NaN or above 87, where exp32's result may be subnormal (or is 0): the
// caller then redoes the block in Go.
func weights32() {
	name := "weightsF32AVX512"
	doc := name + " sets wz[r·w+t] = inv·logisticDeriv32(z[r·w+t], y[r]), the bits of the Go code; it returns 1 if a lane's |y·z| is NaN or above 87 (the caller then recomputes)."
	weightsRows(name, doc, ZMM, zeroZ, func(wz, z, n, special reg.Register, negY, inv, zr reg.VecVirtual) {
		weights32Row(name, wz, z, n, special, negY, inv, zr)
	})
}

// weights32Row is weights32's row: its 16-lane vectors two at a time, then one, then its
// last eight lanes.
func weights32Row(name string, wz, z, n, special reg.Register, negY, inv, zr reg.VecVirtual) {
	// nv vectors of lanes lanes each (16: ZMM; 8: YMM, AVX-512VL)
	for _, g := range []struct{ nv, lanes int }{{2, 16}, {1, 16}, {1, 8}} {
		nv, lanes := g.nv, g.lanes
		loop := fmt.Sprintf("%slanes%dx%d", name, nv, lanes)
		vec := func() reg.VecVirtual {
			if lanes == 16 {
				return ZMM()
			}
			return YMM()
		}
		vecs := func() []reg.VecVirtual {
			v := make([]reg.VecVirtual, nv)
			for i := range v {
				v[i] = vec()
			}
			return v
		}
		var ny, iv, zero reg.Register = negY, inv, zr
		if lanes == 8 {
			ny, iv, zero = negY.AsY(), inv.AsY(), zr.AsY()
		}
		Label(loop)
		CMPQ(n, U8(nv*lanes))
		JL(LabelRef(loop + "end"))
		u, t, a := vecs(), vecs(), vecs()
		for i := range nv {
			VMOVUPS(Mem{Base: z, Disp: 4 * lanes * i}, u[i])
		}
		for i := range nv {
			VMULPS(u[i], ny, t[i]) // t = −y·u
		}
		for i := range nv {
			VANDPS(exp32Const("abs"), t[i], a[i])
		}
		full := uint32(1)<<lanes - 1
		for i := range nv {
			ok := K()
			VCMPPS(U8(0x12), exp32Const("normal"), a[i], ok) // |t| ≤ 87 (LE_OQ: NaN fails)
			m := GP32()
			KMOVW(ok, m)
			flagUnlessAll(m, full, special, fmt.Sprintf("%snormal%d_%d_%d", name, nv, lanes, i))
		}
		pos := make([]reg.OpmaskVirtual, nv)
		for i := range nv {
			pos[i] = K()
			VCMPPS(U8(0x1d), zero, t[i], pos[i]) // t ≥ 0 (GE_OQ)
		}
		for i := range nv {
			VORPS(exp32Const("sign"), t[i], a[i]) // x = −|t|
		}
		k, e := exp32Lanes(a, vecs, func(k reg.VecVirtual) { VRNDSCALEPS(U8(0x08), k, k) })
		for i := range nv {
			VSCALEFPS(k[i], e[i], e[i]) // eʳ·2ᵏ
		}
		num, den := vecs(), vecs()
		for i := range nv {
			VBLENDMPS(exp32Const("one"), e[i], pos[i], num[i]) // t ≥ 0 ? 1 : e
		}
		for i := range nv {
			VADDPS(exp32Const("one"), e[i], den[i])
		}
		for i := range nv {
			VDIVPS(den[i], num[i], num[i]) // σ(t)
		}
		for i := range nv {
			VMULPS(ny, num[i], num[i]) // −y·σ
		}
		for i := range nv {
			VMULPS(iv, num[i], num[i]) // inv·φ'
		}
		for i := range nv {
			VMOVUPS(num[i], Mem{Base: wz, Disp: 4 * lanes * i})
		}
		ADDQ(U32(4*lanes*nv), wz)
		ADDQ(U32(4*lanes*nv), z)
		SUBQ(U8(nv*lanes), n)
		JMP(LabelRef(loop))
		Label(loop + "end")
	}
}

// weightsRows emits a float32 weights kernel's frame (weights32, weights32AVX2): its
// arguments, inv broadcast into a register of vec's and a zero one (cleared by clear), the
// flag it returns, and its loop over the rows, each with −y broadcast and n = w, the row's
// lanes, for row to count down.
func weightsRows(name, doc string, vec func() reg.VecVirtual, clear func(reg.VecVirtual), row func(wz, z, n, special reg.Register, negY, inv, zero reg.VecVirtual)) {
	TEXT(name, NOSPLIT, "func(wz *float32, z *float32, y *float32, rows, w int, inv float32) int")
	Pragma("noescape")
	Doc(doc)
	wz := Load(Param("wz"), GP64())
	z := Load(Param("z"), GP64())
	y := Load(Param("y"), GP64())
	nrows := Load(Param("rows"), GP64())
	w := Load(Param("w"), GP64())
	invX := Load(Param("inv"), XMM())
	inv := vec()
	VBROADCASTSS(invX, inv)
	special := GP64()
	XORQ(special, special)
	negY, zero := vec(), vec()
	clear(zero)
	Label(name + "rows")
	TESTQ(nrows, nrows)
	JZ(LabelRef(name + "done"))
	VBROADCASTSS(Mem{Base: y}, negY)
	VXORPS(exp32Const("sign"), negY, negY) // −y
	n := GP64()
	MOVQ(w, n)
	row(wz, z, n, special, negY, inv, zero)
	ADDQ(U8(4), y)
	DECQ(nrows)
	JMP(LabelRef(name + "rows"))
	Label(name + "done")
	Store(special, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// weights32AVX2 is weights32 with AVX2 alone, eight lanes (one 256-bit register) at a time,
// w a multiple of 8: the same operations, but comparisons into vector masks (VMOVMSKPS,
// VBLENDVPS) and 2ᵏ put into eʳ's exponent by an integer add, the same value as VSCALEFPS
// gives wherever the result is normal (|t| ≤ 87).
func weights32AVX2() {
	name := "weightsF32AVX2"
	weightsRows(name, name+" is weightsF32AVX512 with AVX2: eight lanes at a time, w a multiple of 8.", YMM,
		func(r reg.VecVirtual) { VXORPS(r, r, r) }, func(wz, z, n, special reg.Register, negY, inv, zero reg.VecVirtual) {
			weights32AVX2Row(name, wz, z, n, special, negY, inv, zero)
		})
}

// weights32AVX2Row is weights32AVX2's row, eight lanes at a time.
func weights32AVX2Row(name string, wz, z, n, special reg.Register, negY, inv, zero reg.VecVirtual) {
	Label(name + "lanes")
	CMPQ(n, U8(8))
	JL(LabelRef(name + "next"))
	u, t, a := YMM(), YMM(), YMM()
	VMOVUPS(Mem{Base: z}, u)
	VMULPS(u, negY, t) // t = −y·u
	VANDPS(exp32Const("abs"), t, a)
	ok := YMM()
	VCMPPS(U8(0x12), exp32Const("normal"), a, ok) // |t| ≤ 87 (LE_OQ: NaN fails)
	m := GP32()
	VMOVMSKPS(ok, m)
	flagUnlessAll(m, 0xff, special, name+"normal")
	pos := YMM()
	VCMPPS(U8(0x1d), zero, t, pos) // t ≥ 0 (GE_OQ)
	x := a
	VORPS(exp32Const("sign"), t, x) // x = −|t|
	ks, es := exp32Lanes([]reg.VecVirtual{x}, func() []reg.VecVirtual { return []reg.VecVirtual{YMM()} },
		func(k reg.VecVirtual) { VROUNDPS(U8(0x08), k, k) })
	k, q := ks[0], es[0]
	ki := YMM()
	VCVTPS2DQ(k, ki) // k is a whole number: exact
	VPSLLD(U8(23), ki, ki)
	VPADDD(ki, q, q) // eʳ·2ᵏ
	num, den := YMM(), YMM()
	VBLENDVPS(pos, exp32Const("one"), q, num) // t ≥ 0 ? 1 : e
	VADDPS(exp32Const("one"), q, den)
	VDIVPS(den, num, num)
	VMULPS(negY, num, num)
	VMULPS(inv, num, num)
	VMOVUPS(num, Mem{Base: wz})
	ADDQ(U8(32), wz)
	ADDQ(U8(32), z)
	SUBQ(U8(8), n)
	JMP(LabelRef(name + "lanes"))
	Label(name + "next")
}

// weights512: wz[r·w + t] = inv·φ'(z[r·w + t]) with label y[r], for rows r < rows and w
// models (a multiple of 8), eight lanes at a time: logit's derivsAVX2 on eight lanes,
// unclipped (its clip at +Inf never applies), on float64 copies of float32 inputs as
// reference/ensemble's logisticWeights makes them (float32: the derivative rounded to
// float32, then times inv in float32). It returns 1 if some −y·z was NaN or beyond ±708:
// the caller then redoes the block in Go.
func weights512(p precision) {
	name := "weights" + p.short + "AVX512"
	TEXT(name, NOSPLIT, fmt.Sprintf("func(wz *%[1]s, z *%[1]s, y *%[1]s, rows, w int, inv %[1]s) int", p.typ))
	Pragma("noescape")
	Doc(name + " sets wz[r·w+t] = inv·φ'(z[r·w+t]) for label y[r], as logisticWeights computes it; it returns 1 if a lane left math.Exp's normal path (the caller then recomputes).")
	wz := Load(Param("wz"), GP64())
	z := Load(Param("z"), GP64())
	y := Load(Param("y"), GP64())
	nrows := Load(Param("rows"), GP64())
	w := Load(Param("w"), GP64())
	SHRQ(U8(3), w)
	invX := Load(Param("inv"), XMM())
	inv := ZMM()
	p.bcast(invX, inv)
	special := GP64()
	XORQ(special, special)
	zero := ZMM()
	VPXORQ(zero, zero, zero)
	Label(name + "rows")
	TESTQ(nrows, nrows)
	JZ(LabelRef(name + "done"))
	negY := ZMM()
	yx := XMM()
	if p.size == 4 {
		VMOVSS(Mem{Base: y}, yx)
		VCVTSS2SD(yx, yx, yx)
	} else {
		VMOVSD(Mem{Base: y}, yx)
	}
	VBROADCASTSD(yx, negY)
	VXORPD(expConst8("sign"), negY, negY)
	n := GP64()
	MOVQ(w, n)
	// a row's vectors four at a time, then two, then one, each group's operations
	// interleaved (expLanes8): each vector's own operations in the same order whatever its
	// group, so the same bits
	for _, nv := range []int{4, 2, 1} {
		lanes := fmt.Sprintf("%slanes%d", name, nv)
		Label(lanes)
		CMPQ(n, U8(nv))
		JL(LabelRef(lanes + "end"))
		vecs := func() []reg.VecVirtual {
			v := make([]reg.VecVirtual, nv)
			for i := range v {
				v[i] = ZMM()
			}
			return v
		}
		u, t, abs := vecs(), vecs(), vecs()
		for i := range nv {
			if p.size == 4 {
				VCVTPS2PD(Mem{Base: z, Disp: 32 * i}, u[i])
			} else {
				VMOVUPD(Mem{Base: z, Disp: 64 * i}, u[i])
			}
		}
		for i := range nv {
			VMULPD(u[i], negY, t[i]) // t = −y·u
		}
		for i := range nv {
			VANDPD(expConst8("abs"), t[i], abs[i])
		}
		for i := range nv {
			ok := K()
			VCMPPD(U8(0x12), expConst8("normal"), abs[i], ok) // |t| ≤ 708 (LE_OQ: NaN fails)
			m := GP32()
			KMOVW(ok, m)
			flagUnlessAll(m, 0xff, special, fmt.Sprintf("%snormal%d_%d", name, nv, i))
		}
		pos := make([]reg.OpmaskVirtual, nv)
		for i := range nv {
			pos[i] = K()
			VCMPPD(U8(0x1d), zero, t[i], pos[i]) // t ≥ 0 (GE_OQ)
		}
		negT, x := vecs(), vecs()
		for i := range nv {
			VXORPD(expConst8("sign"), t[i], negT[i])
		}
		for i := range nv {
			VBLENDMPD(negT[i], t[i], pos[i], x[i]) // x = t ≥ 0 ? −t : t
		}
		e := expLanes8(x)
		num, den, sg := vecs(), vecs(), vecs()
		for i := range nv {
			VBLENDMPD(expConst8("one"), e[i], pos[i], num[i])
		}
		for i := range nv {
			VADDPD(expConst8("one"), e[i], den[i])
		}
		for i := range nv {
			VDIVPD(den[i], num[i], sg[i]) // σ(t)
		}
		for i := range nv {
			VMULPD(sg[i], negY, sg[i]) // −y·s
		}
		for i := range nv {
			if p.size == 4 {
				// logit.Derivs at inv = 1 (the multiplication by 1 exact), rounded to
				// float32, then inv·w in float32
				s32 := YMM()
				VCVTPD2PS(sg[i], s32)
				VMULPS(inv.AsY(), s32, s32)
				VMOVUPS(s32, Mem{Base: wz, Disp: 32 * i})
			} else {
				VMULPD(inv, sg[i], sg[i])
				VMOVUPD(sg[i], Mem{Base: wz, Disp: 64 * i})
			}
		}
		ADDQ(U32(nv*8*int(p.size)), wz)
		ADDQ(U32(nv*8*int(p.size)), z)
		SUBQ(U8(nv), n)
		JMP(LabelRef(lanes))
		Label(lanes + "end")
	}
	Label(name + "next")
	ADDQ(U8(p.size), y)
	DECQ(nrows)
	JMP(LabelRef(name + "rows"))
	Label(name + "done")
	Store(special, ReturnIndex(0))
	VZEROUPPER()
	RET()
}
