package floatsort

import (
	"math"
	"slices"
	"sync"
)

// Threshold is the shortest slice Sort radix-sorts.
const Threshold = 1 << 13 // below it slices.Sort is faster (65 536 counts to clear a pass; measured)

// Sort sorts s in increasing order, leaving s as slices.Sort(s) would.
func Sort(s []float64) {
	if len(s) < Threshold || int64(len(s)) >= 1<<31 {
		slices.Sort(s)
		return
	}
	var neg, pos bool // −0 and +0 seen
	for _, v := range s {
		if v == 0 {
			if math.Signbit(v) {
				neg = true
			} else {
				pos = true
			}
		} else if v != v {
			slices.Sort(s) // a NaN
			return
		}
	}
	if neg && pos {
		slices.Sort(s)
		return
	}
	radix(s)
}

// radix is Sort by the values' bits, for slices with no NaN and not both zeros.
func radix(s []float64) {
	sc := scratch.Get().(*buffers)
	defer scratch.Put(sc)
	keys, tmp := sc.grow(len(s))
	for i, v := range s {
		keys[i] = Key(v)
	}
	keys, _ = SortKeys(keys, tmp, nil, nil)
	for i, k := range keys {
		s[i] = FromKey(k)
	}
}

// SortKeys sorts keys in increasing order, LSD radix, 16 bits a pass (a pass every key
// shares a digit of is skipped), carrying idx[i] with keys[i] when idx is not nil; tmp and
// tmpIdx are scratch of the same lengths. The sorted keys and indices are in either the
// given arrays or the scratch ones: those returned. Keys that are equal keep their order.
func SortKeys(keys, tmp []uint64, idx, tmpIdx []int32) ([]uint64, []int32) {
	if len(keys) == 0 {
		return keys, idx
	}
	var count [1 << 16]int32
	for shift := 0; shift < 64; shift += 16 {
		clear(count[:])
		for _, k := range keys {
			count[k>>shift&0xFFFF]++
		}
		if count[keys[0]>>shift&0xFFFF] == int32(len(keys)) {
			continue // every key has this digit
		}
		var at int32
		for d, c := range count {
			count[d], at = at, at+c
		}
		if idx == nil {
			for _, k := range keys {
				d := k >> shift & 0xFFFF
				tmp[count[d]] = k
				count[d]++
			}
			keys, tmp = tmp, keys
			continue
		}
		for i, k := range keys {
			d := k >> shift & 0xFFFF
			tmp[count[d]], tmpIdx[count[d]] = k, idx[i]
			count[d]++
		}
		keys, tmp, idx, tmpIdx = tmp, keys, tmpIdx, idx
	}
	return keys, idx
}

// Key maps a float64 (not NaN) to a key whose unsigned order is the values' order (−0
// before +0).
func Key(v float64) uint64 {
	b := math.Float64bits(v)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// FromKey is the value of a key.
func FromKey(k uint64) float64 {
	if k>>63 != 0 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// scratch holds the keys' arrays between sorts: 16 bytes a value, new pages otherwise.
var scratch = sync.Pool{New: func() any { return new(buffers) }}

type buffers struct{ keys, tmp []uint64 }

// grow returns the two arrays at length n (their contents are whatever was left in them).
func (b *buffers) grow(n int) (keys, tmp []uint64) {
	if cap(b.keys) < n {
		b.keys, b.tmp = make([]uint64, n), make([]uint64, n)
	}
	return b.keys[:n], b.tmp[:n]
}
