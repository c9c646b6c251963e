package mia

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// scorePairs are k evaluations' scores on the same np members and nn non-members, as an
// audit's subject and controls score the same records: different scores, the same sizes.
func scorePairs(k, np, nn int, grid float64) [][2][]float64 {
	r := rand.New(rand.NewPCG(uint64(np), uint64(nn)))
	out := make([][2][]float64, k)
	for e := range out {
		pos, neg := make([]float64, np), make([]float64, nn)
		for i := range pos {
			pos[i] = float64(e)*0.1 + r.NormFloat64()
		}
		for i := range neg {
			neg[i] = r.NormFloat64()
		}
		if grid > 0 { // ties within and across the sides
			for _, s := range [][]float64{pos, neg} {
				for i := range s {
					s[i] = math.Round(s[i]/grid) * grid
				}
			}
		}
		out[e] = [2][]float64{pos, neg}
	}
	return out
}

// Evaluations that share their resamples — side by side, the first to ask drawing them —
// give EvaluateAUC's bits, and one set of resamples serves them all.
func TestResamplesGiveEvaluateAUCsBits(t *testing.T) {
	for _, c := range []struct {
		np, nn int
		grid   float64
	}{{1, 1, 0}, {7, 3, 0}, {200, 151, 0}, {400, 400, 0.25}, {3000, 2501, 0}, {5000, 5000, 0.01}} {
		t.Run(fmt.Sprintf("%d-%d-%g", c.np, c.nn, c.grid), func(t *testing.T) {
			const reps, seed = 60, 42
			evals := scorePairs(5, c.np, c.nn, c.grid)
			shared := NewResamples(1 << 30)
			got := make([]Metric, len(evals))
			var wg sync.WaitGroup
			for e, sides := range evals {
				wg.Go(func() {
					m, err := shared.EvaluateAUC(sides[0], sides[1], reps, 0.95, seed)
					if err != nil {
						t.Error(err)
					}
					got[e] = m
				})
			}
			wg.Wait()
			for e, sides := range evals {
				want, err := EvaluateAUC(sides[0], sides[1], reps, 0.95, seed)
				if err != nil {
					t.Fatal(err)
				}
				if got[e] != want {
					t.Errorf("evaluation %d: shared %+v, alone %+v", e, got[e], want)
				}
			}
			if len(shared.sets) != 1 || shared.used != int64(reps*((c.np+c.nn+1)/2)) {
				t.Errorf("%d sets, %d bytes held; want one of %d", len(shared.sets), shared.used, reps*((c.np+c.nn+1)/2))
			}
		})
	}
}

// A later evaluation reads the resamples the first drew — here made wrong on purpose, so
// its AUC must change — and past the budget nothing is kept and every evaluation draws.
func TestResamplesAreReadNotDrawnAgain(t *testing.T) {
	evals := scorePairs(2, 300, 300, 0)
	const reps, seed = 40, 7
	shared := NewResamples(1 << 20)
	first, err := shared.EvaluateAUC(evals[0][0], evals[0][1], reps, 0.95, seed)
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range shared.sets {
		for i := range set.nib {
			set.nib[i] = 0x11 // every sample drawn once: each replicate is the point estimate
		}
	}
	alone, _ := EvaluateAUC(evals[1][0], evals[1][1], reps, 0.95, seed)
	second, _ := shared.EvaluateAUC(evals[1][0], evals[1][1], reps, 0.95, seed)
	if second == alone || second.Lower != second.Value || second.Upper != second.Value {
		t.Errorf("second evaluation %+v (alone %+v): did not read the shared resamples", second, alone)
	}
	if want, _ := EvaluateAUC(evals[0][0], evals[0][1], reps, 0.95, seed); first != want {
		t.Errorf("first evaluation %+v; alone %+v", first, want)
	}
	tight := NewResamples(int64(reps*300) - 1) // one byte short of the set
	if got, _ := tight.EvaluateAUC(evals[1][0], evals[1][1], reps, 0.95, seed); got != alone || len(tight.sets) != 0 || tight.used != 0 {
		t.Errorf("past the budget: %+v (alone %+v), %d sets, %d bytes", got, alone, len(tight.sets), tight.used)
	}
}

// put and get keep every count drawCounts can leave, 15 and more (a nibble's escape),
// counts that wrapped past 2⁸ (with their wraps), and an odd sample count's last.
func TestResampleSetKeepsEveryCount(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 9, 64, 1001} {
		np := (n + 1) / 2
		set := &resampleSet{n: n, stride: (n + 1) / 2, nib: make([]byte, 4*((n+1)/2)), big: make([]map[int]int, 4)}
		type rep struct {
			counts     []uint8
			overP, ovN map[int]float64
		}
		var want []rep
		for b := range 4 {
			counts := make([]uint8, n)
			var overP, overN map[int]float64
			for i := range counts {
				switch r.IntN(6) {
				case 0:
					counts[i] = uint8(14 + r.IntN(3)) // 14, 15, 16
				case 1:
					counts[i] = uint8(r.IntN(256))
				case 2: // wrapped once or twice
					counts[i] = uint8(r.IntN(20))
					w := float64(256 * (1 + r.IntN(2)))
					if i < np {
						overP = setOver(overP, i, w)
					} else {
						overN = setOver(overN, i-np, w)
					}
				default:
					counts[i] = uint8(r.IntN(4))
				}
			}
			set.put(b, counts, overP, overN, np)
			want = append(want, rep{slices.Clone(counts), overP, overN})
		}
		for b, w := range want {
			counts := make([]uint8, n)
			overP, overN := set.get(b, counts, np)
			if !slices.Equal(counts, w.counts) || !maps.Equal(overP, w.overP) || !maps.Equal(overN, w.ovN) {
				t.Fatalf("n = %d, replicate %d: got %v %v %v; put %v %v %v", n, b, counts, overP, overN, w.counts, w.overP, w.ovN)
			}
			if small := !slices.ContainsFunc(w.counts, func(c uint8) bool { return c >= 15 }) && w.overP == nil && w.ovN == nil; small != (set.big[b] == nil) {
				t.Fatalf("n = %d, replicate %d: escapes %v for counts %v", n, b, set.big[b], w.counts)
			}
		}
	}
}

func setOver(m map[int]float64, i int, w float64) map[int]float64 {
	if m == nil {
		m = map[int]float64{}
	}
	m[i] = w
	return m
}

// A replicate whose counts the nibbles cannot hold (a count of 15 or more, made here: no
// draw leaves one at these sizes) is rebuilt from its escapes and gives the filler's AUC.
func TestResamplesRebuildLargeCounts(t *testing.T) {
	evals := scorePairs(2, 500, 499, 0)
	const reps, seed = 30, 9
	shared := NewResamples(1 << 20)
	if _, err := shared.EvaluateAUC(evals[0][0], evals[0][1], reps, 0.95, seed); err != nil {
		t.Fatal(err)
	}
	// replicate 3: sample 10 (a member) drawn 20 times, sample 600 (a non-member) 300 times
	// (a wrap): written as the filler's put would have, and the AUC expected from them
	var set *resampleSet
	for _, s := range shared.sets {
		set = s
	}
	counts := make([]uint8, 999)
	overP, overN := set.get(3, counts, 500)
	if overP != nil || overN != nil {
		t.Fatal("a wrap in a replicate of 999 samples")
	}
	counts[10], counts[600] = 20, 300%256
	overN = map[int]float64{100: 256}
	set.put(3, counts, nil, overN, 500)
	if len(set.big[3]) != 2 || set.big[3][10] != 20 || set.big[3][600] != 300 {
		t.Fatalf("escapes %v", set.big[3])
	}
	got, err := shared.EvaluateAUC(evals[1][0], evals[1][1], reps, 0.95, seed)
	if err != nil {
		t.Fatal(err)
	}
	// the same replicates by hand: every other's AUC as drawn, replicate 3's from the counts
	m := merge(evals[1][0], evals[1][1])
	byP, byN := m.byValue(m.pos), m.byValue(m.neg)
	aucs := make([]float64, reps)
	for b := range reps {
		c := make([]uint8, 999)
		oP, oN := set.get(b, c, 500)
		w := m.counts()
		byP.sum(w.p, c[:500])
		byN.sum(w.n, c[500:])
		for i, v := range oP {
			w.p[m.pos[i]] += v
		}
		for i, v := range oN {
			w.n[m.neg[i]] += v
		}
		aucs[b] = w.auc()
	}
	slices.Sort(aucs)
	if got.Lower != quantile(aucs, 0.025) || got.Upper != quantile(aucs, 0.975) {
		t.Errorf("interval [%v, %v]; the replicates' own [%v, %v]", got.Lower, got.Upper, quantile(aucs, 0.025), quantile(aucs, 0.975))
	}
}

// put packs eight counts at a time until one reaches 15: a replicate whose first large
// count comes late (after whole words of small ones, and in either half of a byte) is kept.
func TestResampleSetPacksWordsThenEscapes(t *testing.T) {
	for k, at := range []int{0, 7, 8, 37, 38, 99} {
		counts := make([]uint8, 101)
		for i := range counts {
			counts[i] = uint8(i % 15) // 0..14: all fit a nibble
		}
		counts[at] = []uint8{15, 16, 143, 200, 255, 127}[k] // past 0x8E, c + 0x71 wraps
		set := &resampleSet{n: 101, stride: 51, nib: make([]byte, 51), big: make([]map[int]int, 1)}
		set.put(0, counts, nil, nil, 50)
		got := make([]uint8, 101)
		set.get(0, got, 50)
		if !slices.Equal(got, counts) || len(set.big[0]) != 1 {
			t.Fatalf("large count at %d: got %v, escapes %v; put %v", at, got, set.big[0], counts)
		}
	}
}

// A NaN score has no place in a ROC: the evaluations refuse it by side and index (they
// indexed past their arrays before), shared or not.
func TestEvaluateRefusesNaN(t *testing.T) {
	pos, neg := []float64{1, 2, math.NaN(), 4}, []float64{0, 1, 2}
	for _, f := range []func() error{
		func() error { _, err := EvaluateAUC(pos, neg, 10, 0.95, 1); return err },
		func() error { _, err := Evaluate(pos, neg, 10, 0.95, 1); return err },
		func() error { _, err := NewResamples(1<<20).EvaluateAUC(pos, neg, 10, 0.95, 1); return err },
	} {
		if err := f(); err == nil || err.Error() != "evaluate attack: member score 2 is NaN" {
			t.Errorf("NaN member score: %v", err)
		}
	}
	if _, err := EvaluateAUC(neg, pos, 10, 0.95, 1); err == nil || err.Error() != "evaluate attack: non-member score 2 is NaN" {
		t.Errorf("NaN non-member score: %v", err)
	}
}
