package epsilon

import "math"

// sortFloats sorts a (finite or infinite values, no NaN) ascending, as slices.Sort does,
// by an LSD radix sort on the values' order-preserving bit keys: eight byte passes,
// skipping a byte every value shares, through buf (at least len(a) long). It is 2.6×
// faster than slices.Sort on the power simulation's normal samples (BenchmarkSortFloats:
// 153 against 393 µs at 7 187), whose sorting was half of a decisive check's time. −0 sorts before +0 (slices.Sort leaves equal values in any order);
// nothing here tells them apart.
func sortFloats(a, buf []float64) {
	n := len(a)
	if n < 2 {
		return
	}
	var counts [8][256]int
	for _, v := range a {
		k := sortKey(v)
		for p := range counts {
			counts[p][byte(k>>(8*p))]++
		}
	}
	src, dst := a, buf[:n]
	for p := range counts {
		c := &counts[p]
		if c[byte(sortKey(src[0])>>(8*p))] == n {
			continue // every value has this byte: the pass would not move anything
		}
		sum := 0
		for i, m := range c {
			c[i], sum = sum, sum+m
		}
		for _, v := range src {
			b := byte(sortKey(v) >> (8 * p))
			dst[c[b]] = v
			c[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
}

// sortKey maps a float64 to a uint64 in the same order: negative values have every bit
// flipped, the others only the sign bit.
func sortKey(f float64) uint64 {
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}
