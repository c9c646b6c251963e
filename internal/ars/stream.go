package ars

import "fmt"

// StreamRounds is the rounds of the generator the streams draw from: ARS-4x32-7,
// Random123's default for ars4x32.
const StreamRounds = 7

// Key is the generator's key for a seed: its low word first, words 2 and 3 zero.
func Key(seed uint64) [4]uint32 { return [4]uint32{uint32(seed), uint32(seed >> 32), 0, 0} }

// Counter is the counter of block i of the stream (trial, step): i in word 0, step in word
// 1, the trial's low and high words in 2 and 3. Distinct (trial, step, i) are distinct
// counters, so under one key no two streams share a block, and any trial's block i is
// drawn without drawing anything before it.
func Counter(trial uint64, step uint32, i uint32) [4]uint32 {
	return [4]uint32{i, step, uint32(trial), uint32(trial >> 32)}
}

// MaxBlocks is how many blocks a stream has (word 0 of the counter counts them), and
// GroupBlocks how many make a group, the 32 normals the transform draws from their 32
// words.
const (
	MaxBlocks   = 1 << 32
	GroupBlocks = 8
	groupValues = 4 * GroupBlocks
	maxGroups   = MaxBlocks / GroupBlocks
)

// checkLen panics if n values from group on, 32 a group, run past the stream's
// MaxBlocks blocks.
func checkLen(group uint32, n int) {
	groups := (uint64(n) + groupValues - 1) / groupValues
	if uint64(group)+groups > maxGroups {
		panic(fmt.Sprintf("ars: %d values from group %d exceed a stream's %d groups of %d", n, group, uint64(maxGroups), groupValues))
	}
}

// FillWide writes the first len(dst) standard normals of the stream (seed, trial,
// step): group g (blocks 8g to 8g+7, their 32 words w in block order) gives dst[32g+l]
// and dst[32g+16+l], l = 0 to 15, the Box–Muller pair R·cos 2πv, R·sin 2πv of the
// 32-bit uniforms of w[l] (the radius's) and w[16+l] (the angle's), computed in float32
// after an exact reduction (transform32.go) and widened to float64 (exactly): the
// stream of an engine whose arithmetic is float64 but whose noise is drawn at float32's
// cost. The 32-bit u bounds |z| by √(2·33·ln 2) = 6.76σ; the normal law's mass beyond is
// 1.4·10⁻¹¹. It panics beyond 2³⁴ normals.
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
// last partial groups (16 of 784 normals) are transformed together rather than a row at
// a time. It panics if dst is shorter than len(seeds)·d, if d < 0, or beyond a stream's
// 2³⁴ normals.
func FillWideRows32(dst []float32, d int, seeds []uint64, trial uint64, step uint32) {
	if d < 0 || (d > 0 && len(seeds) > len(dst)/d) { // len(seeds)·d may overflow
		panic(fmt.Sprintf("ars: FillWideRows32: %d rows of %d values need %d, dst has %d", len(seeds), d, len(seeds)*d, len(dst)))
	}
	checkLen(0, d)
	if d == 0 {
		return
	}
	rows32(dst, d, seeds, trial, step)
}
