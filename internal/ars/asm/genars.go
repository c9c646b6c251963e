package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// ARS-4x32-7's words (internal/ars's Block at the stream's seven rounds) on AES rounds
// in vector registers: VAES's 512-bit form (four blocks an instruction) or AES-NI's
// 128-bit one (one), each block's 128-bit state a 128-bit lane. The words are written as
// the blocks are, four little-endian words a block in block order, 16 bytes a block: the
// layout the transform kernels read.

// rounds is the stream's rounds of ARS-4x32 (ars.go's StreamRounds).
const rounds = 7

// wordsWidth is a words kernel's register width.
type wordsWidth struct {
	name  string // the kernel's suffix
	bytes int    // 64 or 16: a register's bytes, 16 a block
	isa   []string
}

func (w wordsWidth) vec() reg.VecVirtual {
	if w.bytes == 64 {
		return ZMM()
	}
	return XMM()
}

// aesenc emits VAESENC (VAESENCLAST if last) of x by the round key k into x. avo v0.5.0
// knows only the 128-bit form, so each is emitted as a raw instruction, its inputs and
// outputs named for the register allocator; the Go assembler encodes both widths.
func (w wordsWidth) aesenc(k Op, x reg.VecVirtual, last bool) {
	op := "VAESENC"
	if last {
		op = "VAESENCLAST"
	}
	Instruction(&ir.Instruction{
		Opcode:   op,
		Operands: []Op{k, x, x},
		Inputs:   []Op{k, x},
		Outputs:  []Op{x},
		ISA:      w.isa,
	})
}

// wordsKernel is words+w.name: ARS-4x32-7 of groups × 8 blocks of a stream from block
// on, written to words in block order, 16 bytes a block. rk is the stream's whitening
// word and round keys, 16 bytes each: rk[0] the key xored with the counter's words 1 to
// 3 (word 0, the block's index, is xored in lane by lane), rk[1..7] the round keys
// (kernel.go's roundKeys). AES rounds take a few cycles and issue one or two a cycle, so
// a step runs eight registers side by side: four groups on VAES (then one group, two
// registers, a step for the rest), one on AES-NI, whose round keys are memory operands
// (AVX's sixteen registers hold the eight blocks, the counter and its step).
func wordsKernel(w wordsWidth) {
	name := "words" + w.name
	TEXT(name, NOSPLIT, "func(words *uint32, groups int, block uint32, rk *[8][4]uint32)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s writes ARS-4x32-7's words of groups × 8 blocks of a stream from block on, rk its whitening word and round keys (roundKeys), to words: a block's 4 words (16 bytes) after another's.", name))
	wp := Load(Param("words"), GP64())
	n := Load(Param("groups"), GP64())
	rkp := Load(Param("rk"), GP64())
	keys := make([]Op, rounds+1)
	for r := range keys {
		m := Mem{Base: rkp, Disp: 16 * r}
		if w.bytes == 64 {
			x := ZMM() // broadcast to every lane once a call
			VBROADCASTI32X4(m, x)
			keys[r] = x
		} else {
			keys[r] = m
		}
	}
	// ctr: word 0 of each lane the block's index (block + lane), words 1 to 3 zero.
	ctr, inc := w.vec(), w.vec()
	b := Load(Param("block"), GP32())
	if w.bytes == 64 {
		bx := XMM()
		VMOVD(b, bx)
		VPBROADCASTD(bx, ctr)
		VPANDD(k("word0"), ctr, ctr)
		VPADDD(k("lane"), ctr, ctr)
		VMOVDQU32(k("inc4"), inc)
	} else {
		VMOVD(b, ctr) // words 1 to 3 zeroed
		VMOVDQU(k("inc1"), inc)
	}
	// blocks runs regs registers of blocks from ctr on, advancing ctr past them, and
	// stores them at wp.
	blocks := func(regs int) {
		x := make([]reg.VecVirtual, regs)
		for i := range x {
			x[i] = w.vec()
			if w.bytes == 64 {
				VPXORD(keys[0], ctr, x[i])
			} else {
				VPXOR(keys[0], ctr, x[i])
			}
			VPADDD(inc, ctr, ctr)
		}
		for r := 1; r <= rounds; r++ {
			for i := range x {
				w.aesenc(keys[r], x[i], r == rounds)
			}
		}
		for i := range x {
			m := Mem{Base: wp, Disp: w.bytes * i}
			if w.bytes == 64 {
				VMOVDQU32(x[i], m)
			} else {
				VMOVDQU(x[i], m)
			}
		}
		ADDQ(U32(w.bytes*regs), wp)
	}
	const regs = 8          // a step's registers
	group := 128 / w.bytes  // registers a group
	perStep := regs / group // groups a step
	if perStep > 1 {
		Label("step")
		CMPQ(n, U32(perStep))
		JB(LabelRef("group"))
		blocks(regs)
		SUBQ(U32(perStep), n)
		JMP(LabelRef("step"))
	}
	Label("group")
	TESTQ(n, n)
	JZ(LabelRef("done"))
	blocks(group)
	DECQ(n)
	JMP(LabelRef("group"))
	Label("done")
	VZEROUPPER()
	RET()
}

// wordsConsts are the words kernels' constants: a mask of each lane's word 0, the lanes'
// indices in their words 0, and a register's step, 4 blocks (512-bit) or 1 (128-bit),
// in each lane's word 0.
func wordsConsts() (names []string, vals [][8]uint64) {
	add := func(name string, d [16]uint32) { names, vals = append(names, name), append(vals, dwords(d)) }
	var w0, lane, inc4, inc1 [16]uint32
	for l := range 4 {
		w0[4*l] = 0xFFFFFFFF
		lane[4*l] = uint32(l)
		inc4[4*l] = 4
	}
	inc1[0] = 1
	add("word0", w0)
	add("lane", lane)
	add("inc4", inc4)
	add("inc1", inc1)
	return names, vals
}
