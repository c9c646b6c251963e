package philox

// The paths Fill and its peers run, narrowest first.
const (
	pathGo     = iota // Block and the transform one block at a time (every architecture)
	pathAVX2          // kernel_amd64.s: four blocks a step in 256-bit registers
	pathAVX512        // eight blocks a step in 512-bit registers
)

// path is the one this process runs: the widest its CPU has (bestPath). The tests set it
// to each narrower path in turn and compare the values.
var path = bestPath()

// pathNames names the paths in tests and benchmarks.
var pathNames = [...]string{pathGo: "go", pathAVX2: "avx2", pathAVX512: "avx512"}

// roundKeys is the key of each of the ten rounds, k0 then k1, each in the low word of a
// quadword (the kernels read it as a broadcast quadword).
func roundKeys(seed uint64) (rk [20]uint64) {
	k0, k1 := uint32(seed), uint32(seed>>32)
	for r := range Rounds {
		rk[2*r], rk[2*r+1] = uint64(k0), uint64(k1)
		k0, k1 = k0+bump0, k1+bump1
	}
	return rk
}

// fill64 writes sd times the normals of the stream (seed, trial, step) from block on:
// dst[j] is sd·z where z is the stream's normal 2·block + j. The kernels write whole
// groups of 8 (AVX-512) or 4 (AVX2) blocks; the last, partial group goes through a buffer
// on the stack.
func fill64(dst []float64, sd float64, seed, trial uint64, step, block uint32) {
	n := len(dst)
	if n == 0 {
		return
	}
	if path == pathGo {
		key := Key(seed)
		i := 0
		for ; i+1 < n; i += 2 {
			x := Block(Counter(trial, step, block+uint32(i/2)), key)
			a, b := boxMuller(uniform53(x[0], x[1]), uniform53(x[2], x[3]))
			dst[i], dst[i+1] = sd*a, sd*b
		}
		if i < n {
			x := Block(Counter(trial, step, block+uint32(i/2)), key)
			a, _ := boxMuller(uniform53(x[0], x[1]), uniform53(x[2], x[3]))
			dst[i] = sd * a
		}
		return
	}
	ctr := [4]uint32{block, step, uint32(trial), uint32(trial >> 32)}
	rk := roundKeys(seed)
	blocks := 4
	if path == pathAVX512 {
		blocks = 8
	}
	per := 2 * blocks
	full := n / per
	if full > 0 {
		if path == pathAVX512 {
			fill64AVX512(&dst[0], full, sd, &ctr, &rk)
		} else {
			fill64AVX2(&dst[0], full, sd, &ctr, &rk)
		}
	}
	if rest := n - full*per; rest > 0 {
		var buf [16]float64
		ctr[0] = block + uint32(full*blocks)
		if path == pathAVX512 {
			fill64AVX512(&buf[0], 1, sd, &ctr, &rk)
		} else {
			fill64AVX2(&buf[0], 1, sd, &ctr, &rk)
		}
		copy(dst[full*per:], buf[:rest])
	}
}

// fill32 is fill64's float32 twin: dst[j] is sd·z in float32, z the stream's float32
// normal 4·block + j.
func fill32(dst []float32, sd float32, seed, trial uint64, step, block uint32) {
	n := len(dst)
	if n == 0 {
		return
	}
	if path == pathGo {
		key := Key(seed)
		var z [4]float32
		for i := 0; i < n; i += 4 {
			x := Block(Counter(trial, step, block+uint32(i/4)), key)
			a, b := boxMuller(uniform32(x[0]), uniform32(x[1]))
			c, d := boxMuller(uniform32(x[2]), uniform32(x[3]))
			z = [4]float32{sd * float32(a), sd * float32(b), sd * float32(c), sd * float32(d)}
			copy(dst[i:], z[:])
		}
		return
	}
	ctr := [4]uint32{block, step, uint32(trial), uint32(trial >> 32)}
	rk := roundKeys(seed)
	blocks := 4
	if path == pathAVX512 {
		blocks = 8
	}
	per := 4 * blocks
	full := n / per
	if full > 0 {
		if path == pathAVX512 {
			fill32AVX512(&dst[0], full, sd, &ctr, &rk)
		} else {
			fill32AVX2(&dst[0], full, sd, &ctr, &rk)
		}
	}
	if rest := n - full*per; rest > 0 {
		var buf [32]float32
		ctr[0] = block + uint32(full*blocks)
		if path == pathAVX512 {
			fill32AVX512(&buf[0], 1, sd, &ctr, &rk)
		} else {
			fill32AVX2(&buf[0], 1, sd, &ctr, &rk)
		}
		copy(dst[full*per:], buf[:rest])
	}
}
