package mia

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/normal"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// evaluateReference is Evaluate as it was before its replicates counted draws in uint8
// arrays and summed them by score: float weights per sample, reweighted per replicate, and
// one sweep per threshold metric. Evaluate must give its bits.
func evaluateReference(pos, neg []float64, reps int, conf float64, seed uint64) [5]Metric {
	m := merge(pos, neg)
	weigh := func(wPos, wNeg []float64) weighted {
		w := weighted{p: make([]float64, len(m.values)), n: make([]float64, len(m.values))}
		for i, j := range m.pos {
			w.p[j] += wPos[i]
			w.totP += wPos[i]
		}
		for i, j := range m.neg {
			w.n[j] += wNeg[i]
			w.totN += wNeg[i]
		}
		return w
	}
	stats := func(w weighted) [5]float64 {
		return [5]float64{w.auc(), w.tprAt(0.001), w.tprAt(0.01), w.tprAt(0.1), w.balanced()}
	}
	ones := func(n int) []float64 {
		o := make([]float64, n)
		for i := range o {
			o[i] = 1
		}
		return o
	}
	point := stats(weigh(ones(len(pos)), ones(len(neg))))
	r := reference.Stream(seed, -1, "mia/bootstrap")
	wp, wn := make([]float64, len(pos)), make([]float64, len(neg))
	var rep [5][]float64
	for range reps {
		clear(wp)
		clear(wn)
		for range pos {
			wp[r.IntN(len(pos))]++
		}
		for range neg {
			wn[r.IntN(len(neg))]++
		}
		s := stats(weigh(wp, wn))
		for i := range s {
			rep[i] = append(rep[i], s[i])
		}
	}
	var out [5]Metric
	for i := range out {
		slices.Sort(rep[i])
		out[i] = Metric{Value: point[i], Lower: quantile(rep[i], (1-conf)/2), Upper: quantile(rep[i], 1-(1-conf)/2), Replicas: reps}
	}
	return out
}

// TestEvaluateIsReference compares Evaluate and EvaluateAUC with the reference to the bit,
// on scores with ties (rounded to a grid, or the sides' scores the same) and without, and
// sides of different sizes.
func TestEvaluateIsReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		np, nn int
		grid   float64 // 0: continuous scores; −1: both sides the same scores
	}{{50, 50, 0}, {300, 170, 0}, {400, 400, 0.25}, {9, 2000, 0.1}, {1, 1, 0}, {200, 200, -1}} {
		draw := func(n int, shift float64) []float64 {
			s := make([]float64, n)
			for i := range s {
				s[i] = r.NormFloat64() + shift
				if c.grid > 0 {
					s[i] = math.Round(s[i]/c.grid) * c.grid
				}
			}
			return s
		}
		pos, neg := draw(c.np, 0.3), draw(c.nn, 0)
		if c.grid < 0 {
			neg = pos
		}
		want := evaluateReference(pos, neg, 60, 0.9, 7)
		got, err := Evaluate(pos, neg, 60, 0.9, 7)
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range []Metric{got.AUC, got.TPRAt0_1Percent, got.TPRAt1Percent, got.TPRAt10Percent, got.BalancedAccuracy} {
			if g != want[i] {
				t.Errorf("%d and %d scores (grid %g): metric %d = %+v; the reference gives %+v", c.np, c.nn, c.grid, i, g, want[i])
			}
		}
		auc, err := EvaluateAUC(pos, neg, 60, 0.9, 7)
		if err != nil {
			t.Fatal(err)
		}
		if auc != want[0] {
			t.Errorf("%d and %d scores (grid %g): EvaluateAUC = %+v; the reference gives %+v", c.np, c.nn, c.grid, auc, want[0])
		}
	}
}

// TestDrawCountsWrap counts 2¹⁷ draws of sample 0: its uint8 count wraps 512 times, and the
// wraps must be returned so that no draw is lost.
func TestDrawCountsWrap(t *testing.T) {
	counts := make([]uint8, 3)
	var over map[int]float64
	for range 1 << 17 {
		over = countDraw(counts, 0, over)
	}
	if counts[0] != 0 || over[0] != 1<<17 || len(over) != 1 {
		t.Fatalf("count %d, wraps %v; want 0 and {0: %d}", counts[0], over, 1<<17)
	}
	counts = make([]uint8, 1000) // cannot wrap
	if over := drawCounts(rand.NewPCG(1, 2), counts); over != nil {
		t.Fatalf("wraps %v in 1000 draws", over)
	}
	total := 0
	for _, c := range counts {
		total += int(c)
	}
	if total != 1000 {
		t.Fatalf("%d draws counted; want 1000", total)
	}
}

// TestIntNIsRandIntN: intNState draws what rand.Rand.IntN draws from the same source, and
// leaves the source's state, for
// powers of two (masked), small counts (rejection rare) and counts just above 2⁶³, where
// half the draws are rejected.
func TestIntNIsRandIntN(t *testing.T) {
	if bits.UintSize != 64 {
		t.Skip("intNState is used on 64-bit platforms only")
	}
	for _, n := range []uint64{1, 2, 3, 7, 1 << 20, 100_000, 1<<62 + 1, math.MaxInt64, 1<<63 + 1, 1<<63 + 12345} {
		hi, lo := uint64(9), n
		b := rand.NewPCG(9, n)
		r := rand.New(b)
		for i := range 2000 {
			var got uint64
			got, hi, lo = intNState(hi, lo, n)
			var want uint64
			if n <= math.MaxInt64 {
				want = uint64(r.IntN(int(n)))
			} else {
				want = r.Uint64N(n) // IntN's uint64n, past int
			}
			if got != want {
				t.Fatalf("n %d, draw %d: %d; rand draws %d", n, i, got, want)
			}
			if bh, bl := normal.FromPCG(b).State(); bh != hi || bl != lo {
				t.Fatalf("n %d, draw %d: state %x %x; rand's %x %x", n, i, hi, lo, bh, bl)
			}
		}
	}
}

// TestPairCountsAUCIsWeightedAUC: the AUC in integers is weighted.auc's bits, for counts
// of every size a replicate can leave (up to 2⁸ − 1) and scores with ties within a side,
// across sides, and everywhere (the two sides' scores the same: an unlearning that is
// exactly a retrain).
func TestPairCountsAUCIsWeightedAUC(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	draw := func(n int, shift, grid float64) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = r.NormFloat64() + shift
			if grid > 0 {
				s[i] = math.Round(s[i]/grid) * grid
			}
		}
		return s
	}
	same := draw(300, 0, 0)
	cases := [][2][]float64{
		{draw(200, 0.3, 0), draw(150, 0, 0)},
		{draw(400, 0.3, 0.25), draw(400, 0, 0.25)},
		{same, same},
		{draw(1, 0, 0), draw(7, 0, 0)},
	}
	checked := 0
	for c, sides := range cases {
		pos, neg := sides[0], sides[1]
		m := merge(pos, neg)
		pc := m.pairCounts(len(pos))
		byP, byN := m.byValue(m.pos), m.byValue(m.neg)
		w := m.counts()
		counts := make([]uint8, len(pos)+len(neg))
		for k := range 20 {
			for i := range counts {
				switch {
				case k == 0:
					counts[i] = 1
				case k%3 == 0:
					counts[i] = uint8(r.IntN(1 << 8))
				default:
					counts[i] = uint8(r.IntN(4))
				}
			}
			byP.sum(w.p, counts[:len(pos)])
			byN.sum(w.n, counts[len(pos):])
			var totP, totN float64
			for _, v := range w.p {
				totP += v
			}
			for _, v := range w.n {
				totN += v
			}
			if totP == 0 || totN == 0 {
				continue
			}
			w.totP, w.totN = totP, totN
			if got, want := pc.auc(counts, totP, totN), w.auc(); got != want {
				t.Errorf("case %d, counts %d: AUC %v in integers, %v weighted", c, k, got, want)
			}
			checked++
		}
	}
	if checked < 60 {
		t.Fatalf("%d replicates compared", checked)
	}
}

// TestMergeRadixIsMergeSort: the radix sort groups the samples as the sort does, with the
// same indices, on scores with ties, both zeros, infinities, subnormals and both signs,
// and sides of very different sizes.
func TestMergeRadixIsMergeSort(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 5e-324, -5e-324, math.MaxFloat64, -math.MaxFloat64, 1, -1}
	draw := func(n int, grid float64) []float64 {
		s := make([]float64, n)
		for i := range s {
			switch {
			case r.IntN(20) == 0:
				s[i] = special[r.IntN(len(special))]
			case grid > 0:
				s[i] = math.Round(r.NormFloat64()/grid) * grid
			default:
				s[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
			}
		}
		return s
	}
	for _, c := range []struct {
		np, nn int
		grid   float64
	}{{3000, 3000, 0}, {5000, 5000, 0.01}, {7, 9000, 0}, {9000, 1, 0.5}} {
		pos, neg := draw(c.np, c.grid), draw(c.nn, c.grid)
		got, want := mergeRadix(pos, neg), mergeSort(pos, neg)
		if len(got.values) != len(want.values) || !slices.Equal(got.pos, want.pos) || !slices.Equal(got.neg, want.neg) {
			t.Errorf("%d and %d scores (grid %g): %d distinct scores, the sort's %d; indices equal: %v, %v", c.np, c.nn, c.grid,
				len(got.values), len(want.values), slices.Equal(got.pos, want.pos), slices.Equal(got.neg, want.neg))
		}
		for j, v := range got.values {
			if v != want.values[j] {
				t.Fatalf("distinct score %d: %v, the sort's %v", j, v, want.values[j])
			}
		}
	}
}

// drawCounts counts what rand.New(src).IntN(n) draws n times — one sample's index per
// draw, in the PCG's order — and leaves src where those draws leave it, for odd and even
// n (the two chains stop on either), powers of two (masked) and not, and repeated calls.
func TestDrawCountsIsIntN(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 1000, 1023, 1024, 4097, 100_001} {
		src, ref := rand.NewPCG(uint64(n), 11), rand.NewPCG(uint64(n), 11)
		r := rand.New(ref)
		counts, want := make([]uint8, n), make([]uint8, n)
		for rep := range 3 {
			clear(want)
			for range n {
				want[r.IntN(n)]++
			}
			if over := drawCounts(src, counts); over != nil || !slices.Equal(counts, want) {
				t.Fatalf("n = %d, replicate %d: counts differ from rand.IntN's (wraps %v)", n, rep, over)
			}
			if a, b := src.Uint64(), ref.Uint64(); a != b {
				t.Fatalf("n = %d, replicate %d: the source goes on with %#x, rand.IntN's with %#x", n, rep, a, b)
			}
		}
	}
}

// intNState is rand.New(src).IntN(n) on 64-bit platforms, on src's state (hi, lo), as
// drawCounts draws each index: the draw and the next state, through intNReject.
func intNState(hi, lo, n uint64) (i, nhi, nlo uint64) {
	x, hi, lo := normal.Step(hi, lo)
	if n&(n-1) == 0 {
		return x & (n - 1), hi, lo
	}
	h, l := bits.Mul64(x, n)
	if l < n {
		return intNReject(h, l, hi, lo, n)
	}
	return h, hi, lo
}
