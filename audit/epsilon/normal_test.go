package epsilon

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/normal"
)

// normals draws what rand.New(rand.NewPCG(s₁, s₂)).NormFloat64 draws, bit for bit, through
// fill, count and next alike, over enough draws that every branch of the ziggurat runs (the base
// strip's tail, the wedges' rejections), which the test counts.
func TestNormalsAreNormFloat64(t *testing.T) {
	const pairs = 200_000
	tails, wedges := 0, 0
	for _, seed := range [][2]uint64{{powerSeed, 0}, {powerSeed, 255}, {1, 2}, {0, 0}} {
		want := rand.New(rand.NewPCG(seed[0], seed[1]))
		g := newNormals(seed[0], seed[1])
		pos, neg := make([]float64, pairs), make([]float64, pairs)
		g.fill(pos, neg, 0.25)
		for i := range pairs {
			wp, wn := 0.25+want.NormFloat64(), want.NormFloat64()
			if math.Float64bits(pos[i]) != math.Float64bits(wp) || math.Float64bits(neg[i]) != math.Float64bits(wn) {
				t.Fatalf("seed %v, pair %d: fill drew %v, %v; NormFloat64 %v, %v", seed, i, pos[i], neg[i], wp, wn)
			}
			for _, v := range []float64{pos[i] - 0.25, neg[i]} {
				if math.Abs(v) >= normal.R {
					tails++
				}
			}
		}
		// count draws the same: its buckets hold what fill drew, and it keeps the tails
		var c chooser
		c.begin(pairs, pairs, -5, 5.25)
		c.tailL, c.tailR = -1.5, 2
		counted := newNormals(seed[0], seed[1])
		counted.count(0.25, &c, pairs/3) // in two runs, as a resumed replicate draws
		counted.count(0.25, &c, pairs-pairs/3)
		if counted != g {
			t.Fatalf("seed %v: count ended at another state than fill", seed)
		}
		wantP, wantN := make([]int32, c.nb+1), make([]int32, c.nb+1)
		var tp, tn []float64
		for i := range pairs {
			wantP[c.bucket(pos[i])+1]++
			wantN[c.bucket(neg[i])+1]++
			if pos[i] <= c.tailL || pos[i] >= c.tailR {
				tp = append(tp, pos[i])
			}
			if neg[i] <= c.tailL || neg[i] >= c.tailR {
				tn = append(tn, neg[i])
			}
		}
		if !slices.Equal(wantP, c.startP[:c.nb+1]) || !slices.Equal(wantN, c.startN[:c.nb+1]) {
			t.Fatalf("seed %v: count's buckets differ from fill's scores'", seed)
		}
		if !c.tails || len(tp) == 0 || !slices.Equal(tp, c.tp) || !slices.Equal(tn, c.tn) {
			t.Fatalf("seed %v: count kept %d and %d tail scores, fill's tails have %d and %d", seed, len(c.tp), len(c.tn), len(tp), len(tn))
		}
		for i := range pairs {
			if got, w := g.next(), want.NormFloat64(); math.Float64bits(got) != math.Float64bits(w) {
				t.Fatalf("seed %v, draw %d after fill: next drew %v, NormFloat64 %v", seed, i, got, w)
			}
		}
		// replay the stream, counting the draws the first test rejects, on and off the base strip
		h := newNormals(seed[0], seed[1])
		for range 3 * pairs { // as many as fill and next drew
			u, hi, lo := normal.Step(h.hi, h.lo)
			if _, ok := normal.Fast(u); ok {
				h.hi, h.lo = hi, lo
				continue
			}
			if u>>32&0x7F != 0 {
				wedges++
			}
			_, h.hi, h.lo = normal.Slow(u, hi, lo)
		}
		if h != g {
			t.Fatalf("seed %v: the replay ended at another state", seed)
		}
	}
	t.Logf("%d tail draws, %d wedge tests", tails, wedges)
	if tails == 0 || wedges == 0 {
		t.Fatalf("%d tail draws and %d wedge tests: a branch of the ziggurat went untested", tails, wedges)
	}
}
