//go:build !amd64

package ensemble

// HasAsm reports whether the assembly micro-kernels run: never on this architecture.
var HasAsm = false

func mul4x8(x *float64, ldx int, a *float64, lda, d int, z *float64) {
	mul4x8Go(x, ldx, a, lda, d, z)
}

func acc4x8(x *float64, ldx int, z *float64, d int, g *float64, ldg int) {
	acc4x8Go(x, ldx, z, d, g, ldg)
}

func fmaPeakAVX2(int) float64 { panic("ensemble: no assembly on this architecture") }
