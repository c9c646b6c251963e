package ars

//go:generate go run -C asm . -out ../kernel_amd64.s -stubs ../kernel_amd64_stubs.go -pkg ars

import (
	"unsafe"
)

// The transform's paths, narrowest first.
const (
	pathGo     = iota // transform32.go a group at a time (every architecture)
	pathAVX2          // kernel_amd64.s: half a group a 256-bit register
	pathAVX512        // a group a 512-bit register
)

// The words' paths, narrowest first.
const (
	arsGo    = iota // roundsGo a block at a time
	arsAESNI        // AES-NI: a block a 128-bit register
	arsVAES         // VAES: four blocks a 512-bit register
)

// path and words are the kernels this process runs: the widest its CPU has (bestPath,
// bestARS). The tests set them to each narrower one in turn and compare the values.
var (
	path    = bestPath()
	arsPath = bestARS()
)

// pathNames and arsNames name the paths in tests and benchmarks.
var (
	pathNames = [...]string{pathGo: "go", pathAVX2: "avx2", pathAVX512: "avx512"}
	arsNames  = [...]string{arsGo: "go", arsAESNI: "aes", arsVAES: "vaes"}
)

// A fill is two kernels: the words kernel writes a chunk's words, block after block, and
// the transform kernel reads them and writes the normals in their place. Apart, each
// holds the registers for its own chains: AES's rounds, the transform's division, square
// root and series.
//
// chunkGroups is a fill's chunk: 48 groups, 12 KiB of FillWide's values (6 KiB of words),
// within L1 still.
const chunkGroups = 48

// pairStep is the groups a step of the AVX-512 transform kernel runs (asm's -pairChains;
// TestKernelsAreGosBits fails if the two disagree): four chains of 16 lanes. On Zen 4
// (BenchmarkRows, 32 rows of 784, alternated) four and three are alike, 0.463–0.472 ns a
// normal and 0.454–0.489; two took 0.49–0.52 and one 0.55–0.63 in an earlier comparison.
// AVX2's runs a group a step, two chains.
const pairStep = 4

// roundKeys is what the words kernels need of a stream: rk[0] the key xored with the
// counter's words 1 to 3 (step, trial's low and high words; word 0, the block index, is
// xored in lane by lane), rk[r] the key of round r, the key advanced by the Weyl
// increments r times (Block's schedule).
func roundKeys(seed, trial uint64, step uint32) (rk [StreamRounds + 1][4]uint32) {
	key := Key(seed)
	rk[0] = [4]uint32{key[0], key[1] ^ step, key[2] ^ uint32(trial), key[3] ^ uint32(trial>>32)}
	for r := 1; r <= StreamRounds; r++ {
		rk[r] = roundKey(key, r)
	}
	return rk
}

// streamWords writes groups × 8 blocks' words from block on to w, in block order, on the
// words path.
func streamWords(w []uint32, groups int, block uint32, rk *[StreamRounds + 1][4]uint32) {
	_ = w[groups*groupValues-1] // the kernels write this far
	switch arsPath {
	case arsVAES:
		wordsVAES(&w[0], groups, block, rk)
	case arsAESNI:
		wordsAES(&w[0], groups, block, rk)
	default:
		for i := range groups * GroupBlocks {
			v0, v1, v2, v3 := (block+uint32(i))^rk[0][0], rk[0][1], rk[0][2], rk[0][3]
			for r := 1; r < StreamRounds; r++ {
				k := &rk[r]
				v0, v1, v2, v3 = encRound(v0, v1, v2, v3, k[0], k[1], k[2], k[3])
			}
			k := &rk[StreamRounds]
			v0, v1, v2, v3 = encLast(v0, v1, v2, v3, k[0], k[1], k[2], k[3])
			w[4*i], w[4*i+1], w[4*i+2], w[4*i+3] = v0, v1, v2, v3
		}
	}
}

// pairs transforms groups groups of words w into out, on the path: float64 out gets
// sd·z (FillWide's), float32 out the normals z (FillWideRows32's; sd unused). The
// AVX-512 kernel's whole steps run first, then its One twin for the groups left. out
// may be w's memory (float32) or hold it in its back half (float64): every path reads a
// step's words before it writes the step's values.
func pairs[F float32 | float64](out []F, w []uint32, groups int, sd float64) {
	_ = out[groups*groupValues-1] // the kernels write this far
	_ = w[groups*groupValues-1]
	if path == pathGo {
		for g := range groups {
			z := pairNormals((*[groupValues]uint32)(w[groupValues*g:]))
			o := out[groupValues*g : groupValues*(g+1)]
			switch o := any(o).(type) {
			case []float64:
				for i, x := range z {
					o[i] = sd * float64(x)
				}
			case []float32:
				copy(o, z[:])
			}
		}
		return
	}
	step := 1
	if path == pathAVX512 {
		step = pairStep
	}
	steps := groups / step
	if steps > 0 {
		switch o := any(&out[0]).(type) {
		case *float64:
			if path == pathAVX512 {
				pairWideAVX512(o, &w[0], steps, sd)
			} else {
				pairWideAVX2(o, &w[0], steps, sd)
			}
		case *float32:
			if path == pathAVX512 {
				pair32AVX512(o, &w[0], steps)
			} else {
				pair32AVX2(o, &w[0], steps)
			}
		}
	}
	if rest := groups - steps*step; rest > 0 {
		at := steps * step * groupValues
		switch o := any(&out[at]).(type) {
		case *float64:
			pairWideOneAVX512(o, &w[at], rest, sd)
		case *float32:
			pair32OneAVX512(o, &w[at], rest)
		}
	}
}

// fillWide writes sd·z in float64, one rounding, for the stream's float32 normals z
// widened (exact), from group on. It panics if dst runs past the stream's end. The
// exported fills read from group 0; the tests read from any group through it.
//
// In place: a group's 32 words take the room of 16 of its float64 values, so each chunk's
// words go to the back half of where its values go, and the transform (which reads a
// step's words before it writes its values) overwrites them; a step's values end before
// the first words not yet read. No chunk buffer to clear a call (a 3 KiB one cost 29 ns
// under stream v2: 5 % of 784 values' cost), only the last partial group's, 256 bytes.
func fillWide(dst []float64, sd float64, seed, trial uint64, step, group uint32) {
	checkLen(group, len(dst))
	if len(dst) == 0 {
		return
	}
	rk := roundKeys(seed, trial, step)
	full := len(dst) / groupValues
	block := GroupBlocks * group
	for at := 0; at < full; {
		u := min(full-at, chunkGroups)
		region := dst[groupValues*at : groupValues*(at+u)]
		w := unsafe.Slice((*uint32)(unsafe.Pointer(&region[groupValues*u/2])), groupValues*u)
		streamWords(w, u, block, &rk)
		pairs(region, w, u, sd)
		at += u
		block += uint32(GroupBlocks * u)
	}
	if rest := len(dst) - full*groupValues; rest > 0 {
		var buf [groupValues]float64 // the group's words in its back half, then its values
		w := (*[2 * groupValues]uint32)(unsafe.Pointer(&buf))[groupValues:]
		streamWords(w, 1, block, &rk)
		pairs(buf[:], w, 1, sd)
		copy(dst[full*groupValues:], buf[:rest])
	}
}

// rows32 is FillWideRows32: each row's whole groups in place (its words written where
// its float32 normals go, the same bytes), a chunk at a time; the rows' partial groups
// (784 = 24·32 + 16: a group's transform for 16 values) gathered, a group a row, into
// one buffer whose groups the transform then takes together, as it takes a row's own
// (it maps each group's words to that group's values, at the same place, so the groups
// of different rows side by side give each the values it gives alone), and each row's
// copied out.
func rows32(dst []float32, d int, seeds []uint64, trial uint64, step uint32) {
	full := d / groupValues
	rest := d - full*groupValues
	var gather [32 * groupValues]uint32 // 32 rows' partial groups: 4 KiB
	batch := len(gather) / groupValues
	for t0 := 0; t0 < len(seeds); t0 += batch {
		t1 := min(t0+batch, len(seeds))
		for t := t0; t < t1; t++ {
			rk := roundKeys(seeds[t], trial, step)
			row := dst[t*d : t*d+full*groupValues]
			for at := 0; at < full; {
				u := min(full-at, chunkGroups)
				region := row[groupValues*at : groupValues*(at+u)]
				w := unsafe.Slice((*uint32)(unsafe.Pointer(&region[0])), len(region))
				streamWords(w, u, uint32(GroupBlocks*at), &rk)
				pairs(region, w, u, 0)
				at += u
			}
			if rest > 0 {
				streamWords(gather[groupValues*(t-t0):], 1, uint32(GroupBlocks*full), &rk)
			}
		}
		if rest == 0 {
			continue
		}
		out := (*[len(gather)]float32)(unsafe.Pointer(&gather))
		pairs(out[:], gather[:], t1-t0, 0)
		for t := t0; t < t1; t++ {
			copy(dst[t*d+full*groupValues:(t+1)*d], out[groupValues*(t-t0):groupValues*(t-t0)+rest])
		}
	}
}
