package philox

import (
	"testing"
)

// The known answers of Random123's tests/kat_vectors (D. E. Shaw Research,
// github.com/DEShawResearch/random123), its philox4x32 lines, rounds 7 and 10; columns:
// rounds, CTR (4 words, word 0 first), KEY (2 words), EXPECTED (4 words). Read here as
// quoted, identically, by Random123's ports (e.g. E. Sarmas's philox.py TEST_CASES) and
// written out by hand; this package's code is its own.
var kats = []struct {
	rounds int
	ctr    [4]uint32
	key    [2]uint32
	want   [4]uint32
}{
	{7, [4]uint32{0, 0, 0, 0}, [2]uint32{0, 0}, [4]uint32{0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48}},
	{7, [4]uint32{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, [2]uint32{0xffffffff, 0xffffffff}, [4]uint32{0x5207ddc2, 0x45165e59, 0x4d8ee751, 0x8c52f662}},
	{7, [4]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, [2]uint32{0xa4093822, 0x299f31d0}, [4]uint32{0x4dfccaba, 0x190a87f0, 0xc47362ba, 0xb6b5242a}},
	{10, [4]uint32{0, 0, 0, 0}, [2]uint32{0, 0}, [4]uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
	{10, [4]uint32{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, [2]uint32{0xffffffff, 0xffffffff}, [4]uint32{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
	{10, [4]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, [2]uint32{0xa4093822, 0x299f31d0}, [4]uint32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
}

// Block and the R-round block give Random123's published answers (a dropped round, a
// changed multiplier or key increment, or words crossed the wrong way all fail here).
func TestKnownAnswers(t *testing.T) {
	if len(kats) == 0 {
		t.Fatal("no known-answer vectors")
	}
	tens := 0
	for _, k := range kats {
		if got := block(k.ctr, k.key, k.rounds); got != k.want {
			t.Errorf("philox4x32_%d(ctr %08x, key %08x) = %08x, want %08x", k.rounds, k.ctr, k.key, got, k.want)
		}
		if k.rounds == Rounds {
			tens++
			if got := Block(k.ctr, k.key); got != k.want {
				t.Errorf("Block(ctr %08x, key %08x) = %08x, want %08x", k.ctr, k.key, got, k.want)
			}
		}
	}
	if tens == 0 {
		t.Fatal("no 10-round vectors")
	}
}

// The streams are laid out as documented: FillWide's values at block i are the
// Box–Muller pairs of Block(Counter(trial, step, i), Key(seed))'s words (0, 1) and (2, 3),
// widened, for a trial and seed with both words set and i past 2¹⁶ (the tail of a long
// FillWide equals the values recomputed from its block alone; fillWide from any block is
// TestFillWideFromABlockIsASliceOfFillWide's), on every path. Planted: normals32's first
// pair's cosine and sine swapped fails it (pure Go; the kernels are transform32.go's).
func TestLayout(t *testing.T) {
	const seed, trial, step = 0x0123456789abcdef, 0xfedcba9876543210, 7
	if c := Counter(trial, step, 5); c != [4]uint32{5, 7, 0x76543210, 0xfedcba98} {
		t.Fatalf("Counter = %08x", c)
	}
	if k := Key(seed); k != [2]uint32{0x89abcdef, 0x01234567} {
		t.Fatalf("Key = %08x", k)
	}
	const n = 1<<17 + 6
	for _, p := range paths() {
		onPath(p, func() {
			wide := make([]float64, 2*n)
			FillWide(wide, seed, trial, step)
			for _, i := range []int{0, 1, 1 << 16, n/2 - 1} {
				x := Block(Counter(trial, step, uint32(i)), Key(seed))
				r0, r1 := radius32(x[0]), radius32(x[2])
				s0, c0 := sinCos32(x[1])
				s1, c1 := sinCos32(x[3])
				for j, w := range [4]float32{r0 * c0, r0 * s0, r1 * c1, r1 * s1} {
					if wide[4*i+j] != float64(w) {
						t.Errorf("%s: FillWide block %d value %d = %v, want %v", pathNames[p], i, j, wide[4*i+j], w)
					}
				}
			}
			// A length ending mid-block gives the first values of its last block, in
			// order.
			short := make([]float64, 6)
			FillWide(short, seed, trial, step)
			if [6]float64(short) != [6]float64(wide[:6]) {
				t.Errorf("%s: FillWide of 6 = %v, want %v", pathNames[p], short, wide[:6])
			}
		})
	}
}
