package philox

import (
	"math/bits"
	"unsafe"
)

// The paths the fills run, narrowest first.
const (
	pathGo     = iota // Block and the transform one block at a time (every architecture)
	pathAVX2          // kernel_amd64.s: four blocks a group in 256-bit registers
	pathAVX512        // eight blocks a group in 512-bit registers
)

// path is the one this process runs: the widest its CPU has (bestPath). The tests set it
// to each narrower path in turn and compare the values.
var path = bestPath()

// pathNames names the paths in tests and benchmarks.
var pathNames = [...]string{pathGo: "go", pathAVX2: "avx2", pathAVX512: "avx512"}

// Philox and the transform are two kernels: philoxAVX512 writes the words of a chunk of
// blocks where FillWide's normals go (splitWide), six groups of eight blocks side by
// side, and the transform kernel reads them and overwrites them with the normals, two
// units of two groups (16 blocks, 16 float32 lanes) a step; on AVX2, philoxAVX2 runs two
// groups of four and the transform one unit of two (8 blocks, 8 lanes). Philox's ten
// dependent rounds and the transform's series, division and square root are chains each
// group waits on; apart, each kernel holds the registers for its own chains only. A
// chunk's last groups or units, fewer than a step, go through the One kernels (one a
// step), so that no more than a unit's blocks are drawn past a length's end.
//
// chunkBlocks is FillWide's chunk, 12 KiB of dst, within L1 still: fewer calls a fill.
// Thread CPU a normal, AVX-512, min of 15 alternated runs, two processes, chunks of 96 →
// 192 → 384 blocks: n = 784 0.483–0.487 → 0.481–0.486 → 0.471–0.482 ns, n = 65536
// 0.441–0.444 → 0.428–0.429 → 0.424–0.426. It is whole steps of every kernel.
const chunkBlocks = 384

// shape is the path's split kernels' steps: blocks a group (Philox's), groups a Philox
// step, blocks a transform unit (two groups: the float32 lanes are twice the quadword
// ones) and units a transform step.
func shape() (group, philoxGroups, unit, units int) {
	if path == pathAVX512 {
		return 8, 6, 16, 2
	}
	return 4, 2, 8, 1
}

// preRounds is what a kernel needs of the stream besides the block index: the key of
// each of the ten rounds, k0 then k1 in quadwords 2r and 2r+1 (the kernels read each as a
// broadcast quadword), with the lane-invariant work folded in. All lanes share the
// counter's words 1–3 (step and trial), so round 1's product of word 2 and round 2's of
// word 0 are the same in every lane; they are computed here once, and the words they give
// are xored into the keys they meet: slot 1 is trial's high word ^ k1 (round 1's new word
// 2), slot 2 round 1's low product ^ k0 (round 2's new word 0), slot 3 round 2's high
// product ^ k1 (its word 2), slot 5 round 2's low product ^ round 3's k1 (its word 2);
// slot 0 is unused. TestKernelsAreGosBits holds the kernels to Block's bits.
func preRounds(seed, trial uint64, step uint32) (pre [20]uint64) {
	// The keys in closed form (k + r·bump), not each from the last: a loop carrying them
	// through memory cost 18 ns a call where this costs 12 (measured).
	k0, k1 := uint32(seed), uint32(seed>>32)
	for r := range uint32(Rounds) {
		pre[2*r], pre[2*r+1] = uint64(k0+r*bump0), uint64(k1+r*bump1)
	}
	hi1, lo1 := bits.Mul32(mul1, uint32(trial)) // round 1's word-2 product
	w0 := hi1 ^ step ^ k0                       // round 1's new word 0
	hi0, lo0 := bits.Mul32(mul0, w0)            // round 2's word-0 product
	pre[0] = 0
	pre[1] = uint64(uint32(trial>>32) ^ k1)
	pre[2] = uint64(lo1 ^ uint32(pre[2]))
	pre[3] = uint64(hi0 ^ uint32(pre[3]))
	pre[5] = uint64(lo0 ^ uint32(pre[5]))
	return pre
}

// philoxWords writes the words of groups groups from block on to words (4 quadwords a
// block): the Philox kernel's whole steps, then its One twin's.
func philoxWords(words []uint64, groups int, block uint32, pre *[20]uint64) {
	group, per, _, _ := shape()
	_ = words[4*groups*group-1] // the kernels write this far
	steps := groups / per
	if steps > 0 {
		if path == pathAVX512 {
			philoxAVX512(&words[0], steps, block, pre)
		} else {
			philoxAVX2(&words[0], steps, block, pre)
		}
	}
	if rest := groups - steps*per; rest > 0 {
		at := block + uint32(steps*per*group)
		if path == pathAVX512 {
			philoxOneAVX512(&words[4*steps*per*group], rest, at, pre)
		} else {
			philoxOneAVX2(&words[4*steps*per*group], rest, at, pre)
		}
	}
}

// transformUnits transforms u units of words (Philox's records) into out: whole steps of
// the transform kernel, then the units left, fewer than a step, through its One twin.
// float64 out gets sd·z (FillWide's kernels; in place where out is words' memory), float32
// out the normals z (FillWideRows32's; sd unused).
func transformUnits[F float32 | float64](out []F, words []uint64, u int, sd float64) {
	_, _, unit, units := shape()
	per := 4 * unit
	_ = out[u*per-1] // the kernels write this far
	steps := u / units
	if steps > 0 {
		transform(&out[0], &words[0], steps, sd, false)
	}
	if r := u - steps*units; r > 0 {
		transform(&out[steps*units*per], &words[steps*units*per], r, sd, true)
	}
}

// transform calls the path's transform kernel for dst's type: steps of it, or of its One
// twin (one unit a step) if one. AVX2's kernels run one unit a step: they are their own
// One. The float64 kernels always multiply by sd: with sd = 1 the values are the same
// (z·1 = z), at one multiply a vector.
func transform[F float32 | float64](dst *F, words *uint64, steps int, sd float64, one bool) {
	switch d := any(dst).(type) {
	case *float64:
		switch {
		case path == pathAVX512 && one:
			fillWideOneAVX512(d, words, steps, sd)
		case path == pathAVX512:
			fillWideAVX512(d, words, steps, sd)
		default:
			fillWideAVX2(d, words, steps, sd)
		}
	case *float32:
		switch {
		case path == pathAVX512 && one:
			normals32OneAVX512(d, words, steps)
		case path == pathAVX512:
			normals32AVX512(d, words, steps)
		default:
			normals32AVX2(d, words, steps)
		}
	}
}

// fillWide writes sd·z in float64, one rounding, for the stream's float32 normals z
// (normals32's) widened (exact), from 4·block on: the split kernels, or a block at a time
// in Go. It panics if dst runs past the stream's end. The exported fills read from block
// 0; the tests read from any block through it.
func fillWide(dst []float64, sd float64, seed, trial uint64, step, block uint32) {
	checkLen(block, len(dst))
	if len(dst) == 0 {
		return
	}
	if path == pathGo {
		fillWideGo(dst, sd, seed, trial, step, block)
		return
	}
	pre := preRounds(seed, trial, step)
	splitWide(dst, sd, block, &pre)
}

// splitWide is fillWide on the split kernels, in place: a block's four words are
// four quadwords where its four normals go, so Philox writes a chunk's words to dst and
// the transform (which reads a step's words before it writes its values) overwrites them
// with the normals. No chunk buffer to clear a call (a 3 KiB one cost 29 ns, measured: 5 %
// of 784 values' cost), only the last partial unit's, 512 bytes, which stays on the stack
// because the kernels are called directly, not through a function value. Its chunks are
// chunkBlocks.
func splitWide(dst []float64, sd float64, block uint32, pre *[20]uint64) {
	group, _, unit, _ := shape()
	per := 4 * unit // values a unit: its words' quadwords
	full := len(dst) / per
	for at := 0; at < full; {
		u := min(full-at, chunkBlocks/unit)
		w := unsafe.Slice((*uint64)(unsafe.Pointer(&dst[at*per])), u*per)
		philoxWords(w, u*unit/group, block, pre)
		transformUnits(dst[at*per:], w, u, sd)
		at += u
		block += uint32(u * unit)
	}
	if rest := len(dst) - full*per; rest > 0 {
		var buf [64]uint64 // a unit's words, then its values
		philoxWords(buf[:], (rest+4*group-1)/(4*group), block, pre)
		out := (*[64]float64)(unsafe.Pointer(&buf))
		transform(&out[0], &buf[0], 1, sd, true)
		copy(dst[full*per:], out[:rest])
	}
}

// rows32 is FillWideRows32 on the split kernels. The words of a chunk (8 bytes a
// normal) no longer fit where its float32 normals go, so Philox writes them to a stack
// buffer of chunkBlocks blocks (12 KiB, in L1 still) and the transform writes each row's
// whole units to dst. The rows' partial units (784 = 12·64 + 16 on AVX-512: a unit's
// transform for a sixty-fourth of the row) are gathered, a whole number of Philox groups
// a row, into one buffer whose units the transform then takes a step at a time, as it
// takes a row's own (it maps each group's record of words to that group's values, at the
// same index, so groups of different rows side by side give each the values it gives
// alone); it writes them over the buffer's front (a step's values, half its words' bytes,
// go where words already read were), and each row's are copied out.
func rows32(dst []float32, d int, seeds []uint64, trial uint64, step uint32) {
	group, _, unit, _ := shape()
	per := 4 * unit // values a unit
	full := d / per * per
	rest := d - full
	// a partial unit's whole groups, in quadwords: Philox writes a group's words as one
	// record (word 0 of its blocks, then word 1, …), which the transform turns into the
	// group's values at the same index
	slots := (rest + 4*group - 1) / (4 * group) * (4 * group)
	var words [4 * chunkBlocks]uint64
	// gather takes the partial units of batch rows at a time (16 on AVX-512 at d = 784, a
	// group of 8 blocks a row), each row's Philox words written in its place
	var gather [8 * 64]uint64
	batch := len(seeds)
	if slots > 0 {
		batch = len(gather) / slots
	}
	tail := uint32(full / 4) // the partial unit's first block
	for t0 := 0; t0 < len(seeds); t0 += batch {
		t1 := min(t0+batch, len(seeds))
		for t := t0; t < t1; t++ {
			pre := preRounds(seeds[t], trial, step)
			row := dst[t*d : t*d+full]
			for at, block := 0, uint32(0); at < full; {
				u := min((full-at)/per, chunkBlocks/unit)
				philoxWords(words[:u*per], u*unit/group, block, &pre)
				transformUnits(row[at:], words[:], u, 0)
				at += u * per
				block += uint32(u * unit)
			}
			if slots > 0 {
				philoxWords(gather[(t-t0)*slots:(t-t0+1)*slots], slots/(4*group), tail, &pre)
			}
		}
		if slots == 0 {
			continue
		}
		n := (t1 - t0) * slots
		u := (n + per - 1) / per // the units the gathered words fill (the last one's rest is junk, never read back)
		out := (*[2 * len(gather)]float32)(unsafe.Pointer(&gather))
		transformUnits(out[:], gather[:], u, 0)
		for t := t0; t < t1; t++ {
			copy(dst[t*d+full:(t+1)*d], out[(t-t0)*slots:(t-t0)*slots+rest])
		}
	}
}

// fillWideGo writes sd·float64(z) for the stream's float32 normals z from 4·block on, a
// block at a time in Go.
func fillWideGo(dst []float64, sd float64, seed, trial uint64, step, block uint32) {
	key := Key(seed)
	for i := 0; i < len(dst); i += 4 {
		z := normals32(Block(Counter(trial, step, block+uint32(i/4)), key))
		for j := 0; j < 4 && i+j < len(dst); j++ {
			dst[i+j] = sd * float64(z[j])
		}
	}
}

// rowGo32 writes the stream's first len(dst) float32 normals, a block at a time in Go.
func rowGo32(dst []float32, seed, trial uint64, step uint32) {
	key := Key(seed)
	for i := 0; i < len(dst); i += 4 {
		z := normals32(Block(Counter(trial, step, uint32(i/4)), key))
		copy(dst[i:], z[:])
	}
}
