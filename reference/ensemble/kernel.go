package ensemble

import (
	"fmt"
	"math"
	"sync"
	"unsafe"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/reference/internal/logit"
)

// Block sizes: the micro-kernels work on rowBlock rows of X against a panel of models at
// a time (8 float64 or 16 float32: two AVX2 registers a row), or a half panel (one
// register a row) where fewer models are left; a group of models' parameters and
// gradients (2·d·group·size bytes, 400 KB at d = 784) stays in the core's L2 cache while
// every row block passes over them.
const (
	rowBlock   = 4
	rowBlock6  = 6             // the assembly's panels also take rows six at a time (see pass)
	rowBlock12 = 2 * rowBlock6 // and the AVX-512 kernels twelve
	maxPanel   = 16
	maxWide    = rowBlock12 * 32 // the AVX-512 kernels' outputs at once: 12 rows × 32 float32 models
)

// LogisticGradient sets G to the gradient, at each of k models, of the mean logistic loss
// over m rows plus (λ/2)‖θ‖²:
//
//	G = (1/m) Xᵀ R + λΘ,  R_it = −y_i σ(−y_i (XΘ)_it),
//
// with X the m × d rows (row-major, stride d), y their ±1 labels, and Θ and G d × k
// (row-major: column t is model t). It reads X once per group of 32 models, not once per
// model: the two matrix products run as a blocked matrix–matrix kernel (AVX2 and FMA
// assembly where the CPU has them, else the same blocking in Go), so k models cost far
// less than k gradients. A model's gradient is the same bits wherever it sits among the k
// (the edges sum as the micro-kernels do). It does not allocate once warm
// (the room it copies groups of models into, see copyRows, is pooled).
func LogisticGradient(G, X, y, Theta []float64, m, d, k int, lambda float64) {
	checkShapes("LogisticGradient", G, X, y, Theta, nil, m, d, k)
	gradient(G, X, y, Theta, m, d, k, lambda, kernels64())
}

// LogisticGradient32 is LogisticGradient in float32: panels of 16 models, groups of 64,
// half the bytes and twice the flops an instruction. Its sums round to float32 (2⁻²⁴), its
// derivatives are float32's (logisticDeriv32, the same bits on every path), and the Go
// fallback rounds each fused step twice (through float64), so unlike the
// float64 kernel it is not the same bits on every path (on one path a model's bits still
// do not depend on its place among the k): a speed path for measurements, not for
// certificates or exact checks.
func LogisticGradient32(G, X, y, Theta []float32, m, d, k int, lambda float32) {
	checkShapes("LogisticGradient32", G, X, y, Theta, nil, m, d, k)
	gradient(G, X, y, Theta, m, d, k, lambda, kernels32())
}

// LogisticHVP sets HV to the Hessian–vector products, at each of k models Θ and directions
// V (both d × k, column t model t and its direction), of LogisticGradient's objective:
//
//	HV = (1/m) Xᵀ (S ∘ XV) + λV,  S_it = σ(z_it)σ(−z_it), z = XΘ,
//
// with the same blocking, kernels and summation orders as LogisticGradient (so a model's
// product is the same bits wherever it sits among the k). It does not allocate once warm.
func LogisticHVP(HV, X, y, Theta, V []float64, m, d, k int, lambda float64) {
	checkShapes("LogisticHVP", HV, X, y, Theta, V, m, d, k)
	hvp(HV, X, y, Theta, V, m, d, k, lambda, kernels64())
}

// LogisticHVP32 is LogisticHVP in float32, as LogisticGradient32 is LogisticGradient.
func LogisticHVP32(HV, X, y, Theta, V []float32, m, d, k int, lambda float32) {
	checkShapes("LogisticHVP32", HV, X, y, Theta, V, m, d, k)
	hvp(HV, X, y, Theta, V, m, d, k, lambda, kernels32())
}

type float interface{ ~float32 | ~float64 }

// kernels say which micro-kernels a precision runs: the assembly's (asm) or Go's, on
// panels of panel models (or half that), in groups of group. Calls go through mul and
// acc, which call the kernels directly (not through function values), so the scratch
// passed stays on the caller's stack.
type kernels[F float] struct {
	panel, group int
	asm          bool
	// wideW is the models of the AVX-512 kernels' block of rowBlock12 rows (0: no such
	// kernels), tried before the panels
	wideW int
}

// mul sets z (4 × w, stride w) to x (4 rows of d, stride ldx) times a (d × w, stride
// lda), for w the panel, half of it, or one model.
func (kn kernels[F]) mul(w int, x *F, ldx int, a *F, lda, d int, z *F) {
	if !kn.asm {
		mulGo(w, x, ldx, a, lda, d, z)
		return
	}
	var zero F
	if unsafe.Sizeof(zero) == 8 {
		x, a, z := (*float64)(unsafe.Pointer(x)), (*float64)(unsafe.Pointer(a)), (*float64)(unsafe.Pointer(z))
		switch w {
		case kn.panel:
			mulF64x8AVX2(x, ldx, a, lda, d, z)
		case 1:
			mulF64x1AVX2(x, ldx, a, lda, d, z)
		default:
			mulF64x4AVX2(x, ldx, a, lda, d, z)
		}
		return
	}
	x32, a32, z32 := (*float32)(unsafe.Pointer(x)), (*float32)(unsafe.Pointer(a)), (*float32)(unsafe.Pointer(z))
	switch w {
	case kn.panel:
		mulF32x16AVX2(x32, ldx, a32, lda, d, z32)
	case 1:
		mulF32x1AVX2(x32, ldx, a32, lda, d, z32)
	default:
		mulF32x8AVX2(x32, ldx, a32, lda, d, z32)
	}
}

// acc adds x's transpose (x: 4 rows of d, stride ldx) times z (4 × w) to g (d × w, stride
// ldg), for w the panel, half of it, or one model.
func (kn kernels[F]) acc(w int, x *F, ldx int, z *F, d int, g *F, ldg int) {
	if !kn.asm {
		accGo(w, x, ldx, z, d, g, ldg)
		return
	}
	var zero F
	if unsafe.Sizeof(zero) == 8 {
		x, z, g := (*float64)(unsafe.Pointer(x)), (*float64)(unsafe.Pointer(z)), (*float64)(unsafe.Pointer(g))
		switch w {
		case kn.panel:
			accF64x8AVX2(x, ldx, z, d, g, ldg)
		case 1:
			accF64x1AVX2(x, ldx, z, d, g, ldg)
		default:
			accF64x4AVX2(x, ldx, z, d, g, ldg)
		}
		return
	}
	x32, z32, g32 := (*float32)(unsafe.Pointer(x)), (*float32)(unsafe.Pointer(z)), (*float32)(unsafe.Pointer(g))
	switch w {
	case kn.panel:
		accF32x16AVX2(x32, ldx, z32, d, g32, ldg)
	case 1:
		accF32x1AVX2(x32, ldx, z32, d, g32, ldg)
	default:
		accF32x8AVX2(x32, ldx, z32, d, g32, ldg)
	}
}

// sixRows turns pass's 6-row blocks on; off, the assembly takes rows four at a time
// throughout, as it did before them (the tests compare the two bit for bit).
var sixRows = true

// mul6 is mul on 6 rows, for a panel or half panel, with the assembly only.
func (kn kernels[F]) mul6(w int, x *F, ldx int, a *F, lda, d int, z *F) {
	var zero F
	if unsafe.Sizeof(zero) == 8 {
		x, a, z := (*float64)(unsafe.Pointer(x)), (*float64)(unsafe.Pointer(a)), (*float64)(unsafe.Pointer(z))
		if w == kn.panel {
			mulF64x8R6AVX2(x, ldx, a, lda, d, z)
		} else {
			mulF64x4R6AVX2(x, ldx, a, lda, d, z)
		}
		return
	}
	x32, a32, z32 := (*float32)(unsafe.Pointer(x)), (*float32)(unsafe.Pointer(a)), (*float32)(unsafe.Pointer(z))
	if w == kn.panel {
		mulF32x16R6AVX2(x32, ldx, a32, lda, d, z32)
	} else {
		mulF32x8R6AVX2(x32, ldx, a32, lda, d, z32)
	}
}

// acc6 is acc on 6 rows, for a panel or half panel, with the assembly only.
func (kn kernels[F]) acc6(w int, x *F, ldx int, z *F, d int, g *F, ldg int) {
	var zero F
	if unsafe.Sizeof(zero) == 8 {
		x, z, g := (*float64)(unsafe.Pointer(x)), (*float64)(unsafe.Pointer(z)), (*float64)(unsafe.Pointer(g))
		if w == kn.panel {
			accF64x8R6AVX2(x, ldx, z, d, g, ldg)
		} else {
			accF64x4R6AVX2(x, ldx, z, d, g, ldg)
		}
		return
	}
	x32, z32, g32 := (*float32)(unsafe.Pointer(x)), (*float32)(unsafe.Pointer(z)), (*float32)(unsafe.Pointer(g))
	if w == kn.panel {
		accF32x16R6AVX2(x32, ldx, z32, d, g32, ldg)
	} else {
		accF32x8R6AVX2(x32, ldx, z32, d, g32, ldg)
	}
}

func checkShapes[F float](name string, out, X, y, Theta, V []F, m, d, k int) {
	if m < 1 || d < 1 || k < 1 || len(X) < m*d || len(y) < m || len(Theta) < d*k || len(out) < d*k || (V != nil && len(V) < d*k) {
		panic(fmt.Sprintf("ensemble: %s: m = %d, d = %d, k = %d with len(X) = %d, len(y) = %d, len(Θ) = %d, len(V) = %d, len(out) = %d",
			name, m, d, k, len(X), len(y), len(Theta), len(V), len(out)))
	}
}

// fma is the fused a·b + c in F (for float32, through float64: rounded twice).
func fma[F float](a, b, c F) F { return F(math.FMA(float64(a), float64(b), float64(c))) }

// gradient is LogisticGradient for either precision.
func gradient[F float](G, X, y, Theta []F, m, d, k int, lambda F, kn kernels[F]) {
	inv := 1 / F(m)
	pass(G, X, y, Theta, nil, Theta, m, d, k, lambda, kn, func(u, _, yi F) F {
		return inv * deriv(u, yi)
	}, inv)
}

// deriv is the precision's φ'(u) with label y: logisticDeriv in float64, logisticDeriv32
// in float32.
func deriv[F float](u, y F) F {
	var zero F
	if unsafe.Sizeof(zero) == 4 {
		return F(logisticDeriv32(float32(u), float32(y)))
	}
	return F(logisticDeriv(float64(u), float64(y)))
}

// hvp is LogisticHVP for either precision.
func hvp[F float](HV, X, y, Theta, V []F, m, d, k int, lambda F, kn kernels[F]) {
	inv := 1 / F(m)
	pass(HV, X, y, Theta, V, V, m, d, k, lambda, kn, func(u, uv, _ F) F {
		return inv * F(logisticCurv(float64(u))) * uv
	}, 0)
}

// pass is the one pass over the data both products make: out = λ·base + Xᵀ W, with W_it =
// weight((XΘ)_it, (XV)_it, y_i) (XV only when V is given); with AVX-512 it is pass512.
// Rows go in blocks of 4 (with the assembly, first twelve at a time, in two blocks of 6
// for the panels) through the micro-kernels, models in panels, then at most one half
// panel, then one at a time (the one-model kernels, scalar fused operations in the
// panels' order); the last m mod 4
// rows go one row and one model at a time in the same order for every model (xᵢᵀθ over j
// from 0, then out over the rows in order). So a model's result is the same bits wherever
// it sits among the k — in a panel, a half panel or alone, in an ensemble of 1 or of 128 —
// in float32 too, where the Go fallback's fused steps round differently from the
// assembly's: every model of a call takes the same path.
//
// derivInv, if not 0, says weight is derivInv·φ'(u) (the gradient's): a block's weights
// are then logisticWeights's, several at a time where the CPU allows, the bits weight
// gives.
func pass[F float](out, X, y, Theta, V, base []F, m, d, k int, lambda F, kn kernels[F], weight func(u, uv, yi F) F, derivInv F) {
	if kn.asm && kn.wideW > 0 {
		pass512(out, X, y, Theta, V, base, m, d, k, lambda, kn, weight, derivInv)
		return
	}
	for i, v := range base[:d*k] {
		out[i] = lambda * v
	}
	p := kn.panel
	var z, zv, wz [maxWide]F
	var lw logisticScratch
	// block runs rows lo..lo+rb (rb = 4, or 6 for a panel or half panel with the assembly)
	// of X through the micro-kernels for the w models from c.
	block := func(lo, rb, w, c int) {
		x := &X[lo*d]
		if rb == rowBlock6 {
			kn.mul6(w, x, d, &Theta[c], k, d, &z[0])
			if V != nil {
				kn.mul6(w, x, d, &V[c], k, d, &zv[0])
			}
		} else {
			kn.mul(w, x, d, &Theta[c], k, d, &z[0])
			if V != nil {
				kn.mul(w, x, d, &V[c], k, d, &zv[0])
			}
		}
		if derivInv != 0 {
			logisticWeights(wz[:rb*w], z[:rb*w], y[lo:lo+rb], w, derivInv, &lw)
		} else {
			for r := range rb {
				for t := range w {
					wz[r*w+t] = weight(z[r*w+t], zv[r*w+t], y[lo+r])
				}
			}
		}
		if rb == rowBlock6 {
			kn.acc6(w, x, d, &wz[0], d, &out[c], k)
		} else {
			kn.acc(w, x, d, &wz[0], d, &out[c], k)
		}
	}
	for c0 := 0; c0 < k; c0 += kn.group {
		c1 := min(c0+kn.group, k)
		i := 0
		// With the assembly, rows go twelve at a time first: panels and half panels in two
		// blocks of 6 (a panel's parameters and gradients come from cache once for six rows,
		// not four), the models left one at a time in three blocks of 4. Every output still
		// sums its rows in order with the same fused operations, and edge still takes the
		// last m mod 4 rows, so the bits are those of blocks of 4 throughout.
		for ; kn.asm && sixRows && i+rowBlock12 <= m; i += rowBlock12 {
			c := c0
			for _, w := range [...]int{p, p / 2} {
				for ; c+w <= c1; c += w {
					block(i, rowBlock6, w, c)
					block(i+rowBlock6, rowBlock6, w, c)
				}
			}
			for ; c < c1; c++ {
				for lo := i; lo < i+2*rowBlock6; lo += rowBlock {
					block(lo, rowBlock, 1, c)
				}
			}
		}
		for ; i+rowBlock <= m; i += rowBlock {
			c := c0
			for _, w := range [...]int{p, p / 2, 1} {
				for ; c+w <= c1; c += w {
					block(i, rowBlock, w, c)
				}
			}
		}
		if i < m {
			edge(out, X, y, Theta, V, i, m, c0, c1, d, k, weight)
		}
	}
}

// pass512 is pass on a CPU with AVX-512: per group of models, the rows in chunks (see
// chunkRows; a mini-batch of 128 float32 rows is one chunk), and per chunk, the wide blocks
// of models (16 float64 or 32 float32), then at most one narrow panel (8 or 16: one 512-bit
// register a row) and one half panel (4 or 8: one 256-bit register), all AVX-512 kernels,
// then the models left one at a time through the scalar 4-row kernels; the m mod 4 edge
// rows last, in Go. A block of models takes the chunk's products twelve rows at a time (the
// last m mod 12 in one block of 8 or 4) into a buffer, their weights, then one accRows call
// that holds the block's gradient rows in registers while all the chunk's rows pass: the
// gradients are read and written once a chunk (once a call for a mini-batch), where before
// they were read and written once every twelve rows, and the first chunk's accRows starts
// from λ·base, so a call makes no pass over Θ and G of its own. Every output is still one
// FMA chain over j for XΘ and the rows in order into out from the same λ·base: the bits of
// pass's blocks (TestAVX512MatchesAVX2, also with the rows cut into many chunks).
func pass512[F float](out, X, y, Theta, V, base []F, m, d, k int, lambda F, kn kernels[F], weight func(u, uv, yi F) F, derivInv F) {
	var z, zv, wz [maxWide]F
	var lw logisticScratch
	m4 := m &^ (rowBlock - 1)
	widths := [...]int{kn.wideW, kn.wideW / 2, kn.wideW / 4}
	// weigh sets wz from z (and zv) for rb rows from lo and w models
	weigh := func(wz, z, zv []F, lo, rb, w int) {
		if derivInv != 0 {
			// the AVX-512 kernel where the block allows (every AVX-512 block: w is 32, 16
			// or 8) and, in float64, math.Exp takes the FMA path its lanes repeat
			// (logit.HasAsm: not under GODEBUG=cpu.avx=off); logisticWeights else, and for
			// a block with a margin beyond the kernel's range
			if w%8 != 0 || !logit.HasAsm || !weights512(&wz[0], &z[0], &y[lo], rb, w, derivInv) {
				logisticWeights(wz[:rb*w], z[:rb*w], y[lo:lo+rb], w, derivInv, &lw)
			}
			return
		}
		for r := range rb {
			for t := range w {
				wz[r*w+t] = weight(z[r*w+t], zv[r*w+t], y[lo+r])
			}
		}
	}
	// group runs models c0..c1 of out, Theta, V and base (d rows of stride ld)
	group := func(out, Theta, V, base []F, ld, c0, c1 int) {
		cv := c0 // the end of the columns the AVX-512 kernels take
		for _, w := range widths {
			cv += (c1 - cv) / w * w
		}
		// λ·base in Go where no accRows call starts from it: the single models, or every
		// column when no row block runs (m < 4)
		from := cv
		if m4 == 0 {
			from = c0
		}
		for j := range d {
			for t := from; t < c1; t++ {
				out[j*ld+t] = lambda * base[j*ld+t]
			}
		}
		// The rows in chunks (see chunkRows): each block of models takes the chunk's
		// products a row block at a time into zc (and zvc), their weights into wc, then one
		// accRows call adds the whole chunk to its columns of out (from λ·base in the first
		// chunk).
		chunk := chunkRows(d, int(unsafe.Sizeof(lambda)), kn.wideW)
		sp := scratch[F](3 * min(chunk, m4) * kn.wideW)
		s := *sp
		for i0 := 0; i0 < m4; i0 += chunk {
			i1 := min(i0+chunk, m4)
			n := i1 - i0
			zc, zvc, wc := s[:n*kn.wideW], s[n*kn.wideW:2*n*kn.wideW], s[2*n*kn.wideW:3*n*kn.wideW]
			c := c0
			for _, w := range widths {
				for ; c+w <= c1; c += w {
					for i := i0; i < i1; {
						rb := min(rowBlock12, i1-i)
						x := &X[i*d]
						at := (i - i0) * w
						kn.mul512(w, rb, x, d, &Theta[c], ld, d, &zc[at])
						if V != nil {
							kn.mul512(w, rb, x, d, &V[c], ld, d, &zvc[at])
						}
						weigh(wc[at:at+rb*w], zc[at:at+rb*w], zvc[at:at+rb*w], i, rb, w)
						i += rb
					}
					var init *F
					if i0 == 0 {
						init = &base[c]
					}
					kn.accRows(w, &X[i0*d], d, &wc[0], n, d, &out[c], ld, init, lambda)
				}
			}
			for ; c < c1; c++ {
				for lo := i0; lo < i1; lo += rowBlock {
					xl := &X[lo*d]
					kn.mul(1, xl, d, &Theta[c], ld, d, &z[0])
					if V != nil {
						kn.mul(1, xl, d, &V[c], ld, d, &zv[0])
					}
					weigh(wz[:rowBlock], z[:rowBlock], zv[:rowBlock], lo, rowBlock, 1)
					kn.acc(1, xl, d, &wz[0], d, &out[c], ld)
				}
			}
		}
		putScratch(sp)
		if m4 < m {
			edge(out, X, y, Theta, V, m4, m, c0, c1, d, ld, weight)
		}
	}
	for c0 := 0; c0 < k; c0 += kn.group {
		c1 := min(c0+kn.group, k)
		w := c1 - c0
		if w == k || m < copyRows || !copyGroups {
			group(out, Theta, V, base, k, c0, c1)
			continue
		}
		// The group's columns, copied to d × w matrices of their own (see copyRows); base
		// is Θ for the gradient, V for the Hessian–vector product.
		sp := scratch[F](3 * d * w)
		s := *sp
		T, O, VS := s[:d*w], s[d*w:2*d*w], s[2*d*w:3*d*w]
		gather(T, Theta, d, k, c0, w)
		B := T
		if V != nil {
			gather(VS, V, d, k, c0, w)
			B = VS
		} else {
			VS = nil
		}
		group(O, T, VS, B, w, 0, w)
		for j := range d {
			copy(out[j*k+c0:j*k+c1], O[j*w:(j+1)*w])
		}
		putScratch(sp)
	}
}

// chunkRows is the rows pass512 takes in one chunk: as many as fit chunkBytes with their
// rows of X (d values) and of the products, their V products and weights it buffers (3·wide
// values, wide the AVX-512 wide block), a multiple of 12, at least 12. A chunk's rows pass
// twice, once for the products and once for accRows, so they should still be in the core's
// L2 cache the second time; the gradients are then read and written once a chunk, not once
// every twelve rows as in blocks. At d = 784 that is 144 float32 rows (a mini-batch of 128
// in one chunk) or 72 float64 ones. (Counting X alone, a small d made the buffers the
// chunk's bulk: at d = 2 every row in one chunk, 3·m·wide values, 9 MB at m = 24 000.)
func chunkRows(d, size, wide int) int {
	return max(rowBlock12, chunkBytes/((d+3*wide)*size)/rowBlock12*rowBlock12)
}

// chunkBytes is the bytes of a chunk's rows (X and the buffers) at most (half a 1 MB L2
// cache, which also holds the group's parameters and gradients); the tests shrink it to cut
// small problems into several chunks.
var chunkBytes = 512 << 10

// copyRows is the rows from which pass512 copies a group of models out of a wider Θ into
// a d × group matrix of its own (and its G back): at a stride of k = 128 models (1 KB a row
// in float64, a power of two) one group's rows of Θ and G fall in an eighth of the L2 cache's
// sets and evict each other, and the kernels then read them from L3 for every row block. At
// b = 128 the copies cost about 4 % of a group's products and saved 18 % (k = 128:
// 1.63 → 1.33 times the FLOP limit, contiguous groups); below 64 rows they would cost
// about as much as they save. The bits do not change (TestGroupCopiesKeepTheBits).
const copyRows = 64

// copyGroups turns the copies on; the tests turn them off to compare.
var copyGroups = true

// gather sets dst (d × w) to src's columns c0..c0+w (d × k).
func gather[F float](dst, src []F, d, k, c0, w int) {
	for j := range d {
		copy(dst[j*w:(j+1)*w], src[j*k+c0:j*k+c0+w])
	}
}

// The copies' room, pooled so that a call does not allocate once warm.
var scratch64, scratch32 sync.Pool

// scratch returns room for n elements of F from its pool (or new).
func scratch[F float](n int) *[]F {
	var zero F
	p := &scratch64
	if unsafe.Sizeof(zero) == 4 {
		p = &scratch32
	}
	if s, ok := p.Get().(*[]F); ok && len(*s) >= n {
		return s
	}
	s := make([]F, n)
	return &s
}

func putScratch[F float](s *[]F) {
	var zero F
	if unsafe.Sizeof(zero) == 4 {
		scratch32.Put(s)
		return
	}
	scratch64.Put(s)
}

// edge adds rows lo..hi's terms for models c0..c1 to out, one row and one model at a time
// (pass's last m mod 4 rows).
func edge[F float](out, X, y, Theta, V []F, lo, hi, c0, c1, d, k int, weight func(u, uv, yi F) F) {
	for i := lo; i < hi; i++ {
		x := X[i*d : (i+1)*d]
		for c := c0; c < c1; c++ {
			var u, uv F
			for j, xj := range x {
				u = fma(xj, Theta[j*k+c], u)
			}
			if V != nil {
				for j, xj := range x {
					uv = fma(xj, V[j*k+c], uv)
				}
			}
			w := weight(u, uv, y[i])
			for j, xj := range x {
				out[j*k+c] = fma(xj, w, out[j*k+c])
			}
		}
	}
}

// logisticScratch is logisticWeights's float64 room, on pass's stack.
type logisticScratch struct{ y [maxWide]float64 }

// noClip is the clip level of a loss that is not clipped, for every output of a block.
var noClip = func() (c [maxWide]float64) {
	for i := range c {
		c[i] = math.Inf(1)
	}
	return c
}()

// logisticWeights sets wz[r·w+t] = inv·φ'(z[r·w+t]) with label y[r], the bits
// inv * deriv(u, y) gives: in float64 logit.Derivs's lanes (Derivs at inv = 1 is
// logisticDeriv's value exactly); in float32 the AVX2 kernel's eight lanes where w allows
// and no margin leaves its range, else logisticDeriv32 one value at a time.
func logisticWeights[F float](wz, z, y []F, w int, inv F, s *logisticScratch) {
	var zero F
	if unsafe.Sizeof(zero) == 4 {
		if HasAsm && w%8 == 0 && len(y) > 0 && weightsAVX2(&wz[0], &z[0], &y[0], len(y), w, inv) {
			return
		}
		for r, yr := range y {
			for t := range w {
				wz[r*w+t] = inv * deriv(z[r*w+t], yr)
			}
		}
		return
	}
	n := len(z)
	for r, yr := range y {
		for t := range w {
			s.y[r*w+t] = float64(yr)
		}
	}
	logit.Derivs(unsafe.Slice((*float64)(unsafe.Pointer(&wz[0])), n), unsafe.Slice((*float64)(unsafe.Pointer(&z[0])), n), s.y[:n], noClip[:n], float64(inv))
}

// logisticDeriv is φ'(u) = −y σ(−y u) for the logistic link, computed without overflow:
// logit.Deriv unclipped, the definition package reference's logistic loss uses too.
func logisticDeriv(u, y float64) float64 { return logit.Deriv(u, y, math.Inf(1)) }

// logisticCurv is φ″(u) = σ(u)σ(−u), the same for both labels.
func logisticCurv(u float64) float64 {
	e := fexp.Exp(-math.Abs(u))
	return e / ((1 + e) * (1 + e))
}

// mulGo is the pure-Go micro-kernel mul for a panel of p models.
func mulGo[F float](p int, x *F, ldx int, a *F, lda, d int, z *F) {
	{
		xs := unsafe.Slice(x, 3*ldx+d)
		as := unsafe.Slice(a, (d-1)*lda+p)
		zs := unsafe.Slice(z, rowBlock*p)
		var acc [rowBlock * maxPanel]F
		for j := range d {
			ar := as[j*lda : j*lda+p : j*lda+p]
			for r := range rowBlock {
				xv := xs[r*ldx+j]
				for t, av := range ar {
					acc[r*p+t] = fma(xv, av, acc[r*p+t])
				}
			}
		}
		copy(zs, acc[:rowBlock*p])
	}
}

// accGo is the pure-Go micro-kernel acc for a panel of p models.
func accGo[F float](p int, x *F, ldx int, z *F, d int, g *F, ldg int) {
	{
		xs := unsafe.Slice(x, 3*ldx+d)
		gs := unsafe.Slice(g, (d-1)*ldg+p)
		zs := unsafe.Slice(z, rowBlock*p)
		for j := range d {
			gr := gs[j*ldg : j*ldg+p : j*ldg+p]
			for r := range rowBlock {
				xv := xs[r*ldx+j]
				for t := range gr {
					gr[t] = fma(xv, zs[r*p+t], gr[t])
				}
			}
		}
	}
}

// RoundingBound bounds |G_jt − Ĝ_jt| between two float64 evaluations of model t's gradient
// coordinate j that sum in any orders, with or without fused operations (this package's and
// reference.Logistic's, say): twice one evaluation's error bound, evalBound, with
// u = 2⁻⁵³ and γ_n = nu/(1 − nu) (Higham, Accuracy and Stability of Numerical
// Algorithms, §3.1):
//
//   - an evaluation's xᵢᵀθ is off by at most γ_d Σ_j |x_ij θ_j|;
//   - φ' is ¼-Lipschitz, and σ costs exp (at most 1 ulp) and three operations, so φ'ᵢ is
//     off by at most ¼·|Δ(xᵢᵀθ)| + 5u|φ'ᵢ| (plus the least subnormal, where φ'ᵢ underflows);
//   - the sum (1/m)Σᵢ x_ij φ'ᵢ + λθ_j of m + 1 terms is off by γ_{m+2} of its absolute
//     terms (the scaling by 1/m included).
func RoundingBound(X, y, Theta []float64, m, d, k, j, t int, lambda float64) float64 {
	return 2 * evalBound(Unit, 0x1p-1074, X, y, Theta, m, d, k, j, t, lambda)
}

// RoundingBound32 bounds |G_jt − Ĝ_jt| between LogisticGradient32's evaluation and a
// float64 one on the same (float32) inputs: one evaluation's bound at float32's unit
// roundoff, 2⁻²⁴ (times 1 + 2⁻²⁸ for the Go fallback's fused steps rounded twice), plus
// one at float64's. The float32 derivative, logisticDeriv32, keeps to the same 5u: its
// exp32 is within 3u and passes to σ with a factor 1/(1 + e) ≤ 1, then two roundings
// (TestLogisticDeriv32Accuracy); where φ' is subnormal its last place, 2⁻¹⁴⁹, is added.
func RoundingBound32(X, y, Theta []float64, m, d, k, j, t int, lambda float64) float64 {
	return evalBound(Unit32, 0x1p-149, X, y, Theta, m, d, k, j, t, lambda) + evalBound(Unit, 0x1p-1074, X, y, Theta, m, d, k, j, t, lambda)
}

// Unit32 is float32's unit roundoff 2⁻²⁴, widened by 2⁻²⁸ of itself: a fused step computed
// through float64 and rounded to float32 errs by at most 2⁻²⁴ + 2⁻⁵³ of its result.
const Unit32 = 0x1p-24 * (1 + 0x1p-28)

// evalBound is one evaluation's error bound at unit roundoff u (RoundingBound's terms),
// with tiny, the precision's least subnormal, added to each derivative's error: the
// relative 5u does not hold where φ' underflows.
func evalBound(u, tiny float64, X, y, Theta []float64, m, d, k, j, t int, lambda float64) float64 {
	gamma := func(n int) float64 { return float64(n) * u / (1 - float64(n)*u) }
	var b, abs float64
	for i := range m {
		var uAbs, ui float64
		for l := range d {
			uAbs += math.Abs(X[i*d+l] * Theta[l*k+t])
			ui += X[i*d+l] * Theta[l*k+t]
		}
		dphi := math.Abs(logisticDeriv(ui, y[i]))
		dDeriv := 0.25*gamma(d)*uAbs + 5*u*dphi + tiny
		b += math.Abs(X[i*d+j]) * dDeriv / float64(m)
		abs += math.Abs(X[i*d+j]*dphi) / float64(m)
	}
	abs += math.Abs(lambda * Theta[j*k+t])
	return b + gamma(m+2)*abs
}

// Unit is float64's unit roundoff, 2⁻⁵³.
const Unit = 0x1p-53

// Gamma is Higham's γ_n = nu/(1 − nu): the relative error bound of n float64 operations.
func Gamma(n int) float64 { return float64(n) * Unit / (1 - float64(n)*Unit) }

func kernels64() kernels[float64] {
	kn := kernels[float64]{panel: 8, group: 32, asm: HasAsm}
	if HasAsm && HasAVX512 {
		kn.wideW = 16
	}
	return kn
}

func kernels32() kernels[float32] {
	kn := kernels[float32]{panel: 16, group: 64, asm: HasAsm}
	if HasAsm && HasAVX512 {
		kn.wideW = 32
	}
	return kn
}
