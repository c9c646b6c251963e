package ensemble

import "golang.org/x/sys/cpu"

// HasAsm reports whether the assembly micro-kernels run (AVX2 and FMA present).
var HasAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func mul4x8AVX2(x *float64, ldx int, a *float64, lda, d int, z *float64)

//go:noescape
func acc4x8AVX2(x *float64, ldx int, z *float64, d int, gp *float64, ldg int)

//go:noescape
func mul4x16AVX2(x *float32, ldx int, a *float32, lda, d int, z *float32)

//go:noescape
func acc4x16AVX2(x *float32, ldx int, z *float32, d int, gp *float32, ldg int)

//go:noescape
func fmaPeakAVX2(n int) float64
