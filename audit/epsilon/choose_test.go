package epsilon

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// The lazy table is CPUpper, and bracket's counts bracket it: the premise of choose's
// bounds, with CPUpper rising in k, checked where the bounds ask (every k of small n, the
// grid's neighbourhoods of large ones).
func TestCPTableBracketsCPUpper(t *testing.T) {
	checked := 0
	for _, n := range []int{1, 2, 7, 511, 1000, 4097, 100_001, 500_000} {
		for _, a := range []float64{0.025, 0.0125} {
			tab := newCPTable(n, a)
			ks := []int{}
			for k := 0; k <= n; k += max(1, n/3000) {
				ks = append(ks, k, min(n, k+1))
			}
			for _, k := range ks {
				u := tab.at(k)
				if want := CPUpper(k, n, a); math.Float64bits(u) != math.Float64bits(want) {
					t.Fatalf("n = %d, a = %v: the table's bound at %d is %v, CPUpper %v", n, a, k, u, want)
				}
				lo, hi := tab.bracket(k)
				if !(lo <= u && u <= hi) || hi/lo > 1.01 && k > 512 && n-k > 512 {
					t.Fatalf("n = %d, a = %v, k = %d: bracket [%v, %v] of %v", n, a, k, lo, hi, u)
				}
				if k < n && CPUpper(k+1, n, a) < u {
					t.Fatalf("n = %d, a = %v: CPUpper falls from k = %d to %d", n, a, k, k+1)
				}
				checked++
			}
		}
	}
	t.Logf("%d bounds", checked)
}

// neighbourOf names the score next to t as a scan of all the scores does, from the tails
// kept where they settle it and from all the scores where they do not.
func TestNeighbourOfIsNeighbour(t *testing.T) {
	fromTails, fromAll := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		draw := func(label string) []float64 {
			s := make([]float64, rapid.IntRange(1, 30).Draw(t, label+"n"))
			for i := range s {
				s[i] = float64(rapid.IntRange(-20, 20).Draw(t, label)) / 4
			}
			return s
		}
		pos, neg := draw("pos"), draw("neg")
		c := chooser{tails: true, tailL: float64(rapid.IntRange(-24, 24).Draw(t, "tailL")) / 4,
			tailR: float64(rapid.IntRange(-24, 24).Draw(t, "tailR")) / 4}
		for _, v := range pos {
			if v <= c.tailL || v >= c.tailR {
				c.tp = append(c.tp, v)
			}
		}
		for _, v := range neg {
			if v <= c.tailL || v >= c.tailR {
				c.tn = append(c.tn, v)
			}
		}
		all := slices.Concat(pos, neg)
		t0 := all[rapid.IntRange(0, len(all)-1).Draw(t, "t")]
		dir := rapid.SampledFrom([]int{-1, 1}).Draw(t, "dir")
		asked := false
		got := c.neighbourOf(t0, dir, func() ([]float64, []float64) { asked = true; return pos, neg })
		if want := neighbour(pos, neg, t0, dir); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("neighbour of %v (%d) with tails ≤ %v, ≥ %v: %v, a scan gives %v", t0, dir, c.tailL, c.tailR, got, want)
		}
		if asked {
			fromAll++
		} else {
			fromTails++
		}
	})
	if fromTails == 0 || fromAll == 0 {
		t.Fatalf("%d from the tails, %d from all the scores: a path went untested", fromTails, fromAll)
	}
}
