package normal

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A Stream from a PCG source draws what rand.New(src).NormFloat64 draws from it, bit for
// bit, through Fill (mean + sd·z, as the loop it replaces computes) and Next alike, over
// enough draws that the ziggurat's rare branches run (the base strip's tail counted).
func TestStreamIsNormFloat64(t *testing.T) {
	const n = 300_000
	tails := 0
	for _, seed := range [][2]uint64{{1, 2}, {0, 0}, {7, 1 << 63}} {
		src := rand.NewPCG(seed[0], seed[1])
		for range 3 {
			src.Uint64() // a source part-way through its stream
		}
		g := FromPCG(src)
		want := rand.New(src)
		dst := make([]float64, n)
		mean, sd := 0.3, 1.7
		g.Fill(dst, mean, sd)
		for i, v := range dst {
			z := want.NormFloat64()
			if w := mean + sd*z; math.Float64bits(v) != math.Float64bits(w) {
				t.Fatalf("seed %v, draw %d: Fill %v, NormFloat64 gives %v", seed, i, v, w)
			}
			if math.Abs(z) >= R {
				tails++
			}
		}
		for i := range 1000 {
			if got, w := g.Next(), want.NormFloat64(); math.Float64bits(got) != math.Float64bits(w) {
				t.Fatalf("seed %v, draw %d after Fill: Next %v, NormFloat64 %v", seed, n+i, got, w)
			}
		}
		if hi, lo := g.State(); FromPCG(src) != New(hi, lo) {
			t.Fatalf("seed %v: the stream ended at another state than the source", seed)
		}
	}
	if tails == 0 {
		t.Fatal("no draw in the base strip's tail: its branch was not tested")
	}
}
