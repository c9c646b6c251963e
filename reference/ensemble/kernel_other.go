//go:build !amd64

package ensemble

// HasAsm reports whether the assembly micro-kernels run: never on this architecture.
var HasAsm = false

// HasAVX512 reports whether the AVX-512 kernels run: never on this architecture.
var HasAVX512 = false

var hasAVX512 = false

// The assembly's names, never called here (HasAsm is false).
func mulF64x8AVX2(*float64, int, *float64, int, int, *float64)    { panic("ensemble: no assembly") }
func accF64x8AVX2(*float64, int, *float64, int, *float64, int)    { panic("ensemble: no assembly") }
func mulF64x4AVX2(*float64, int, *float64, int, int, *float64)    { panic("ensemble: no assembly") }
func accF64x4AVX2(*float64, int, *float64, int, *float64, int)    { panic("ensemble: no assembly") }
func mulF32x16AVX2(*float32, int, *float32, int, int, *float32)   { panic("ensemble: no assembly") }
func accF32x16AVX2(*float32, int, *float32, int, *float32, int)   { panic("ensemble: no assembly") }
func mulF32x8AVX2(*float32, int, *float32, int, int, *float32)    { panic("ensemble: no assembly") }
func accF32x8AVX2(*float32, int, *float32, int, *float32, int)    { panic("ensemble: no assembly") }
func mulF64x1AVX2(*float64, int, *float64, int, int, *float64)    { panic("ensemble: no assembly") }
func accF64x1AVX2(*float64, int, *float64, int, *float64, int)    { panic("ensemble: no assembly") }
func mulF32x1AVX2(*float32, int, *float32, int, int, *float32)    { panic("ensemble: no assembly") }
func accF32x1AVX2(*float32, int, *float32, int, *float32, int)    { panic("ensemble: no assembly") }
func mulF64x8R6AVX2(*float64, int, *float64, int, int, *float64)  { panic("ensemble: no assembly") }
func accF64x8R6AVX2(*float64, int, *float64, int, *float64, int)  { panic("ensemble: no assembly") }
func mulF64x4R6AVX2(*float64, int, *float64, int, int, *float64)  { panic("ensemble: no assembly") }
func accF64x4R6AVX2(*float64, int, *float64, int, *float64, int)  { panic("ensemble: no assembly") }
func mulF32x16R6AVX2(*float32, int, *float32, int, int, *float32) { panic("ensemble: no assembly") }
func accF32x16R6AVX2(*float32, int, *float32, int, *float32, int) { panic("ensemble: no assembly") }
func mulF32x8R6AVX2(*float32, int, *float32, int, int, *float32)  { panic("ensemble: no assembly") }
func accF32x8R6AVX2(*float32, int, *float32, int, *float32, int)  { panic("ensemble: no assembly") }
func fmaPeakAVX2(int) float64                                     { panic("ensemble: no assembly") }
func fmaPeakAVX512(int) float64                                   { panic("ensemble: no assembly") }

func (kn kernels[F]) mul512(int, int, *F, int, *F, int, int, *F) { panic("ensemble: no assembly") }
func (kn kernels[F]) accRows(int, *F, int, *F, int, int, *F, int, *F, F) {
	panic("ensemble: no assembly")
}
func dotF64x4AVX512(*float64, int, *float64, int, *float64)  { panic("ensemble: no assembly") }
func axpyF64x4AVX512(*float64, int, *float64, int, *float64) { panic("ensemble: no assembly") }
func dotF64x2AVX2(*float64, int, *float64, int, *float64)    { panic("ensemble: no assembly") }
func axpyF64x4AVX2(*float64, int, *float64, int, *float64)   { panic("ensemble: no assembly") }
func weights512[F float](*F, *F, *F, int, int, F) bool       { panic("ensemble: no assembly") }
func weightsAVX2[F float](*F, *F, *F, int, int, F) bool      { panic("ensemble: no assembly") }
func dotF64x8AVX512(*float64, int, *float64, int, *float64)  { panic("ensemble: no assembly") }
func axpyF64x8AVX512(*float64, int, *float64, int, *float64) { panic("ensemble: no assembly") }
func noisyStepF64x16AVX512(*float64, *float32, float64, *float64, *float64, int, int, int, int, float64) {
	panic("ensemble: no assembly")
}
func noisyStepF64x8AVX512(*float64, *float32, float64, *float64, *float64, int, int, int, int, float64) {
	panic("ensemble: no assembly")
}
func noisyStepF32x16AVX512(*float64, *float32, *float32, float64, *float32, *float64, int, int, int, int, float64) {
	panic("ensemble: no assembly")
}
func noisyStepF32x8AVX512(*float64, *float32, *float32, float64, *float32, *float64, int, int, int, int, float64) {
	panic("ensemble: no assembly")
}
