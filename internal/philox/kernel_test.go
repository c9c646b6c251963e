package philox

import (
	"math"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"
	"pgregory.net/rapid"
)

// paths is every path this process can run: pure Go, and the kernels its CPU has.
func paths() []int {
	ps := []int{pathGo}
	if bestPath() >= pathAVX2 && cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ps = append(ps, pathAVX2)
	}
	if bestPath() == pathAVX512 {
		ps = append(ps, pathAVX512)
	}
	return ps
}

// kernelPaths is paths without pure Go: the ones compared against it.
func kernelPaths() []int { return paths()[1:] }

// onPath runs f with path forced to p.
func onPath(p int, f func()) {
	old := path
	path = p
	defer func() { path = old }()
	f()
}

// address is one stream and where to start reading it.
type address struct {
	seed, trial uint64
	step, block uint32
}

// fills are every filling function, each writing n values at an address as float64 bits,
// so that one comparison serves them all.
var fills = []struct {
	name string
	f    func(n int, a address) []uint64
}{
	{"FillWide", func(n int, a address) []uint64 {
		x := make([]float64, n)
		FillWide(x, a.seed, a.trial, a.step)
		return bits64(x)
	}},
	{"FillScaledWide", func(n int, a address) []uint64 {
		x := make([]float64, n)
		FillScaledWide(x, 0.37, a.seed, a.trial, a.step)
		return bits64(x)
	}},
	{"FillWideRows32", func(n int, a address) []uint64 { // two rows, the second's seed a's complement
		x := make([]float32, 2*n)
		FillWideRows32(x, n, []uint64{a.seed, ^a.seed}, a.trial, a.step)
		w := make([]float64, len(x))
		for i, z := range x {
			w[i] = float64(z)
		}
		return bits64(w)
	}},
	{"FillWideAt", func(n int, a address) []uint64 { // FillWide has no At: fillWide's block
		x := make([]float64, n)
		fillWide(x, -1.3, a.seed, a.trial, a.step, a.block)
		return bits64(x)
	}},
}

// sameBits reports the first index where got and want differ.
func sameBits(got, want []uint64) (int, bool) {
	if len(got) != len(want) {
		return -1, false
	}
	for i := range got {
		if got[i] != want[i] {
			return i, false
		}
	}
	return 0, true
}

// Every kernel gives pure Go's bits, value by value, for every filling function, at
// lengths around the kernels' groups, units and steps (AVX2's units of 8 blocks: 32
// values; AVX-512's of 16: 64, two a step; the Philox steps up to 48 blocks, the
// 384-block chunks: 1536 values) and past 2¹⁶, at addresses with every word set, and
// read (fillWide from a block) up to the stream's very last block (where a partial
// step's spare lanes run past it). Planted, each seen to fail here: the partial step's
// buffer copied one value short, preRounds' slot 5 keyed with round 2's k1, round 8's
// two keys swapped in the Philox kernels, and the One transform of a chunk's last groups
// reading the words a group on; in the transform's kernels, a Horner step's coefficients
// swapped, its radius's FMA and its cosine's last (the c₀ step) each emitted as a
// multiply and an add, and a big mantissa's e + 1 dropped (AVX2); in the in-place split,
// a chunk's next block one short, and the last partial unit's words drawn a block on.
// Since the float32-output fills were removed: AVX2's wide stores of a block at the
// wrong offset, and splitWide ignoring its block (each seen to fail here). FillWideRows32
// (two rows, widened) is among the fills: its chunk's next block not advanced fails here.
func TestKernelsAreGosBits(t *testing.T) {
	if len(kernelPaths()) == 0 {
		t.Skip("no kernel on this CPU: the pure-Go path is the only one")
	}
	lengths := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65,
		95, 96, 97, 127, 128, 129, 191, 192, 193, 255, 256, 257, 383, 384, 385, 784, 1001, 1535, 1536, 1537, 1<<16 + 5, 1<<17 + 3}
	addrs := []address{
		{0, 0, 0, 0},
		{0x0123456789abcdef, 1<<40 + 7, 11, 5},
		{math.MaxUint64, math.MaxUint64, math.MaxUint32, 1<<31 + 3},
		{42, 7, 3, 0},
	}
	for _, n := range lengths {
		for ai, a := range addrs {
			if ai == 2 { // read up to the very last block
				a.block = uint32(uint64(MaxBlocks) - max(uint64(n+3)/4, 1))
			}
			for _, f := range fills {
				var want []uint64
				onPath(pathGo, func() { want = f.f(n, a) })
				for _, p := range kernelPaths() {
					var got []uint64
					onPath(p, func() { got = f.f(n, a) })
					if i, ok := sameBits(got, want); !ok {
						t.Fatalf("%s on %s, n %d, %+v: value %d is %#x, pure Go %#x", f.name, pathNames[p], n, a, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// The same as a property: any address, length and scale, every kernel against pure Go.
func TestKernelsAreGosBitsProperty(t *testing.T) {
	if len(kernelPaths()) == 0 {
		t.Skip("no kernel on this CPU")
	}
	rapid.Check(t, func(t *rapid.T) {
		a := address{
			seed:  rapid.Uint64().Draw(t, "seed"),
			trial: rapid.Uint64().Draw(t, "trial"),
			step:  rapid.Uint32().Draw(t, "step"),
			block: rapid.Uint32Range(0, MaxBlocks-1024).Draw(t, "block"),
		}
		n := rapid.IntRange(0, 2000).Draw(t, "n")
		sd := rapid.Float64Range(-1e3, 1e3).Draw(t, "sd")
		p := rapid.SampledFrom(kernelPaths()).Draw(t, "path")
		run := func() []float64 {
			wide := make([]float64, n)
			fillWide(wide, sd, a.seed, a.trial, a.step, a.block)
			return wide
		}
		var want, got []float64
		onPath(pathGo, func() { want = run() })
		onPath(p, func() { got = run() })
		if i, ok := sameBits(bits64(got), bits64(want)); !ok {
			t.Fatalf("wide on %s: value %d is %v, pure Go %v", pathNames[p], i, got[i], want[i])
		}
	})
}

// fillWide from block b is a slice of one long FillWide (a property, on every path):
// reading from block b gives the values a fill from block 0 puts at 4b, so a stream can
// be read from any block. Planted: fillWide starting one block late when its block is
// not 0 fails it (on every path), as does fillWideGo reading from block 0 whatever its
// block (pure Go).
func TestFillWideFromABlockIsASliceOfFillWide(t *testing.T) {
	for _, p := range paths() {
		t.Run(pathNames[p], func(t *testing.T) {
			onPath(p, func() {
				rapid.Check(t, func(t *rapid.T) {
					seed, trial := rapid.Uint64().Draw(t, "seed"), rapid.Uint64().Draw(t, "trial")
					step := rapid.Uint32().Draw(t, "step")
					b := rapid.IntRange(0, 300).Draw(t, "block")
					n := rapid.IntRange(0, 400).Draw(t, "n")
					long := make([]float64, 4*b+n)
					FillWide(long, seed, trial, step)
					at := make([]float64, n)
					fillWide(at, 1, seed, trial, step, uint32(b))
					if i, ok := sameBits(bits64(at), bits64(long[4*b:])); !ok {
						t.Fatalf("fillWide from block %d: value %d is %v, FillWide's %v", b, i, at[i], long[4*b+i])
					}
				})
			})
		})
	}
}

// FillScaledWide is sd times FillWide's values, one rounding each (a property, on every
// path). Planted: FillScaledWide's product rounded to float32 fails it (pure Go), as
// does the scale rounded to float32 before the kernels multiply (every path).
func TestFillScaledIsFillTimesSd(t *testing.T) {
	for _, p := range paths() {
		t.Run(pathNames[p], func(t *testing.T) {
			onPath(p, func() {
				rapid.Check(t, func(t *rapid.T) {
					seed, trial := rapid.Uint64().Draw(t, "seed"), rapid.Uint64().Draw(t, "trial")
					step := rapid.Uint32().Draw(t, "step")
					n := rapid.IntRange(0, 400).Draw(t, "n")
					sd := rapid.Float64Range(-1e300, 1e300).Draw(t, "sd")
					z, s := make([]float64, n), make([]float64, n)
					FillWide(z, seed, trial, step)
					FillScaledWide(s, sd, seed, trial, step)
					for i := range z {
						if math.Float64bits(s[i]) != math.Float64bits(sd*z[i]) {
							t.Fatalf("FillScaledWide(sd %v) value %d is %v, sd·FillWide's %v", sd, i, s[i], sd*z[i])
						}
					}
				})
			})
		})
	}
}

// A stream ends at block 2³²−1: fillWide reads its last block and panics one value past
// it, on every path (the exported fills, from block 0, reach it only at 2³⁴ values).
// Planted: fillWide without its checkLen fails it (the block index wraps to 0).
func TestFillAtEnd(t *testing.T) {
	z := normals32(Block(Counter(2, 3, MaxBlocks-1), Key(1)))
	want := [4]float64{float64(z[0]), float64(z[1]), float64(z[2]), float64(z[3])}
	for _, p := range paths() {
		onPath(p, func() {
			last := make([]float64, 4)
			fillWide(last, 1, 1, 2, 3, MaxBlocks-1)
			if [4]float64(last) != want {
				t.Errorf("%s: fillWide's last block = %v, want %v", pathNames[p], last, want)
			}
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: no panic past the stream's end", pathNames[p])
					}
				}()
				fillWide(make([]float64, 5), 1, 1, 2, 3, MaxBlocks-1)
			}()
		})
	}
}

// The AVX2 kernels use only what an AVX2 CPU has: the assembler accepts Y16–Y31 (and
// X16–X31) in instructions with an AVX-512VL encoding, and this CPU would run them, but an
// AVX2-only CPU would fault; and every kernel requires no more than bestPath checks for
// (avo's "Requires:" line above each function: FMA3 for the AVX2 ones, which bestPath
// checks). Planted: one AVX2 VMULPD's Y3 renamed Y17
// fails it, as does an AVX2 kernel requiring AVX512F, and an eighth kernel generated (an
// AVX2 One twin).
func TestKernelsRequireOnlyTheirPath(t *testing.T) {
	src, err := os.ReadFile("kernel_amd64.s")
	if err != nil {
		t.Fatalf("read the kernels: %v", err)
	}
	allowed := map[string]map[string]bool{
		"AVX2":   {"AVX": true, "AVX2": true, "FMA3": true},
		"AVX512": {"AVX": true, "AVX512F": true, "AVX512DQ": true},
	}
	wide := regexp.MustCompile(`\b([XY](1[6-9]|2[0-9]|3[01])|Z[0-9]+|K[0-7])\b`)
	var requires string
	fn, funcs := "", 0
	for i, line := range strings.Split(string(src), "\n") {
		if r, ok := strings.CutPrefix(line, "// Requires: "); ok {
			requires = r
			continue
		}
		if name, ok := strings.CutPrefix(line, "TEXT ·"); ok {
			fn = name[:strings.Index(name, "(")]
			funcs++
			isa := "AVX2"
			if strings.HasSuffix(fn, "AVX512") {
				isa = "AVX512"
			} else if !strings.HasSuffix(fn, "AVX2") {
				t.Fatalf("line %d: %s is neither an AVX2 nor an AVX-512 kernel", i+1, fn)
			}
			for _, f := range strings.Split(requires, ", ") {
				if !allowed[isa][f] {
					t.Errorf("%s requires %s", fn, f)
				}
			}
			requires = ""
			continue
		}
		if strings.HasSuffix(fn, "AVX2") && !strings.HasPrefix(line, "//") {
			if m := wide.FindString(line); m != "" {
				t.Errorf("line %d: %s uses %s, beyond AVX2: %s", i+1, fn, m, strings.TrimSpace(line))
			}
		}
	}
	// AVX-512: Philox, FillWide's transform and FillWideRows32's, each with its One twin;
	// AVX2: Philox and its One, the two transforms
	if funcs != 10 {
		t.Fatalf("%d kernels in kernel_amd64.s, want 10", funcs)
	}
}

// The path follows the features golang.org/x/sys/cpu reports, GODEBUG included, and
// every path it picks gives the pinned bits: in a child process with cpu.avx512f=off the
// AVX2 kernels run, with cpu.avx512dq=off too, with AVX2 and AVX-512 off pure Go, with
// cpu.all=off pure Go, with AVX-512 and FMA off pure Go (the AVX2 kernels' series are
// FMAs), and each child passes TestStreamsPinned on its path (pure Go's math.FMA in
// software where the CPU's is off). Planted: bestPath checking AVX2 before AVX-512 fails
// the unmodified case (avx2 where avx512 is wanted); bestPath not checking FMA fails the
// cpu.fma=off case (avx2 where go is wanted).
func TestGODEBUGChoosesThePath(t *testing.T) {
	if want := os.Getenv("PHILOX_WANT_PATH"); want != "" {
		if got := pathNames[path]; got != want {
			t.Fatalf("GODEBUG=%q: path %s, want %s", os.Getenv("GODEBUG"), got, want)
		}
		return
	}
	if runtime.GOARCH != "amd64" || !cpu.X86.HasAVX2 {
		t.Skip("no kernels to turn off on this machine")
	}
	cases := []struct{ godebug, want string }{
		{"cpu.avx512f=off", "avx2"},
		{"cpu.avx512dq=off", "avx2"},
		{"cpu.avx512f=off,cpu.avx2=off", "go"},
		{"cpu.avx512f=off,cpu.fma=off", "go"},
		{"cpu.all=off", "go"},
	}
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ {
		cases = append(cases, struct{ godebug, want string }{"", "avx512"})
	}
	for _, c := range cases {
		cmd := exec.Command(os.Args[0], "-test.run=^(TestGODEBUGChoosesThePath|TestStreamsPinned)$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "GODEBUG="+c.godebug, "PHILOX_WANT_PATH="+c.want)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("GODEBUG=%q: %v\n%s", c.godebug, err, out)
			continue
		}
		if !strings.Contains(string(out), "--- PASS: TestStreamsPinned") {
			t.Errorf("GODEBUG=%q: TestStreamsPinned did not run:\n%s", c.godebug, out)
		}
	}
}

// Filling allocates nothing on any path, whole steps and a partial last one alike: the
// engine fills every run's noise at every step. Planted: the kernels' whole-step and
// partial-step calls routed through one generic helper taking the kernel as a func value
// (the stack buffer then escapes: one 512-byte allocation a call), and this fails; so
// does the last partial unit's buffer stored to a package variable (one a call).
func TestFillDoesNotAllocate(t *testing.T) {
	d64 := make([]float64, 784) // 784 = 24 AVX-512 steps + 16; 1001 ends mid-step too
	dw := make([]float64, 1001)
	seeds := make([]uint64, 32)
	rows := make([]float32, 32*784)
	for _, p := range paths() {
		onPath(p, func() {
			for _, c := range []struct {
				name string
				f    func()
			}{
				{"FillWide 1001", func() { FillWide(dw, 1, 2, 3) }},
				{"fillWide from block 5", func() { fillWide(dw, 1, 1, 2, 3, 5) }},
				{"FillScaledWide", func() { FillScaledWide(d64, 0.3, 1, 2, 3) }},
				{"FillScaledWide 1001", func() { FillScaledWide(dw, 0.3, 1, 2, 3) }},
				{"FillWideRows32 32 × 784", func() { FillWideRows32(rows, 784, seeds, 2, 3) }},
			} {
				if n := testing.AllocsPerRun(20, c.f); n != 0 {
					t.Errorf("%s, path %s: %v allocations a call", c.name, pathNames[p], n)
				}
			}
		})
	}
}

// edgeWords are words where the float32 transform's reduction turns: for the radius's
// word, 0, the powers of two and their neighbours (the exponent), the first words whose
// mantissa is above √2 and their neighbours (the halving), and the largest; for the
// angle's, the quarter turns' edges (k and the sign of f) and their neighbours. cut is
// the 129 words about each √2 cut: there the two reductions give the same radius but
// for its rounding, 2 % to 68 % of words apart (measured), so a cut a few words off
// shows only over many.
func edgeWords() (radius, angle, cut []uint32) {
	radius = []uint32{0, 1, 2, 3, 4, 5, 6, 7, math.MaxUint32, math.MaxUint32 - 1, 0x5A827999, 0xB504F333, 0xB504F334}
	for e := range 32 {
		p := uint32(1) << e
		t := uint32(math.Ceil(math.Sqrt2*float64(p) - 0.5)) // about the first a + ½ above √2·2^e
		for _, d := range []uint32{0, 1, 2} {
			radius = append(radius, p+d, p-d, t+d, t-d)
		}
		radius = append(radius, p|p>>24|1, p|p>>25, p|p>>23) // the conversion's ties, near them
		for d := -64; d <= 64; d++ {
			if a := int64(t) + int64(d); a >= int64(p) && a < 2*int64(p) {
				cut = append(cut, uint32(a))
			}
		}
	}
	for q := range uint32(8) {
		for _, d := range []uint32{0, 1, 2, math.MaxUint32, math.MaxUint32 - 1, 1 << 28} {
			angle = append(angle, q<<29+d)
		}
	}
	return radius, angle, cut
}

// The float32 transform's kernels give normals32's bits (widened, times sd in float64)
// for every pair of an edge word of the radius and one of the angle, fed to them
// directly as a chunk's words (each word's high half junk, which they must not read), in
// whole steps and through the One kernels: random streams seldom reach a word of 0, an
// exponent's edge or the √2 cut. Planted, each seen to fail here: a = 0 not given
// E = −1 (AVX-512), AVX2's exponent of the word's top bits one short, the cut 2⁻²⁴ low
// (0x100 off in 32 fraction bits, AVX-512 and AVX2), the halving of a big mantissa
// dropped, the odd quadrant's cosine not negated, a Horner step's coefficients swapped,
// the radius's FMA emitted as a multiply and an add; the cut moved up by 2⁻²⁸ is not
// seen (the 8 words it moves get the same radius either way: both reductions are
// within their series' ranges there), and ≥ for > is no change at all (frac is never
// the odd cut ⌊(√2 − 1)·2³²⌋ exactly). Since the float32-output kernels were removed
// (their outputs were checked here beside the wide ones'): the odd quadrant's cosine
// not negated, seen to fail here on the wide kernels alone.
func TestFloat32KernelsOnEdgeWords(t *testing.T) {
	if len(kernelPaths()) == 0 {
		t.Skip("no kernel on this CPU")
	}
	ra, an, cut := edgeWords()
	var blocks [][4]uint32
	for i, a := range ra {
		for j, b := range an {
			c := ra[(i*7+j)%len(ra)] // the second pair: other edge words
			d := an[(i+j*3)%len(an)]
			blocks = append(blocks, [4]uint32{a, b, c, d})
		}
	}
	for i := 0; i+1 < len(cut); i += 2 {
		blocks = append(blocks, [4]uint32{cut[i], an[i%len(an)], cut[i+1], an[(i+1)%len(an)]})
	}
	for len(blocks)%chunkBlocks != 0 {
		blocks = append(blocks, blocks[len(blocks)%97])
	}
	for _, p := range kernelPaths() {
		onPath(p, func() {
			group, _, unit, units := shape()
			for _, sd := range []float64{1, -0.37} {
				for c := 0; c < len(blocks); c += chunkBlocks {
					var words [4 * chunkBlocks]uint64
					for i, w := range blocks[c : c+chunkBlocks] {
						r, l := i/group, i%group
						for j := range 4 {
							words[4*group*r+group*j+l] = uint64(w[j]) | (0xDEAD0000+uint64(i))<<32
						}
					}
					for _, one := range []bool{false, true} {
						steps := chunkBlocks / unit
						if !one {
							steps /= units
						}
						var wide [4 * chunkBlocks]float64
						transform(&wide[0], &words[0], steps, sd, one)
						var narrow [4*chunkBlocks + 1]float32
						narrow[4*chunkBlocks] = 7 // past the steps' values: left alone
						transform(&narrow[0], &words[0], steps, 0, one)
						for i, w := range blocks[c : c+chunkBlocks] {
							z := normals32(w)
							for j := range 4 {
								if want := sd * float64(z[j]); math.Float64bits(wide[4*i+j]) != math.Float64bits(want) {
									t.Fatalf("%s wide, one %v, sd %v: words %#x, value %d is %v, normals32 %v", pathNames[p], one, sd, w, j, wide[4*i+j], want)
								}
								if math.Float32bits(narrow[4*i+j]) != math.Float32bits(z[j]) {
									t.Fatalf("%s float32, one %v: words %#x, value %d is %v, normals32 %v", pathNames[p], one, w, j, narrow[4*i+j], z[j])
								}
							}
						}
						if narrow[4*chunkBlocks] != 7 {
							t.Fatalf("%s float32, one %v: wrote past its %d steps", pathNames[p], one, steps)
						}
					}
				}
			}
		})
	}
	t.Logf("%d blocks of edge words on %d kernel paths", len(blocks), len(kernelPaths()))
}

// With PHILOX_EXHAUSTIVE=1, the float32 transform's kernels on every word: each 32-bit
// word is a radius's word and an angle's once (blocks (w, w, w+1, w+1)), every kernel
// path against normals32, widened and scaled, and FillWideRows32's float32 kernels
// (450 s of one core for AVX-512 and AVX2: not run by default; it passed when the
// kernels were written, and when the float32 ones were added).
// TestFloat32KernelsOnEdgeWords is its quick stand-in. Planted: AVX2's exponent of a
// word's top bits not raised by 8 fails it at its first chunk.
func TestFloat32KernelsExhaustive(t *testing.T) {
	if os.Getenv("PHILOX_EXHAUSTIVE") == "" {
		t.Skip("set PHILOX_EXHAUSTIVE=1 to check every word")
	}
	if len(kernelPaths()) == 0 {
		t.Skip("no kernel on this CPU")
	}
	const sd = -0.37
	var want [chunkBlocks][4]float32
	bad := 0
	for base := uint64(0); base < 1<<32; base += 2 * chunkBlocks {
		for i := range chunkBlocks {
			w := uint32(base) + uint32(2*i)
			want[i] = normals32([4]uint32{w, w, w + 1, w + 1})
		}
		for _, p := range kernelPaths() {
			onPath(p, func() {
				group, _, unit, units := shape()
				var words [4 * chunkBlocks]uint64
				for i := range chunkBlocks {
					w := uint32(base) + uint32(2*i)
					r, l := i/group, i%group
					for j, x := range [4]uint32{w, w, w + 1, w + 1} {
						words[4*group*r+group*j+l] = uint64(x) | 0xFFFFFFFF<<32
					}
				}
				var wide [4 * chunkBlocks]float64
				transform(&wide[0], &words[0], chunkBlocks/unit/units, sd, false)
				var narrow [4 * chunkBlocks]float32
				transform(&narrow[0], &words[0], chunkBlocks/unit/units, 0, false)
				for i := range chunkBlocks {
					for j := range 4 {
						z := want[i][j]
						if math.Float64bits(wide[4*i+j]) != math.Float64bits(sd*float64(z)) || math.Float32bits(narrow[4*i+j]) != math.Float32bits(z) {
							t.Errorf("%s: word %#x, value %d: %v (float32 %v), normals32 %v", pathNames[p], uint32(base)+uint32(2*i), j, wide[4*i+j], narrow[4*i+j], z)
							if bad++; bad == 10 {
								t.FailNow()
							}
						}
					}
				}
			})
		}
	}
	if bad > 0 {
		t.Fatalf("%d values differ", bad)
	}
}

// FillWideRows32's rows widened are FillWide's bits for their streams, and times sd
// FillScaledWide's (a property, on every path): d from 0 to 300 crosses every size of a
// row's partial unit on both kernels (0 to 63 values on AVX-512, 0 to 31 on AVX2), 784
// is the engine's, and k up to 70 rows the batches of partial units (at d = 784, 16
// rows' groups of 32 words fill the gathering buffer); values past the rows are left
// alone. Planted, each seen to fail: a row's partial unit read from its block 0 (not
// after its whole units), the gathered words a quadword out of place, the last batch's
// rows skipped, the gathered values copied from a row's place at rest (not slots) values
// a row, a chunk's next block not advanced (d = 784 is one chunk of words; d from 1530
// is two), and pure Go's rows all drawn from the first seed.
func TestFillWideRows32IsFillWide(t *testing.T) {
	for _, p := range paths() {
		t.Run(pathNames[p], func(t *testing.T) {
			onPath(p, func() {
				rapid.Check(t, func(t *rapid.T) {
					k := rapid.IntRange(0, 70).Draw(t, "k")
					d := rapid.OneOf(rapid.IntRange(0, 300), rapid.Just(784), rapid.IntRange(1530, 3200)).Draw(t, "d")
					trial := rapid.Uint64().Draw(t, "trial")
					step := rapid.Uint32().Draw(t, "step")
					sd := rapid.Float64Range(-2, 2).Draw(t, "sd")
					seeds := make([]uint64, k)
					for i := range seeds {
						seeds[i] = rapid.Uint64().Draw(t, "seed")
					}
					got := make([]float32, k*d+3)
					got[k*d], got[k*d+1], got[k*d+2] = 1, 2, 3 // past the rows: left alone
					FillWideRows32(got, d, seeds, trial, step)
					wide, scaled := make([]float64, d), make([]float64, d)
					for r, seed := range seeds {
						FillWide(wide, seed, trial, step)
						FillScaledWide(scaled, sd, seed, trial, step)
						for i, z := range got[r*d : (r+1)*d] {
							if math.Float64bits(float64(z)) != math.Float64bits(wide[i]) {
								t.Fatalf("row %d of %d (d = %d): value %d is %v, FillWide's %v", r, k, d, i, z, wide[i])
							}
							if math.Float64bits(sd*float64(z)) != math.Float64bits(scaled[i]) {
								t.Fatalf("row %d of %d (d = %d): value %d times %v is %v, FillScaledWide's %v", r, k, d, i, sd, sd*float64(z), scaled[i])
							}
						}
					}
					if got[k*d] != 1 || got[k*d+1] != 2 || got[k*d+2] != 3 {
						t.Fatalf("values past the %d rows changed: %v", k, got[k*d:])
					}
				})
			})
		})
	}
}
