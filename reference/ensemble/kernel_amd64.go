package ensemble

import "golang.org/x/sys/cpu"

// HasAsm reports whether the assembly micro-kernels run (AVX2 and FMA present).
var HasAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func mul4x8AVX2(x *float64, ldx int, a *float64, lda, d int, z *float64)

//go:noescape
func acc4x8AVX2(x *float64, ldx int, z *float64, d int, gp *float64, ldg int)

//go:noescape
func fmaPeakAVX2(n int) float64

func mul4x8(x *float64, ldx int, a *float64, lda, d int, z *float64) {
	if HasAsm {
		mul4x8AVX2(x, ldx, a, lda, d, z)
		return
	}
	mul4x8Go(x, ldx, a, lda, d, z)
}

func acc4x8(x *float64, ldx int, z *float64, d int, g *float64, ldg int) {
	if HasAsm {
		acc4x8AVX2(x, ldx, z, d, g, ldg)
		return
	}
	acc4x8Go(x, ldx, z, d, g, ldg)
}
