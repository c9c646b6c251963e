package floatsort

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Sort leaves every slice as slices.Sort does, bit for bit: long and short, with ties,
// one kind of zero, both zeros and NaNs (handed to slices.Sort), infinities, subnormals,
// the extremes, all one value (every digit the same: passes skipped), mostly one value (a
// pass that must not be skipped), already sorted and reversed.
func TestSortIsSlicesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	special := []float64{math.Inf(1), math.Inf(-1), 5e-324, -5e-324, math.MaxFloat64, -math.MaxFloat64, 1, -1}
	draw := func(n int, grid float64, zeros ...float64) []float64 {
		s := make([]float64, n)
		for i := range s {
			switch k := r.IntN(40); {
			case k == 0:
				s[i] = special[r.IntN(len(special))]
			case k == 1 && len(zeros) > 0:
				s[i] = zeros[r.IntN(len(zeros))]
			case grid > 0:
				s[i] = math.Round(r.NormFloat64()/grid) * grid
			default:
				s[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
			}
		}
		return s
	}
	negZero := math.Copysign(0, -1)
	steps := func(n int, step, from float64) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = from + step*float64(r.IntN(500))
		}
		return s
	}
	mostly := func(n int) []float64 { // 90 % one value: a digit most keys share, not all
		s := draw(n, 0)
		for i := range s {
			if r.IntN(10) != 0 {
				s[i] = 2.5
			}
		}
		return s
	}
	cases := map[string][]float64{
		"short":          draw(Threshold-1, 0),
		"long":           draw(3*Threshold+5, 0),
		"ties":           steps(Threshold, 0.25, 1),     // 500 values, none zero
		"signed ties":    steps(Threshold, 0.25, -62.4), // both signs, none zero
		"+0 only":        draw(Threshold+1, 0, 0),
		"-0 only":        draw(Threshold+2, 0, negZero),
		"rounded":        draw(Threshold, 0.01), // both zeros, from rounding
		"mostly one":     mostly(Threshold),
		"both zeros":     draw(Threshold, 0.5, 0, negZero),
		"NaN":            append(draw(Threshold, 0), math.NaN()),
		"one value":      slices.Repeat([]float64{2.5}, Threshold),
		"two values":     append(slices.Repeat([]float64{-1}, Threshold/2), slices.Repeat([]float64{1}, Threshold/2)...),
		"sorted":         func() []float64 { s := draw(Threshold, 0); slices.Sort(s); return s }(),
		"reversed":       func() []float64 { s := draw(Threshold, 0); slices.Sort(s); slices.Reverse(s); return s }(),
		"negative tails": draw(2*Threshold, 0, negZero),
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			want, got := slices.Clone(s), slices.Clone(s)
			slices.Sort(want)
			Sort(got)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
					t.Fatalf("position %d of %d: %v (%#x), slices.Sort's %v (%#x)", i, len(s), got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
				}
			}
		})
	}
}

// The radix sort against the comparison sort it replaces, on the check's sizes.
func BenchmarkSort(b *testing.B) {
	for _, n := range []int{Threshold, 100_000, 651_823} {
		r := rand.New(rand.NewPCG(3, 4))
		s := make([]float64, n)
		for i := range s {
			s[i] = r.NormFloat64()
		}
		work := make([]float64, n)
		b.Run(fmt.Sprintf("radix/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				copy(work, s)
				Sort(work)
			}
		})
		b.Run(fmt.Sprintf("slices/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				copy(work, s)
				slices.Sort(work)
			}
		})
	}
}

// SortKeys carries each key's index with it and keeps equal keys in their order (the
// merge of two sides' scores relies on both), with keys of few distinct values so that
// ties abound: varying in all four 16-bit digits (four passes, the result back in keys)
// and in three (three passes, the result copied back from the scratch).
func TestSortKeysCarriesIndicesStably(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ n, digits int }{{1, 4}, {7, 4}, {3 * Threshold, 4}, {3 * Threshold, 3}} {
		n := c.n
		keys, idx := make([]uint64, n), make([]int32, n)
		for i := range keys {
			for d := range c.digits { // each digit one of 4, independently
				keys[i] |= uint64(r.IntN(4)) << (16 * d)
			}
			idx[i] = int32(i)
		}
		orig := slices.Clone(keys)
		SortKeys(keys, idx)
		sk, si := keys, idx
		seen := make([]bool, n)
		for k := range sk {
			if sk[k] != orig[si[k]] || seen[si[k]] {
				t.Fatalf("n = %d, position %d: key %#x with index %d (its key %#x, seen %v)", n, k, sk[k], si[k], orig[si[k]], seen[si[k]])
			}
			seen[si[k]] = true
			if k > 0 && (sk[k] < sk[k-1] || sk[k] == sk[k-1] && si[k] < si[k-1]) {
				t.Fatalf("n = %d, position %d: (%#x, %d) after (%#x, %d)", n, k, sk[k], si[k], sk[k-1], si[k-1])
			}
		}
	}
}
