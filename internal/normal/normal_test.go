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

// Skip2's constants are two steps of the PCG: from any state, Skip2 reaches the state two
// Steps reach, and two chains a step apart give rand.PCG's outputs in order.
func TestSkip2(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		hi, lo := r.Uint64(), r.Uint64()
		_, h1, l1 := Step(hi, lo)
		_, h2, l2 := Step(h1, l1)
		if h, l := Skip2(hi, lo); h != h2 || l != l2 {
			t.Fatalf("Skip2(%#x, %#x) = %#x, %#x; two steps give %#x, %#x", hi, lo, h, l, h2, l2)
		}
	}
	src := rand.NewPCG(5, 6)
	_, aH, aL := Step(5, 6)
	_, bH, bL := Step(aH, aL)
	for range 1000 {
		if x := src.Uint64(); x != Out(aH, aL) {
			t.Fatalf("chain a gives %#x, rand.PCG %#x", Out(aH, aL), x)
		}
		if x := src.Uint64(); x != Out(bH, bL) {
			t.Fatalf("chain b gives %#x, rand.PCG %#x", Out(bH, bL), x)
		}
		aH, aL = Skip2(aH, aL)
		bH, bL = Skip2(bH, bL)
	}
}
