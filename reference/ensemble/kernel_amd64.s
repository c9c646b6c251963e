#include "textflag.h"

// func mul4x8AVX2(x *float64, ldx int, a *float64, lda, d int, z *float64)
// z[r*8+t] = Σ_j x[r*ldx+j]·a[j*lda+t], r < 4, t < 8: eight accumulators, one FMA chain
// per output, j in order (the pure-Go kernel's order, so both round alike).
TEXT ·mul4x8AVX2(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ ldx+8(FP), R8
	SHLQ $3, R8
	MOVQ a+16(FP), DI
	MOVQ lda+24(FP), R9
	SHLQ $3, R9
	MOVQ d+32(FP), CX
	MOVQ z+40(FP), DX
	LEAQ (SI)(R8*1), R11
	LEAQ (R11)(R8*1), R12
	LEAQ (R12)(R8*1), R13
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	XORQ AX, AX

mulloop:
	CMPQ AX, CX
	JGE  mulstore
	VMOVUPD      (DI), Y8
	VMOVUPD      32(DI), Y9
	VBROADCASTSD (SI)(AX*8), Y10
	VFMADD231PD  Y8, Y10, Y0
	VFMADD231PD  Y9, Y10, Y1
	VBROADCASTSD (R11)(AX*8), Y11
	VFMADD231PD  Y8, Y11, Y2
	VFMADD231PD  Y9, Y11, Y3
	VBROADCASTSD (R12)(AX*8), Y12
	VFMADD231PD  Y8, Y12, Y4
	VFMADD231PD  Y9, Y12, Y5
	VBROADCASTSD (R13)(AX*8), Y13
	VFMADD231PD  Y8, Y13, Y6
	VFMADD231PD  Y9, Y13, Y7
	ADDQ R9, DI
	INCQ AX
	JMP  mulloop

mulstore:
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	VMOVUPD Y2, 64(DX)
	VMOVUPD Y3, 96(DX)
	VMOVUPD Y4, 128(DX)
	VMOVUPD Y5, 160(DX)
	VMOVUPD Y6, 192(DX)
	VMOVUPD Y7, 224(DX)
	VZEROUPPER
	RET

// func acc4x8AVX2(x *float64, ldx int, z *float64, d int, gp *float64, ldg int)
// g[j*ldg+t] += Σ_{r<4} x[r*ldx+j]·z[r*8+t]: z stays in eight registers; each row of g is
// loaded, takes four FMAs in r order (the pure-Go kernel's order) and is stored.
TEXT ·acc4x8AVX2(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ ldx+8(FP), R8
	SHLQ $3, R8
	MOVQ z+16(FP), DX
	MOVQ d+24(FP), CX
	MOVQ gp+32(FP), DI
	MOVQ ldg+40(FP), R9
	SHLQ $3, R9
	LEAQ (SI)(R8*1), R11
	LEAQ (R11)(R8*1), R12
	LEAQ (R12)(R8*1), R13
	VMOVUPD (DX), Y0
	VMOVUPD 32(DX), Y1
	VMOVUPD 64(DX), Y2
	VMOVUPD 96(DX), Y3
	VMOVUPD 128(DX), Y4
	VMOVUPD 160(DX), Y5
	VMOVUPD 192(DX), Y6
	VMOVUPD 224(DX), Y7
	XORQ AX, AX

accloop:
	CMPQ AX, CX
	JGE  accdone
	VMOVUPD      (DI), Y8
	VMOVUPD      32(DI), Y9
	VBROADCASTSD (SI)(AX*8), Y10
	VFMADD231PD  Y0, Y10, Y8
	VFMADD231PD  Y1, Y10, Y9
	VBROADCASTSD (R11)(AX*8), Y11
	VFMADD231PD  Y2, Y11, Y8
	VFMADD231PD  Y3, Y11, Y9
	VBROADCASTSD (R12)(AX*8), Y12
	VFMADD231PD  Y4, Y12, Y8
	VFMADD231PD  Y5, Y12, Y9
	VBROADCASTSD (R13)(AX*8), Y13
	VFMADD231PD  Y6, Y13, Y8
	VFMADD231PD  Y7, Y13, Y9
	VMOVUPD      Y8, (DI)
	VMOVUPD      Y9, 32(DI)
	ADDQ R9, DI
	INCQ AX
	JMP  accloop

accdone:
	VZEROUPPER
	RET

// func mul4x16AVX2(x *float32, ldx int, a *float32, lda, d int, z *float32)
// z[r*16+t] = Σ_j x[r*ldx+j]·a[j*lda+t], r < 4, t < 16: eight accumulators, one FMA chain
// per output, j in order (the pure-Go kernel's order, so both round alike).
TEXT ·mul4x16AVX2(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ ldx+8(FP), R8
	SHLQ $2, R8
	MOVQ a+16(FP), DI
	MOVQ lda+24(FP), R9
	SHLQ $2, R9
	MOVQ d+32(FP), CX
	MOVQ z+40(FP), DX
	LEAQ (SI)(R8*1), R11
	LEAQ (R11)(R8*1), R12
	LEAQ (R12)(R8*1), R13
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ AX, AX

mulloop32:
	CMPQ AX, CX
	JGE  mulstore32
	VMOVUPS      (DI), Y8
	VMOVUPS      32(DI), Y9
	VBROADCASTSS (SI)(AX*4), Y10
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VBROADCASTSS (R11)(AX*4), Y11
	VFMADD231PS  Y8, Y11, Y2
	VFMADD231PS  Y9, Y11, Y3
	VBROADCASTSS (R12)(AX*4), Y12
	VFMADD231PS  Y8, Y12, Y4
	VFMADD231PS  Y9, Y12, Y5
	VBROADCASTSS (R13)(AX*4), Y13
	VFMADD231PS  Y8, Y13, Y6
	VFMADD231PS  Y9, Y13, Y7
	ADDQ R9, DI
	INCQ AX
	JMP  mulloop32

mulstore32:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, 64(DX)
	VMOVUPS Y3, 96(DX)
	VMOVUPS Y4, 128(DX)
	VMOVUPS Y5, 160(DX)
	VMOVUPS Y6, 192(DX)
	VMOVUPS Y7, 224(DX)
	VZEROUPPER
	RET

// func acc4x16AVX2(x *float32, ldx int, z *float32, d int, gp *float32, ldg int)
// g[j*ldg+t] += Σ_{r<4} x[r*ldx+j]·z[r*16+t]: z stays in eight registers; each row of g is
// loaded, takes four FMAs in r order (the pure-Go kernel's order) and is stored.
TEXT ·acc4x16AVX2(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ ldx+8(FP), R8
	SHLQ $2, R8
	MOVQ z+16(FP), DX
	MOVQ d+24(FP), CX
	MOVQ gp+32(FP), DI
	MOVQ ldg+40(FP), R9
	SHLQ $2, R9
	LEAQ (SI)(R8*1), R11
	LEAQ (R11)(R8*1), R12
	LEAQ (R12)(R8*1), R13
	VMOVUPS (DX), Y0
	VMOVUPS 32(DX), Y1
	VMOVUPS 64(DX), Y2
	VMOVUPS 96(DX), Y3
	VMOVUPS 128(DX), Y4
	VMOVUPS 160(DX), Y5
	VMOVUPS 192(DX), Y6
	VMOVUPS 224(DX), Y7
	XORQ AX, AX

accloop32:
	CMPQ AX, CX
	JGE  accdone32
	VMOVUPS      (DI), Y8
	VMOVUPS      32(DI), Y9
	VBROADCASTSS (SI)(AX*4), Y10
	VFMADD231PS  Y0, Y10, Y8
	VFMADD231PS  Y1, Y10, Y9
	VBROADCASTSS (R11)(AX*4), Y11
	VFMADD231PS  Y2, Y11, Y8
	VFMADD231PS  Y3, Y11, Y9
	VBROADCASTSS (R12)(AX*4), Y12
	VFMADD231PS  Y4, Y12, Y8
	VFMADD231PS  Y5, Y12, Y9
	VBROADCASTSS (R13)(AX*4), Y13
	VFMADD231PS  Y6, Y13, Y8
	VFMADD231PS  Y7, Y13, Y9
	VMOVUPS      Y8, (DI)
	VMOVUPS      Y9, 32(DI)
	ADDQ R9, DI
	INCQ AX
	JMP  accloop32

accdone32:
	VZEROUPPER
	RET

// func fmaPeakAVX2(n int) float64
// n rounds of twelve independent 4-wide FMAs (96 flops a round): the core's FMA peak, the
// ceiling the benchmarks measure the kernels against. Returns a sum so nothing is dead.
TEXT ·fmaPeakAVX2(SB), NOSPLIT, $0-16
	MOVQ n+0(FP), CX
	MOVQ $0x3ff0000000000000, AX // 1.0
	MOVQ AX, X14
	VBROADCASTSD X14, Y14
	MOVQ $0x3fefffffffffffff, AX // just below 1: the values neither grow nor vanish fast
	MOVQ AX, X15
	VBROADCASTSD X15, Y15
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11

peakloop:
	TESTQ CX, CX
	JZ    peakdone
	VFMADD231PD Y14, Y15, Y0
	VFMADD231PD Y14, Y15, Y1
	VFMADD231PD Y14, Y15, Y2
	VFMADD231PD Y14, Y15, Y3
	VFMADD231PD Y14, Y15, Y4
	VFMADD231PD Y14, Y15, Y5
	VFMADD231PD Y14, Y15, Y6
	VFMADD231PD Y14, Y15, Y7
	VFMADD231PD Y14, Y15, Y8
	VFMADD231PD Y14, Y15, Y9
	VFMADD231PD Y14, Y15, Y10
	VFMADD231PD Y14, Y15, Y11
	DECQ CX
	JMP  peakloop

peakdone:
	VADDPD Y0, Y1, Y0
	VADDPD Y2, Y3, Y2
	VADDPD Y4, Y5, Y4
	VADDPD Y6, Y7, Y6
	VADDPD Y8, Y9, Y8
	VADDPD Y10, Y11, Y10
	VADDPD Y0, Y2, Y0
	VADDPD Y4, Y6, Y4
	VADDPD Y8, Y10, Y8
	VADDPD Y0, Y4, Y0
	VADDPD Y0, Y8, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X0, X1, X0
	VHADDPD X0, X0, X0
	MOVSD X0, ret+8(FP)
	VZEROUPPER
	RET
