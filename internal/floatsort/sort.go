package floatsort

import (
	"math"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/internal/scratch"
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
	keys := keyArrays.Get(len(s))
	defer keyArrays.Put(keys)
	for i, v := range s {
		keys[i] = Key(v)
	}
	SortKeys(keys, nil)
	for i, k := range keys {
		s[i] = FromKey(k)
	}
}

// keyArrays and indexArrays keep SortKeys' and radix's working arrays between sorts (8 and 4
// bytes a value, new pages otherwise).
var (
	keyArrays   scratch.Pool[uint64]
	indexArrays scratch.Pool[int32]
)

// SortKeys sorts keys in increasing order, in place, LSD radix, 16 bits a pass (a pass
// every key shares a digit of is skipped), moving idx[i] with keys[i] when idx is not nil.
// Keys that are equal keep their order.
func SortKeys(keys []uint64, idx []int32) {
	if len(keys) == 0 {
		return
	}
	tmp := keyArrays.Get(len(keys))
	defer keyArrays.Put(tmp)
	var tmpIdx []int32
	if idx != nil {
		tmpIdx = indexArrays.Get(len(idx))
		defer indexArrays.Put(tmpIdx)
	}
	src, dst, srcIdx, dstIdx := keys, tmp, idx, tmpIdx
	var count [1 << 16]int32
	for shift := 0; shift < 64; shift += 16 {
		clear(count[:])
		for _, k := range src {
			count[k>>shift&0xFFFF]++
		}
		if count[src[0]>>shift&0xFFFF] == int32(len(src)) {
			continue // every key has this digit
		}
		var at int32
		for d, c := range count {
			count[d], at = at, at+c
		}
		if idx == nil {
			for _, k := range src {
				d := k >> shift & 0xFFFF
				dst[count[d]] = k
				count[d]++
			}
		} else {
			for i, k := range src {
				d := k >> shift & 0xFFFF
				dst[count[d]], dstIdx[count[d]] = k, srcIdx[i]
				count[d]++
			}
		}
		src, dst, srcIdx, dstIdx = dst, src, dstIdx, srcIdx
	}
	if &src[0] != &keys[0] { // an odd number of passes ran: the result is in the scratch
		copy(keys, src)
		copy(idx, srcIdx)
	}
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
