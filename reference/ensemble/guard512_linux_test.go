package ensemble

import "testing"

// The float32 weights kernels stay inside wz, z and y: each ends (or starts) at a faulting
// page, for w a multiple of 8 but not of 16 (the AVX-512 kernel's half vector) and of 16,
// every row count a block has.
func TestWeightsKernelsStayInsideTheirSlices(t *testing.T) {
	if !HasAsm {
		t.Skip("no assembly here")
	}
	for _, atEnd := range []bool{false, true} {
		for _, w := range []int{8, 16, 24, 32, 40} {
			for _, rb := range []int{1, 4, 8, 12} {
				z, y := fillGuarded[float32](t, rb*w, atEnd, 1), fillGuarded[float32](t, rb, atEnd, 2)
				for i := range y {
					y[i] = float32(1 - 2*(i%2))
				}
				if HasAVX512 {
					weights512(&guarded[float32](t, rb*w, atEnd)[0], &z[0], &y[0], rb, w, 0.5)
				}
				weightsAVX2(&guarded[float32](t, rb*w, atEnd)[0], &z[0], &y[0], rb, w, float32(0.5))
			}
		}
	}
}

// pass512 with its rows cut into chunks of 12 stays inside X, y, Θ, V and the output
// (accRows on a chunk after the first starts at row i0 of X).
func TestChunksStayInsideTheirSlices(t *testing.T) {
	if !HasAsm || !HasAVX512 {
		t.Skip("no AVX-512 here: pass512 never runs")
	}
	saved := chunkBytes
	chunkBytes = 1
	defer func() { chunkBytes = saved }()
	for _, atEnd := range []bool{false, true} {
		for _, m := range []int{24, 27, 40, 64} {
			for _, d := range []int{1, 7, 17} {
				for _, k := range []int{4, 8, 16, 33, 65} {
					guardedProducts(t, m, d, k, atEnd)
				}
			}
		}
	}
}
