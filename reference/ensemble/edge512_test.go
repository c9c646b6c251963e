package ensemble

import (
	"math"
	"runtime"
	"sync"
	"testing"
)

// pass512 (chunks, accRows) gives the AVX2 panels' bits at the edge shapes the wider test
// leaves out: d below accRows's tiles of 8 (float64/float32 wide) and 16 (narrow, half)
// columns and not a multiple of them, m = 4..15 (a 4- or 8-row block alone, 12 plus 0..3
// edge rows), k giving a narrow panel (16 float32 / 8 float64) or a half panel (8 / 4)
// alone, several groups, and m ≥ 64 with group copies; every chunk size from 12 rows up.
// In float64 the Go path (HasAsm off) gives the same bits too.
func TestAVX512EdgeShapesMatchAVX2(t *testing.T) {
	if !HasAsm || !HasAVX512 {
		t.Skip("no AVX-512 here: pass512 never runs")
	}
	type shape struct{ m, d, k int }
	var shapes []shape
	for _, d := range []int{1, 3, 7, 8, 9, 15, 16, 17, 23} {
		for _, m := range []int{4, 8, 12, 13, 15, 40, 64, 77} {
			for _, k := range []int{4, 8, 16, 24, 33, 65, 70} {
				shapes = append(shapes, shape{m, d, k})
			}
		}
	}
	for _, s := range shapes {
		m, d, k := s.m, s.d, s.k
		X, y, Theta := problem(m, d, k, uint64(m*1000+d*10+k))
		_, _, V := problem(m, d, k, uint64(m*1000+d*10+k+1))
		for _, chunk := range []int{chunkBytes, 1, 24 * (d + 48) * 8, 48 * (d + 96) * 4} {
			run := func(wide, asm bool) (g, hv []float64, g32, hv32 []float32) {
				savedC, savedA := chunkBytes, HasAsm
				HasAVX512, HasAsm, chunkBytes = wide, asm, chunk
				defer func() { HasAVX512, HasAsm, chunkBytes = true, savedA, savedC }()
				return allFour(X, y, Theta, V, m, d, k)
			}
			gw, hvw, gw32, hvw32 := run(true, true)
			g, hv, g32, hv32 := run(false, true)
			gg, hvg, _, _ := run(false, false)
			for i := range g {
				if math.Float64bits(gw[i]) != math.Float64bits(g[i]) || math.Float64bits(hvw[i]) != math.Float64bits(hv[i]) ||
					math.Float32bits(gw32[i]) != math.Float32bits(g32[i]) || math.Float32bits(hvw32[i]) != math.Float32bits(hv32[i]) {
					t.Fatalf("chunkBytes = %d, m = %d, d = %d, k = %d, coordinate %d: AVX-512 gives %v %v %v %v, AVX2 %v %v %v %v",
						chunk, m, d, k, i, gw[i], hvw[i], gw32[i], hvw32[i], g[i], hv[i], g32[i], hv32[i])
				}
				if math.Float64bits(gw[i]) != math.Float64bits(gg[i]) || math.Float64bits(hvw[i]) != math.Float64bits(hvg[i]) {
					t.Fatalf("chunkBytes = %d, m = %d, d = %d, k = %d, coordinate %d: AVX-512 gives %v %v, Go %v %v",
						chunk, m, d, k, i, gw[i], hvw[i], gg[i], hvg[i])
				}
			}
		}
	}
}

// pass512's room for a chunk's products and weights (3 × rows × the wide block) stays
// within chunkBytes whatever m and d: the chunk is sized by its whole working set, a row of
// X and its three buffer rows, not by X alone. At d = 2 and m = 24 000 sizing by X alone
// put every row in one chunk, 9.2 MB of buffers (float32 or float64), kept by the pool;
// the bound here is chunkBytes plus 64 KB for the rest of the call (measured: a few
// hundred bytes). One group of models (k = 32 in float64, 64 in float32), so no group
// copies take a buffer of their own.
func TestChunkBuffersStayWithinChunkBytes(t *testing.T) {
	if !HasAsm || !HasAVX512 {
		t.Skip("no AVX-512 here: pass512 never runs")
	}
	const m, d = 24000, 2
	var before, after runtime.MemStats
	for _, k := range []int{32, 64} {
		X, y, Theta := problem(m, d, k, 9)
		X32, y32, T32 := to32(X), to32(y), to32(Theta)
		G, G32 := make([]float64, d*k), make([]float32, d*k)
		prec := "float64"
		scratch64, scratch32 = sync.Pool{}, sync.Pool{} // nothing left from other tests
		runtime.ReadMemStats(&before)
		if k == 32 {
			LogisticGradient(G, X, y, Theta, m, d, k, 0.1)
		} else {
			prec = "float32"
			LogisticGradient32(G32, X32, y32, T32, m, d, k, 0.1)
		}
		runtime.ReadMemStats(&after)
		bound := uint64(chunkBytes + 64<<10)
		if got := after.TotalAlloc - before.TotalAlloc; got > bound {
			t.Errorf("%s, m = %d, d = %d, k = %d: one call allocated %d bytes, more than chunkBytes (%d) allows: %d", prec, m, d, k, got, chunkBytes, bound)
		}
	}
}
