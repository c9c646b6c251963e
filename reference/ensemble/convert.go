package ensemble

// Narrow sets dst[i] = float32(src[i]) for i < min(len(dst), len(src)): the float32
// kernels' inputs from float64 iterates, each step of a float32 ensemble. With AVX-512 it
// converts sixteen a step (as the Go conversion rounds: the same bits), where Go's loop
// converts one at a time — at b = 32 the two conversions of a d × k step took about as
// long as the step's float32 gradient.
func Narrow(dst []float32, src []float64) {
	n := min(len(dst), len(src))
	head := 0
	if HasAsm && HasAVX512 && n >= convertBlock {
		head = n &^ (convertBlock - 1)
		narrowAVX512(&dst[0], &src[0], head)
	}
	for i := head; i < n; i++ {
		dst[i] = float32(src[i])
	}
}

// Widen sets dst[i] = float64(src[i]) for i < min(len(dst), len(src)) (exact), sixteen a
// step with AVX-512: the float32 kernels' gradients back to float64.
func Widen(dst []float64, src []float32) {
	n := min(len(dst), len(src))
	head := 0
	if HasAsm && HasAVX512 && n >= convertBlock {
		head = n &^ (convertBlock - 1)
		widenAVX512(&dst[0], &src[0], head)
	}
	for i := head; i < n; i++ {
		dst[i] = float64(src[i])
	}
}

// convertBlock is the elements the conversion kernels take a step.
const convertBlock = 16
