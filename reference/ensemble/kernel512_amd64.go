package ensemble

import "unsafe"

// mul512 is mul on the AVX-512 kernels: rb rows (12, 8 or 4) of x against the w models
// from a (w is the wide block, 16 float64 or 32 float32 models, half of it, the narrow
// panel, or a quarter, the half panel); with g non-nil it also sets g's panel (stride lda)
// to lambda times a's (the Init kernels). The calls are direct, not through function
// values, so the scratch passed stays on the caller's stack.
func (kn kernels[F]) mul512(w, rb int, x *F, ldx int, a *F, lda, d int, z, g *F, lambda F) {
	var zero F
	if unsafe.Sizeof(zero) == 8 {
		x, a, z, g, lambda := (*float64)(unsafe.Pointer(x)), (*float64)(unsafe.Pointer(a)), (*float64)(unsafe.Pointer(z)), (*float64)(unsafe.Pointer(g)), float64(lambda)
		switch {
		case w == 16 && rb == 12 && g == nil:
			mulF64x16R12AVX512(x, ldx, a, lda, d, z)
		case w == 16 && rb == 12:
			mulF64x16R12AVX512Init(x, ldx, a, lda, d, z, g, lambda)
		case w == 16 && rb == 8 && g == nil:
			mulF64x16R8AVX512(x, ldx, a, lda, d, z)
		case w == 16 && rb == 8:
			mulF64x16R8AVX512Init(x, ldx, a, lda, d, z, g, lambda)
		case w == 16 && rb == 4 && g == nil:
			mulF64x16R4AVX512(x, ldx, a, lda, d, z)
		case w == 16 && rb == 4:
			mulF64x16R4AVX512Init(x, ldx, a, lda, d, z, g, lambda)
		case w == 8 && rb == 12 && g == nil:
			mulF64x8R12AVX512(x, ldx, a, lda, d, z)
		case w == 8 && rb == 12:
			mulF64x8R12AVX512Init(x, ldx, a, lda, d, z, g, lambda)
		case w == 8 && rb == 8 && g == nil:
			mulF64x8R8AVX512(x, ldx, a, lda, d, z)
		case w == 8 && rb == 8:
			mulF64x8R8AVX512Init(x, ldx, a, lda, d, z, g, lambda)
		case w == 8 && rb == 4 && g == nil:
			mulF64x8R4AVX512(x, ldx, a, lda, d, z)
		case w == 8 && rb == 4:
			mulF64x8R4AVX512Init(x, ldx, a, lda, d, z, g, lambda)
		case w == 4 && rb == 12 && g == nil:
			mulF64x4R12AVX512(x, ldx, a, lda, d, z)
		case w == 4 && rb == 12:
			mulF64x4R12AVX512Init(x, ldx, a, lda, d, z, g, lambda)
		case w == 4 && rb == 8 && g == nil:
			mulF64x4R8AVX512(x, ldx, a, lda, d, z)
		case w == 4 && rb == 8:
			mulF64x4R8AVX512Init(x, ldx, a, lda, d, z, g, lambda)
		case w == 4 && rb == 4 && g == nil:
			mulF64x4R4AVX512(x, ldx, a, lda, d, z)
		case w == 4 && rb == 4:
			mulF64x4R4AVX512Init(x, ldx, a, lda, d, z, g, lambda)
		default:
			panic("ensemble: no AVX-512 kernel for this block")
		}
		return
	}
	mul512F32(w, rb, (*float32)(unsafe.Pointer(x)), ldx, (*float32)(unsafe.Pointer(a)), lda, d, (*float32)(unsafe.Pointer(z)), (*float32)(unsafe.Pointer(g)), float32(lambda))
}

func mul512F32(w, rb int, x *float32, ldx int, a *float32, lda, d int, z, g *float32, lambda float32) {
	switch {
	case w == 32 && rb == 12 && g == nil:
		mulF32x32R12AVX512(x, ldx, a, lda, d, z)
	case w == 32 && rb == 12:
		mulF32x32R12AVX512Init(x, ldx, a, lda, d, z, g, lambda)
	case w == 32 && rb == 8 && g == nil:
		mulF32x32R8AVX512(x, ldx, a, lda, d, z)
	case w == 32 && rb == 8:
		mulF32x32R8AVX512Init(x, ldx, a, lda, d, z, g, lambda)
	case w == 32 && rb == 4 && g == nil:
		mulF32x32R4AVX512(x, ldx, a, lda, d, z)
	case w == 32 && rb == 4:
		mulF32x32R4AVX512Init(x, ldx, a, lda, d, z, g, lambda)
	case w == 16 && rb == 12 && g == nil:
		mulF32x16R12AVX512(x, ldx, a, lda, d, z)
	case w == 16 && rb == 12:
		mulF32x16R12AVX512Init(x, ldx, a, lda, d, z, g, lambda)
	case w == 16 && rb == 8 && g == nil:
		mulF32x16R8AVX512(x, ldx, a, lda, d, z)
	case w == 16 && rb == 8:
		mulF32x16R8AVX512Init(x, ldx, a, lda, d, z, g, lambda)
	case w == 16 && rb == 4 && g == nil:
		mulF32x16R4AVX512(x, ldx, a, lda, d, z)
	case w == 16 && rb == 4:
		mulF32x16R4AVX512Init(x, ldx, a, lda, d, z, g, lambda)
	case w == 8 && rb == 12 && g == nil:
		mulF32x8R12AVX512(x, ldx, a, lda, d, z)
	case w == 8 && rb == 12:
		mulF32x8R12AVX512Init(x, ldx, a, lda, d, z, g, lambda)
	case w == 8 && rb == 8 && g == nil:
		mulF32x8R8AVX512(x, ldx, a, lda, d, z)
	case w == 8 && rb == 8:
		mulF32x8R8AVX512Init(x, ldx, a, lda, d, z, g, lambda)
	case w == 8 && rb == 4 && g == nil:
		mulF32x8R4AVX512(x, ldx, a, lda, d, z)
	case w == 8 && rb == 4:
		mulF32x8R4AVX512Init(x, ldx, a, lda, d, z, g, lambda)
	default:
		panic("ensemble: no AVX-512 kernel for this block")
	}
}

// acc512 is acc on the AVX-512 kernels: rb rows (12, 8 or 4) of x, transposed, times z
// added to the w models' panel of g (w as for mul512).
func (kn kernels[F]) acc512(w, rb int, x *F, ldx int, z *F, d int, g *F, ldg int) {
	var zero F
	if unsafe.Sizeof(zero) == 8 {
		x, z, g := (*float64)(unsafe.Pointer(x)), (*float64)(unsafe.Pointer(z)), (*float64)(unsafe.Pointer(g))
		switch {
		case w == 16 && rb == 12:
			accF64x16R12AVX512(x, ldx, z, d, g, ldg)
		case w == 16 && rb == 8:
			accF64x16R8AVX512(x, ldx, z, d, g, ldg)
		case w == 16 && rb == 4:
			accF64x16R4AVX512(x, ldx, z, d, g, ldg)
		case w == 8 && rb == 12:
			accF64x8R12AVX512(x, ldx, z, d, g, ldg)
		case w == 8 && rb == 8:
			accF64x8R8AVX512(x, ldx, z, d, g, ldg)
		case w == 8 && rb == 4:
			accF64x8R4AVX512(x, ldx, z, d, g, ldg)
		case w == 4 && rb == 12:
			accF64x4R12AVX512(x, ldx, z, d, g, ldg)
		case w == 4 && rb == 8:
			accF64x4R8AVX512(x, ldx, z, d, g, ldg)
		case w == 4 && rb == 4:
			accF64x4R4AVX512(x, ldx, z, d, g, ldg)
		default:
			panic("ensemble: no AVX-512 kernel for this block")
		}
		return
	}
	acc512F32(w, rb, (*float32)(unsafe.Pointer(x)), ldx, (*float32)(unsafe.Pointer(z)), d, (*float32)(unsafe.Pointer(g)), ldg)
}

func acc512F32(w, rb int, x *float32, ldx int, z *float32, d int, g *float32, ldg int) {
	switch {
	case w == 32 && rb == 12:
		accF32x32R12AVX512(x, ldx, z, d, g, ldg)
	case w == 32 && rb == 8:
		accF32x32R8AVX512(x, ldx, z, d, g, ldg)
	case w == 32 && rb == 4:
		accF32x32R4AVX512(x, ldx, z, d, g, ldg)
	case w == 16 && rb == 12:
		accF32x16R12AVX512(x, ldx, z, d, g, ldg)
	case w == 16 && rb == 8:
		accF32x16R8AVX512(x, ldx, z, d, g, ldg)
	case w == 16 && rb == 4:
		accF32x16R4AVX512(x, ldx, z, d, g, ldg)
	case w == 8 && rb == 12:
		accF32x8R12AVX512(x, ldx, z, d, g, ldg)
	case w == 8 && rb == 8:
		accF32x8R8AVX512(x, ldx, z, d, g, ldg)
	case w == 8 && rb == 4:
		accF32x8R4AVX512(x, ldx, z, d, g, ldg)
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
