package philox

import (
	"fmt"
	"math/bits"
)

// The multipliers and the Weyl key increments of Philox4x32 (Salmon et al. 2011, table 2;
// the increments are the golden ratio's and √3−1's first 32 fractional bits).
const (
	mul0  = 0xD2511F53
	mul1  = 0xCD9E8D57
	bump0 = 0x9E3779B9
	bump1 = 0xBB67AE85
)

// Rounds is the number of rounds of the generator this package is: Philox4x32-10, the
// count Random123, JAX, PyTorch and cuRAND use (7 already passes BigCrush; 10 is the margin).
const Rounds = 10

// Block is Philox4x32-10: the bijection of the 128-bit counter ctr under the 64-bit key,
// words little end first as Random123 prints them (ctr[0] is the low word).
func Block(ctr [4]uint32, key [2]uint32) [4]uint32 {
	// block(ctr, key, Rounds) unrolled by hand (TestKnownAnswers holds both to the
	// published answers): the loop and its first-round test cost twice its multiplies.
	c0, c1, c2, c3 := ctr[0], ctr[1], ctr[2], ctr[3]
	k0, k1 := key[0], key[1]
	c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+bump0, k1+bump1
	c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+bump0, k1+bump1
	c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+bump0, k1+bump1
	c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+bump0, k1+bump1
	c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+bump0, k1+bump1
	c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+bump0, k1+bump1
	c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+bump0, k1+bump1
	c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+bump0, k1+bump1
	c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+bump0, k1+bump1
	c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	return [4]uint32{c0, c1, c2, c3}
}

// round is one Philox4x32 round under the key (k0, k1).
func round(c0, c1, c2, c3, k0, k1 uint32) (uint32, uint32, uint32, uint32) {
	hi0, lo0 := bits.Mul32(mul0, c0)
	hi1, lo1 := bits.Mul32(mul1, c2)
	return hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
}

// block is the R-round Philox4x32 (Random123's philox4x32_R): a round multiplies words 0
// and 2 by the two constants, the high halves crossed onto words 1 and 3 and keyed, the
// key bumped by the Weyl increments between rounds.
func block(ctr [4]uint32, key [2]uint32, rounds int) [4]uint32 {
	c0, c1, c2, c3 := ctr[0], ctr[1], ctr[2], ctr[3]
	k0, k1 := key[0], key[1]
	for r := 0; r < rounds; r++ {
		if r > 0 {
			k0 += bump0
			k1 += bump1
		}
		c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	}
	return [4]uint32{c0, c1, c2, c3}
}

// Key is the generator's key for a seed: its low word first.
func Key(seed uint64) [2]uint32 { return [2]uint32{uint32(seed), uint32(seed >> 32)} }

// Counter is the counter of block i of the stream (trial, step): i in word 0, step in word
// 1, the trial's low and high words in 2 and 3. Distinct (trial, step, i) are distinct
// counters, so under one key no two streams share a block, and any trial's block i is
// drawn without drawing anything before it.
func Counter(trial uint64, step uint32, i uint32) [4]uint32 {
	return [4]uint32{i, step, uint32(trial), uint32(trial >> 32)}
}

// MaxBlocks is how many blocks a stream has (word 0 of the counter counts them).
const MaxBlocks = 1 << 32

// checkLen panics if n values from block on, 4 a block, run past the stream's MaxBlocks
// blocks.
func checkLen(block uint32, n int) {
	blocks := (uint64(n) + 3) / 4
	if uint64(block)+blocks > uint64(MaxBlocks) {
		panic(fmt.Sprintf("philox: %d values from block %d exceed a stream's %d blocks of 4", n, block, uint64(MaxBlocks)))
	}
}

// FillWide writes the first len(dst) standard normals of the stream (seed, trial,
// step): block i gives dst[4i..4i+3], the Box–Muller pairs of the 32-bit uniforms of words
// (0, 1) and (2, 3), computed in float32 after an exact reduction (transform32.go) and
// widened to float64 (exactly): the stream of an engine whose arithmetic is float64 but
// whose noise is drawn at float32's cost. The 32-bit u bounds |z| by √(2·33·ln 2) =
// 6.76σ; the normal law's mass beyond is 1.4·10⁻¹¹. It panics beyond 2³⁴ normals.
func FillWide(dst []float64, seed, trial uint64, step uint32) {
	fillWide(dst, 1, seed, trial, step, 0)
}

// FillScaledWide writes sd·z in float64, one rounding of the product, for each of
// FillWide's normals z: a Langevin step's noise at scale sd in one pass.
func FillScaledWide(dst []float64, sd float64, seed, trial uint64, step uint32) {
	fillWide(dst, sd, seed, trial, step, 0)
}

// FillWideRows32 writes, for each t, the first d float32 normals of stream (seeds[t],
// trial, step) to row t of dst (its values t·d to (t+1)·d−1): FillWide's values before
// their widening, so float64(dst[t·d+i]) is FillWide's value i and sd·float64(dst[t·d+i])
// FillScaledWide's, bit for bit. It is an ensemble's noise at a step, one stream a run;
// it writes half FillWide's bytes and leaves the scale to the caller's update. The rows'
// last partial units of the kernels (16 of 784 normals on AVX-512) are transformed
// together rather than a row at a time. It panics if dst is shorter than len(seeds)·d, if
// d < 0, or beyond a stream's 2³⁴ normals.
func FillWideRows32(dst []float32, d int, seeds []uint64, trial uint64, step uint32) {
	if d < 0 || (d > 0 && len(seeds) > len(dst)/d) { // len(seeds)·d may overflow
		panic(fmt.Sprintf("philox: FillWideRows32: %d rows of %d values need %d, dst has %d", len(seeds), d, len(seeds)*d, len(dst)))
	}
	checkLen(0, d)
	if d == 0 {
		return
	}
	if path == pathGo {
		for t, seed := range seeds {
			rowGo32(dst[t*d:(t+1)*d], seed, trial, step)
		}
		return
	}
	rows32(dst, d, seeds, trial, step)
}
