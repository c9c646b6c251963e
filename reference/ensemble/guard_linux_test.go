package ensemble

import (
	"syscall"
	"testing"
	"unsafe"
)

// guarded returns n floats of F whose first (atEnd false) or last (atEnd true) element
// touches a page that faults on any access, so a kernel that reads or writes one element
// before or after its slice crashes the test instead of reading a neighbour.
func guarded[F float](t *testing.T, n int, atEnd bool) []F {
	var zero F
	size := int(unsafe.Sizeof(zero))
	page := syscall.Getpagesize()
	bytes := (n*size + page - 1) / page * page
	mem, err := syscall.Mmap(-1, 0, bytes+2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[:page], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mprotect(mem[page+bytes:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	start := page
	if atEnd {
		start = page + bytes - n*size
	}
	return unsafe.Slice((*F)(unsafe.Pointer(&mem[start])), n)
}

func fillGuarded[F float](t *testing.T, n int, atEnd bool, seed int) []F {
	s := guarded[F](t, n, atEnd)
	for i := range s {
		s[i] = F(float64((i*7+seed)%13-6) / 10)
	}
	return s
}

// Every kernel stays inside its slices: X, y, Θ, V and the output each end (or start) at
// a faulting page, on every shape class (m below and around the 12-row units, k around
// the wide blocks, panels and half panels, d = 1), both precisions, both products, both
// paths.
func TestKernelsStayInsideTheirSlices(t *testing.T) {
	ms := []int{1, 3, 4, 5, 11, 12, 13, 16, 24, 25, 27}
	ds := []int{1, 2, 7}
	ks := []int{1, 3, 4, 5, 8, 9, 15, 16, 17, 31, 32, 33, 48, 65}
	onEachPath(func(asm bool) {
		for _, atEnd := range []bool{false, true} {
			for _, m := range ms {
				for _, d := range ds {
					for _, k := range ks {
						guardedProducts(t, m, d, k, atEnd)
					}
				}
			}
		}
	})
}

// NoisyStep and NoisyStep32 stay inside their slices: θ, θ32, z, g and norm2 each end (or
// start) at a faulting page, at shapes with whole tiles, run tails, coordinate tails and
// below a tile, on both paths.
func TestNoisyStepStaysInsideItsSlices(t *testing.T) {
	shapes := [][2]int{{8, 8}, {16, 24}, {9, 8}, {8, 9}, {23, 17}, {7, 40}, {40, 7}, {1, 1}}
	onEachPath(func(asm bool) {
		for _, atEnd := range []bool{false, true} {
			for _, s := range shapes {
				d, k := s[0], s[1]
				z, g, g32 := fillGuarded[float32](t, k*d, atEnd, 1), fillGuarded[float64](t, d*k, atEnd, 2), fillGuarded[float32](t, d*k, atEnd, 2)
				NoisyStep(fillGuarded[float64](t, d*k, atEnd, 3), z, 0.1, g, fillGuarded[float64](t, k, atEnd, 4), d, k, 0.5)
				NoisyStep32(fillGuarded[float64](t, d*k, atEnd, 3), guarded[float32](t, d*k, atEnd), z, 0.1, g32, fillGuarded[float64](t, k, atEnd, 4), d, k, 0.5)
			}
		}
	})
}

// guardedProducts computes the gradients and Hessian–vector products of m rows of d
// features for k models, in both precisions, every slice ending (or, !atEnd, starting) at
// a faulting page: a kernel that reads or writes one element outside them faults.
func guardedProducts(t *testing.T, m, d, k int, atEnd bool) {
	X, y, Th, V := fillGuarded[float64](t, m*d, atEnd, 1), fillGuarded[float64](t, m, atEnd, 2), fillGuarded[float64](t, d*k, atEnd, 3), fillGuarded[float64](t, d*k, atEnd, 4)
	for i := range y {
		y[i] = float64(1 - 2*(i%2))
	}
	LogisticGradient(guarded[float64](t, d*k, atEnd), X, y, Th, m, d, k, 0.1)
	LogisticHVP(guarded[float64](t, d*k, atEnd), X, y, Th, V, m, d, k, 0.1)
	X32, y32, Th32, V32 := fillGuarded[float32](t, m*d, atEnd, 1), fillGuarded[float32](t, m, atEnd, 2), fillGuarded[float32](t, d*k, atEnd, 3), fillGuarded[float32](t, d*k, atEnd, 4)
	for i := range y32 {
		y32[i] = float32(1 - 2*(i%2))
	}
	LogisticGradient32(guarded[float32](t, d*k, atEnd), X32, y32, Th32, m, d, k, 0.1)
	LogisticHVP32(guarded[float32](t, d*k, atEnd), X32, y32, Th32, V32, m, d, k, 0.1)
}
