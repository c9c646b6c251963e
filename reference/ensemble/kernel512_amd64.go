package ensemble

import "unsafe"

// mul512 is mul on the AVX-512 kernels: rb rows (12, 8 or 4) of x against the w models
// from a (w is the wide block, 16 float64 or 32 float32 models, half of it, the narrow
// panel, or a quarter, the half panel). The calls are direct, not through function values,
// so the scratch passed stays on the caller's stack.
func (kn kernels[F]) mul512(w, rb int, x *F, ldx int, a *F, lda, d int, z *F) {
	var zero F
	if unsafe.Sizeof(zero) == 8 {
		mul512F64(w, rb, (*float64)(unsafe.Pointer(x)), ldx, (*float64)(unsafe.Pointer(a)), lda, d, (*float64)(unsafe.Pointer(z)))
		return
	}
	mul512F32(w, rb, (*float32)(unsafe.Pointer(x)), ldx, (*float32)(unsafe.Pointer(a)), lda, d, (*float32)(unsafe.Pointer(z)))
}

func mul512F64(w, rb int, x *float64, ldx int, a *float64, lda, d int, z *float64) {
	switch {
	case w == 16 && rb == 12:
		mulF64x16R12AVX512(x, ldx, a, lda, d, z)
	case w == 16 && rb == 8:
		mulF64x16R8AVX512(x, ldx, a, lda, d, z)
	case w == 16 && rb == 4:
		mulF64x16R4AVX512(x, ldx, a, lda, d, z)
	case w == 8 && rb == 12:
		mulF64x8R12AVX512(x, ldx, a, lda, d, z)
	case w == 8 && rb == 8:
		mulF64x8R8AVX512(x, ldx, a, lda, d, z)
	case w == 8 && rb == 4:
		mulF64x8R4AVX512(x, ldx, a, lda, d, z)
	case w == 4 && rb == 12:
		mulF64x4R12AVX512(x, ldx, a, lda, d, z)
	case w == 4 && rb == 8:
		mulF64x4R8AVX512(x, ldx, a, lda, d, z)
	case w == 4 && rb == 4:
		mulF64x4R4AVX512(x, ldx, a, lda, d, z)
	default:
		panic("ensemble: no AVX-512 kernel for this block")
	}
}

func mul512F32(w, rb int, x *float32, ldx int, a *float32, lda, d int, z *float32) {
	switch {
	case w == 32 && rb == 12:
		mulF32x32R12AVX512(x, ldx, a, lda, d, z)
	case w == 32 && rb == 8:
		mulF32x32R8AVX512(x, ldx, a, lda, d, z)
	case w == 32 && rb == 4:
		mulF32x32R4AVX512(x, ldx, a, lda, d, z)
	case w == 16 && rb == 12:
		mulF32x16R12AVX512(x, ldx, a, lda, d, z)
	case w == 16 && rb == 8:
		mulF32x16R8AVX512(x, ldx, a, lda, d, z)
	case w == 16 && rb == 4:
		mulF32x16R4AVX512(x, ldx, a, lda, d, z)
	case w == 8 && rb == 12:
		mulF32x8R12AVX512(x, ldx, a, lda, d, z)
	case w == 8 && rb == 8:
		mulF32x8R8AVX512(x, ldx, a, lda, d, z)
	case w == 8 && rb == 4:
		mulF32x8R4AVX512(x, ldx, a, lda, d, z)
	default:
		panic("ensemble: no AVX-512 kernel for this block")
	}
}

// accRows is accRows's kernel for the w models (w as for mul512): x's rows rows (stride
// ldx), transposed, times z (rows × w) added to g's panel (stride ldg), from lambda·base
// where base is not nil.
func (kn kernels[F]) accRows(w int, x *F, ldx int, z *F, rows, d int, g *F, ldg int, base *F, lambda F) {
	var zero F
	if unsafe.Sizeof(zero) == 8 {
		x, z, g, base, lambda := (*float64)(unsafe.Pointer(x)), (*float64)(unsafe.Pointer(z)), (*float64)(unsafe.Pointer(g)), (*float64)(unsafe.Pointer(base)), float64(lambda)
		switch w {
		case 16:
			accRowsF64x16AVX512(x, ldx, z, rows, d, g, ldg, base, lambda)
		case 8:
			accRowsF64x8AVX512(x, ldx, z, rows, d, g, ldg, base, lambda)
		case 4:
			accRowsF64x4AVX512(x, ldx, z, rows, d, g, ldg, base, lambda)
		default:
			panic("ensemble: no AVX-512 kernel for this block")
		}
		return
	}
	x32, z32, g32, base32, lambda32 := (*float32)(unsafe.Pointer(x)), (*float32)(unsafe.Pointer(z)), (*float32)(unsafe.Pointer(g)), (*float32)(unsafe.Pointer(base)), float32(lambda)
	switch w {
	case 32:
		accRowsF32x32AVX512(x32, ldx, z32, rows, d, g32, ldg, base32, lambda32)
	case 16:
		accRowsF32x16AVX512(x32, ldx, z32, rows, d, g32, ldg, base32, lambda32)
	case 8:
		accRowsF32x8AVX512(x32, ldx, z32, rows, d, g32, ldg, base32, lambda32)
	default:
		panic("ensemble: no AVX-512 kernel for this block")
	}
}

// weights512 sets wz[r·w+t] = inv·φ'(z[r·w+t]) with label y[r] for rb rows and w models (a
// multiple of 8) with the AVX-512 kernels, the bits logisticWeights gives; false if a lane
// left math.Exp's normal path (wz is then to be recomputed).
func weights512[F float](wz, z, y *F, rb, w int, inv F) bool {
	var zero F
	if unsafe.Sizeof(zero) == 8 {
		return weightsF64AVX512((*float64)(unsafe.Pointer(wz)), (*float64)(unsafe.Pointer(z)), (*float64)(unsafe.Pointer(y)), rb, w, float64(inv)) == 0
	}
	return weightsF32AVX512((*float32)(unsafe.Pointer(wz)), (*float32)(unsafe.Pointer(z)), (*float32)(unsafe.Pointer(y)), rb, w, float32(inv)) == 0
}

// weightsAVX2 is weights512 for float32 with AVX2 alone (weightsF32AVX2): w a multiple of 8.
func weightsAVX2[F float](wz, z, y *F, rb, w int, inv F) bool {
	return weightsF32AVX2((*float32)(unsafe.Pointer(wz)), (*float32)(unsafe.Pointer(z)), (*float32)(unsafe.Pointer(y)), rb, w, float32(inv)) == 0
}
