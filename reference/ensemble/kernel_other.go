//go:build !amd64

package ensemble

// HasAsm reports whether the assembly micro-kernels run: never on this architecture.
var HasAsm = false

// The assembly's names, never called here (HasAsm is false).
func mul4x8AVX2(*float64, int, *float64, int, int, *float64)  { panic("ensemble: no assembly") }
func acc4x8AVX2(*float64, int, *float64, int, *float64, int)  { panic("ensemble: no assembly") }
func mul4x16AVX2(*float32, int, *float32, int, int, *float32) { panic("ensemble: no assembly") }
func acc4x16AVX2(*float32, int, *float32, int, *float32, int) { panic("ensemble: no assembly") }
func fmaPeakAVX2(int) float64                                 { panic("ensemble: no assembly") }
