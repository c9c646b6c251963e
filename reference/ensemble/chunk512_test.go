package ensemble

import (
	"runtime"
	"sync"
	"testing"
)

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
