package ars

import "testing"

// The streams are laid out as documented: FillWide's values at group g are the
// Box–Muller pairs of the words of Block(Counter(trial, step, i), Key(seed),
// StreamRounds) for its blocks i = 8g to 8g+7, in block order, word l the radius's and
// word 16 + l the angle's, R·cos at 32g + l and R·sin at 32g + 16 + l, widened, for a
// trial and seed with both words set and g past 2¹⁴ blocks (the tail of a long FillWide
// equals the values recomputed from its blocks alone; fillWide from any group is
// TestFillWideFromAGroupIsASliceOfFillWide's), on every route. Planted: pairNormals'
// cosine and sine swapped fails it, as does Key putting the seed's high word first.
func TestLayout(t *testing.T) {
	const seed, trial, step = 0x0123456789abcdef, 0xfedcba9876543210, 7
	if c := Counter(trial, step, 5); c != [4]uint32{5, 7, 0x76543210, 0xfedcba98} {
		t.Fatalf("Counter = %08x", c)
	}
	if k := Key(seed); k != [4]uint32{0x89abcdef, 0x01234567, 0, 0} {
		t.Fatalf("Key = %08x", k)
	}
	const n = 1<<17 + 6
	for _, r := range routes() {
		onRoute(r, func() {
			wide := make([]float64, n)
			FillWide(wide, seed, trial, step)
			for _, g := range []int{0, 1, 1<<11 + 3, n/groupValues - 1} {
				var w [groupValues]uint32
				for b := range GroupBlocks {
					x := Block(Counter(trial, step, uint32(GroupBlocks*g+b)), Key(seed), StreamRounds)
					copy(w[4*b:], x[:])
				}
				for l := range 16 {
					rad := radius32(w[l])
					s, c := sinCos32(w[16+l])
					for h, z := range [2]float32{rad * c, rad * s} {
						if at := groupValues*g + 16*h + l; wide[at] != float64(z) {
							t.Errorf("%s: FillWide group %d value %d = %v, want %v", r, g, 16*h+l, wide[at], z)
						}
					}
				}
			}
			// A length ending mid-group gives the first values of its last group, in
			// order.
			short := make([]float64, 6)
			FillWide(short, seed, trial, step)
			if [6]float64(short) != [6]float64(wide[:6]) {
				t.Errorf("%s: FillWide of 6 = %v, want %v", r, short, wide[:6])
			}
		})
	}
}
