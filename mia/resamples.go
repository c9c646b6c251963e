package mia

import (
	"encoding/binary"
	"sync"
)

// Resamples keeps AUC bootstraps' resamples — each replicate's count of draws per sample —
// for the evaluations that draw the same ones. A bootstrap's draws depend on its seed, its
// sample sizes and its replicate count, not on the scores: the negative controls of an
// audit attack the same records with the same seed as their subject, so, shared, each
// replicate is drawn once instead of once per control, and the AUCs are the same bits.
// It holds at most its budget of bytes (half a byte a sample a replicate) and keeps what
// it took until it is dropped; past its budget evaluations draw for themselves. A nil
// *Resamples shares nothing. Safe for concurrent use.
type Resamples struct {
	budget int64
	mu     sync.Mutex
	used   int64
	sets   map[resampleKey]*resampleSet
}

// NewResamples is a Resamples that holds at most budget bytes.
func NewResamples(budget int64) *Resamples {
	return &Resamples{budget: budget, sets: map[resampleKey]*resampleSet{}}
}

// EvaluateAUC is mia.EvaluateAUC — the same value and interval — with its resamples
// shared through r: drawn by the first evaluation of their seed and sizes, read by the
// others (which wait for them).
func (r *Resamples) EvaluateAUC(pos, neg []float64, reps int, conf float64, seed uint64) (Metric, error) {
	out, err := evaluate(pos, neg, reps, conf, seed, false, r)
	if err != nil {
		return Metric{}, err
	}
	return out[0], nil
}

// Held is the bytes of resamples r holds.
func (r *Resamples) Held() int64 {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.used
}

type resampleKey struct {
	seed         uint64
	np, nn, reps int
}

// resampleSet is a bootstrap's replicates' counts, a nibble each: sample i (members then
// non-members, as evaluate's counts array) of replicate b is nibble i%2 (low first) of
// byte b·stride + i/2. A count of 15 or more is 15 there and exact in big.
type resampleSet struct {
	ready  chan struct{} // closed once filled, or given up (ok false)
	ok     bool
	n      int // samples a replicate
	stride int
	nib    []byte
	big    []map[int]int // per replicate, nil when no count reached 15
}

// take returns the set of key and whether the caller must fill it (then calling done
// after), or, when another evaluation took it first, the set once filled. It is nil when
// r is nil, the set would not fit the budget, or its filler gave up.
func (r *Resamples) take(key resampleKey) (set *resampleSet, fill bool) {
	if r == nil {
		return nil, false
	}
	n := key.np + key.nn
	stride := (n + 1) / 2
	size := int64(stride) * int64(key.reps)
	r.mu.Lock()
	s, ok := r.sets[key]
	if !ok {
		if r.used+size > r.budget {
			r.mu.Unlock()
			return nil, false
		}
		r.used += size
		s = &resampleSet{ready: make(chan struct{}), n: n, stride: stride, nib: make([]byte, size), big: make([]map[int]int, key.reps)}
		r.sets[key] = s
		r.mu.Unlock()
		return s, true
	}
	r.mu.Unlock()
	<-s.ready
	if !s.ok {
		return nil, false
	}
	return s, false
}

// done publishes a set its filler filled (ok), or gives it up.
func (s *resampleSet) done(ok bool) {
	s.ok = ok
	close(s.ready)
}

// put stores replicate b: counts as drawCounts left them (modulo 2⁸), their wraps in
// overP (members', indexed as counts) and overN (non-members', indexed from len(counts)−nn).
func (s *resampleSet) put(b int, counts []uint8, overP, overN map[int]float64, np int) {
	dst := s.nib[b*s.stride : (b+1)*s.stride]
	var big map[int]int
	// eight counts at a time while all are below 15 (all but about one in 10¹²): pairs
	// (c₀, c₁) of each 16-bit lane to c₀ | c₁<<4 in its low byte, the four bytes together
	j0 := 0
	for ; 2*j0+8 <= len(counts); j0 += 4 {
		x := binary.LittleEndian.Uint64(counts[2*j0:])
		if (x|(x+0x7171717171717171))&0x8080808080808080 != 0 {
			break // a count of 15 or more (c + 0x71 reaches 0x80 from 15; above 0x7F it is there)
		}
		t := (x | x>>4) & 0x00FF00FF00FF00FF
		t = (t | t>>8) & 0x0000FFFF0000FFFF
		t = (t | t>>16) & 0xFFFFFFFF
		binary.LittleEndian.PutUint32(dst[j0:], uint32(t))
	}
	for j := j0; j < len(counts)/2; j++ {
		lo, hi := counts[2*j], counts[2*j+1]
		if lo >= 15 || hi >= 15 {
			big = bigCount(big, 2*j, lo)
			big = bigCount(big, 2*j+1, hi)
			lo, hi = min(lo, 15), min(hi, 15)
		}
		dst[j] = lo | hi<<4
	}
	if len(counts)%2 == 1 {
		last := len(counts) - 1
		c := counts[last]
		if c >= 15 {
			big = bigCount(big, last, c)
		}
		dst[last/2] = min(c, 15)
	}
	wrap := func(over map[int]float64, from int) {
		for i, c := range over {
			if big == nil {
				big = map[int]int{}
			}
			k := from + i
			big[k] = int(counts[k]) + int(c)
			dst[k/2] |= 15 << (4 * (k % 2))
		}
	}
	wrap(overP, 0)
	wrap(overN, np)
	s.big[b] = big
}

// bigCount records count c of sample i when it is 15 or more.
func bigCount(big map[int]int, i int, c uint8) map[int]int {
	if c < 15 {
		return big
	}
	if big == nil {
		big = map[int]int{}
	}
	big[i] = int(c)
	return big
}

// get sets counts (and returns the wraps) as drawCounts left them for replicate b: what
// the replicate's filler had, for the replicates whose counts the nibbles do not hold.
func (s *resampleSet) get(b int, counts []uint8, np int) (overP, overN map[int]float64) {
	src := s.nib[b*s.stride : (b+1)*s.stride]
	for i := range counts {
		counts[i] = src[i/2] >> (4 * (i % 2)) & 15
	}
	for i, c := range s.big[b] {
		counts[i] = uint8(c)
		if c >= 1<<8 {
			w := float64(c &^ (1<<8 - 1))
			if i < np {
				if overP == nil {
					overP = map[int]float64{}
				}
				overP[i] = w
			} else {
				if overN == nil {
					overN = map[int]float64{}
				}
				overN[i-np] = w
			}
		}
	}
	return overP, overN
}
