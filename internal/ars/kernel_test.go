package ars

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

// A route is the kernels a fill runs: a transform path and a words path.
type route struct{ path, ars int }

func (r route) String() string { return pathNames[r.path] + "/" + arsNames[r.ars] }

// paths is every transform path this process can run, pure Go first.
func paths() []int {
	ps := []int{pathGo}
	if bestPath() >= pathAVX2 {
		ps = append(ps, pathAVX2)
	}
	if bestPath() == pathAVX512 {
		ps = append(ps, pathAVX512)
	}
	return ps
}

// arsPaths is every words path this process can run, pure Go first.
func arsPaths() []int {
	ps := []int{arsGo}
	if bestARS() >= arsAESNI {
		ps = append(ps, arsAESNI)
	}
	if bestARS() == arsVAES {
		ps = append(ps, arsVAES)
	}
	return ps
}

// routes is every pair of them, all pure Go first; kernelRoutes is routes without it:
// the ones compared against it.
func routes() []route {
	var rs []route
	for _, p := range paths() {
		for _, a := range arsPaths() {
			rs = append(rs, route{p, a})
		}
	}
	return rs
}

func kernelRoutes() []route { return routes()[1:] }

// onRoute runs f with the paths forced to r's.
func onRoute(r route, f func()) {
	oldP, oldA := path, arsPath
	path, arsPath = r.path, r.ars
	defer func() { path, arsPath = oldP, oldA }()
	f()
}

// checkOnRoutes runs the property on every route, a subtest each.
func checkOnRoutes(t *testing.T, prop func(*rapid.T)) {
	for _, r := range routes() {
		t.Run(r.String(), func(t *testing.T) { onRoute(r, func() { rapid.Check(t, prop) }) })
	}
}

// pureGo is the route of neither kernel.
var pureGo = route{pathGo, arsGo}

// address is one stream and the group to start reading it from.
type address struct {
	seed, trial uint64
	step, group uint32
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
	{"FillWideAt", func(n int, a address) []uint64 { // FillWide has no At: fillWide's group
		x := make([]float64, n)
		fillWide(x, -1.3, a.seed, a.trial, a.step, a.group)
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

// Every route of kernels gives pure Go's bits, value by value, for every filling
// function, at lengths around the kernels' groups and steps (a group of 32 values; the
// AVX-512 transform's steps of 4 groups, 128 values; VAES's of 4 groups; the 48-group
// chunks: 1536 values) and past 2¹⁶, at addresses with every word set, and read
// (fillWide from a group) up to the stream's very last group. Planted, each seen to fail
// here: in the words kernels, the block's index not xored into its lanes' word 0, the
// counter's step one register short, the last round a full round (MixColumns), a round
// key off by one round; in the transform's, a Horner step's coefficients swapped, the
// chains' angle words read a lane on; in the Go, the words written to the front half of
// a chunk (the values then overwrite words not yet read). (The Go's chunk or partial
// group drawn from the wrong block is the same on every route: TestLayout,
// TestStreamsPinned and TestFillWideFromAGroupIsASliceOfFillWide catch those.)
func TestKernelsAreGosBits(t *testing.T) {
	if len(kernelRoutes()) == 0 {
		t.Skip("no kernel on this CPU: the pure-Go path is the only one")
	}
	lengths := []int{0, 1, 2, 3, 4, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 95, 96, 97,
		127, 128, 129, 159, 160, 161, 255, 256, 257, 511, 512, 513, 784, 1001, 1535, 1536, 1537,
		3071, 3072, 3073, 1<<16 + 5, 1<<17 + 3}
	addrs := []address{
		{0, 0, 0, 0},
		{0x0123456789abcdef, 1<<40 + 7, 11, 5},
		{math.MaxUint64, math.MaxUint64, math.MaxUint32, 1<<28 + 3},
		{42, 7, 3, 0},
	}
	for _, n := range lengths {
		for ai, a := range addrs {
			if ai == 2 { // read up to the very last group
				a.group = uint32(uint64(maxGroups) - max(uint64(n+groupValues-1)/groupValues, 1))
			}
			for _, f := range fills {
				var want []uint64
				onRoute(pureGo, func() { want = f.f(n, a) })
				for _, r := range kernelRoutes() {
					var got []uint64
					onRoute(r, func() { got = f.f(n, a) })
					if i, ok := sameBits(got, want); !ok {
						t.Fatalf("%s on %s, n %d, %+v: value %d is %#x, pure Go %#x", f.name, r, n, a, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// The same as a property: any address, length and scale, every route against pure Go.
func TestKernelsAreGosBitsProperty(t *testing.T) {
	if len(kernelRoutes()) == 0 {
		t.Skip("no kernel on this CPU")
	}
	rapid.Check(t, func(t *rapid.T) {
		a := address{
			seed:  rapid.Uint64().Draw(t, "seed"),
			trial: rapid.Uint64().Draw(t, "trial"),
			step:  rapid.Uint32().Draw(t, "step"),
			group: rapid.Uint32Range(0, maxGroups-128).Draw(t, "group"),
		}
		n := rapid.IntRange(0, 2000).Draw(t, "n")
		sd := rapid.Float64Range(-1e3, 1e3).Draw(t, "sd")
		r := rapid.SampledFrom(kernelRoutes()).Draw(t, "route")
		run := func() []float64 {
			wide := make([]float64, n)
			fillWide(wide, sd, a.seed, a.trial, a.step, a.group)
			return wide
		}
		var want, got []float64
		onRoute(pureGo, func() { want = run() })
		onRoute(r, func() { got = run() })
		if i, ok := sameBits(bits64(got), bits64(want)); !ok {
			t.Fatalf("wide on %s: value %d is %v, pure Go %v", r, i, got[i], want[i])
		}
	})
}

// Each words kernel writes Block's words: the blocks of a stream from any block on, in
// block order, against Block at the stream's rounds (roundKeys folds the key, the counter
// and the schedule; this holds it to Block's), for counts of groups around the VAES
// kernel's step of 4, with the words past them left alone. Planted, each seen to fail
// here: roundKeys' rk[0] without the step, its round keys one Weyl step late, the VAES
// kernel's lanes' block indices 0 1 2 3 shifted by one.
func TestWordsAreBlocks(t *testing.T) {
	const seed, trial, step = 0x0123456789abcdef, 0xfedcba9876543210, 0x5eed
	rk := roundKeys(seed, trial, step)
	for _, a := range arsPaths() {
		for _, groups := range []int{1, 2, 3, 4, 5, 7, 8, 9, 13} {
			for _, block := range []uint32{0, 8, 1 << 20, uint32(uint64(MaxBlocks) - uint64(GroupBlocks*groups))} {
				w := make([]uint32, groupValues*groups+4)
				for i := range w {
					w[i] = 0xDEADBEEF
				}
				onRoute(route{pathGo, a}, func() { streamWords(w, groups, block, &rk) })
				for b := range GroupBlocks * groups {
					want := Block(Counter(trial, step, block+uint32(b)), Key(seed), StreamRounds)
					if got := [4]uint32(w[4*b:]); got != want {
						t.Fatalf("%s, %d groups from block %d: block %d is %08x, Block's %08x", arsNames[a], groups, block, b, got, want)
					}
				}
				if [4]uint32(w[groupValues*groups:]) != [4]uint32{0xDEADBEEF, 0xDEADBEEF, 0xDEADBEEF, 0xDEADBEEF} {
					t.Fatalf("%s, %d groups: wrote past them", arsNames[a], groups)
				}
			}
		}
	}
}

// fillWide from group g is a slice of one long FillWide (a property, on every route):
// reading from group g gives the values a fill from group 0 puts at 32g, so a stream can
// be read from any group. Planted: fillWide starting one block late when its group is
// not 0 fails it (on every route).
func TestFillWideFromAGroupIsASliceOfFillWide(t *testing.T) {
	checkOnRoutes(t, func(t *rapid.T) {
		seed, trial := rapid.Uint64().Draw(t, "seed"), rapid.Uint64().Draw(t, "trial")
		step := rapid.Uint32().Draw(t, "step")
		g := rapid.IntRange(0, 80).Draw(t, "group")
		n := rapid.IntRange(0, 400).Draw(t, "n")
		long := make([]float64, groupValues*g+n)
		FillWide(long, seed, trial, step)
		at := make([]float64, n)
		fillWide(at, 1, seed, trial, step, uint32(g))
		if i, ok := sameBits(bits64(at), bits64(long[groupValues*g:])); !ok {
			t.Fatalf("fillWide from group %d: value %d is %v, FillWide's %v", g, i, at[i], long[groupValues*g+i])
		}
	})
}

// FillScaledWide is sd times FillWide's values, one rounding each (a property, on every
// route). Planted: FillScaledWide's product rounded to float32 fails it (pure Go), as
// does the scale rounded to float32 before the kernels multiply (every kernel route).
func TestFillScaledIsFillTimesSd(t *testing.T) {
	checkOnRoutes(t, func(t *rapid.T) {
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
}

// groupAt is the 32 normals of a stream's group g, from Block and the transform directly.
func groupAt(seed, trial uint64, step, g uint32) [groupValues]float32 {
	var w [groupValues]uint32
	for b := range uint32(GroupBlocks) {
		x := Block(Counter(trial, step, GroupBlocks*g+b), Key(seed), StreamRounds)
		copy(w[4*b:], x[:])
	}
	return pairNormals(&w)
}

// A stream ends at its group 2²⁹−1 (block 2³²−1): fillWide reads its last group and
// panics one value past it, on every route (the exported fills, from group 0, reach it
// only at 2³⁴ values). Planted: fillWide without its checkLen fails it (the block index
// wraps to 0).
func TestFillAtEnd(t *testing.T) {
	z := groupAt(1, 2, 3, maxGroups-1)
	for _, r := range routes() {
		onRoute(r, func() {
			last := make([]float64, groupValues)
			fillWide(last, 1, 1, 2, 3, maxGroups-1)
			for i, x := range z {
				if last[i] != float64(x) {
					t.Errorf("%s: fillWide's last group value %d = %v, want %v", r, i, last[i], x)
				}
			}
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: no panic past the stream's end", r)
					}
				}()
				fillWide(make([]float64, groupValues+1), 1, 1, 2, 3, maxGroups-1)
			}()
		})
	}
}

// The AVX2 kernels and the AES-NI words kernel use only what their CPUs have: the
// assembler accepts Y16–Y31 (and X16–X31) in instructions with an AVX-512VL encoding,
// and this CPU would run them, but an AVX2-only CPU would fault; and every kernel
// requires no more than bestPath or bestARS checks for (avo's "Requires:" line above
// each function: FMA3 for the AVX2 ones; AES and AVX for wordsAES; VAES and AVX-512 F
// for wordsVAES). Planted: one AVX2 VMULPD's Y3 renamed Y17 fails it, as does an AVX2
// kernel requiring AVX512F, and a ninth kernel generated.
func TestKernelsRequireOnlyTheirPath(t *testing.T) {
	src, err := os.ReadFile("kernel_amd64.s")
	if err != nil {
		t.Fatalf("read the kernels: %v", err)
	}
	allowed := map[string]map[string]bool{
		"AVX2":   {"AVX": true, "AVX2": true, "FMA3": true},
		"AVX512": {"AVX": true, "AVX512F": true, "AVX512DQ": true},
		"AES":    {"AVX": true, "AES": true},
		"VAES":   {"AVX": true, "AVX512F": true, "VAES": true},
	}
	narrow := map[string]bool{"AVX2": true, "AES": true}
	wide := regexp.MustCompile(`\b([XY](1[6-9]|2[0-9]|3[01])|Z[0-9]+|K[0-7])\b`)
	var requires string
	fn, kind, funcs := "", "", 0
	for i, line := range strings.Split(string(src), "\n") {
		if r, ok := strings.CutPrefix(line, "// Requires: "); ok {
			requires = r
			continue
		}
		if name, ok := strings.CutPrefix(line, "TEXT ·"); ok {
			fn = name[:strings.Index(name, "(")]
			funcs++
			kind = ""
			for _, k := range []string{"AVX512", "AVX2", "VAES", "AES"} {
				if strings.HasSuffix(fn, k) {
					kind = k
					break
				}
			}
			if kind == "" {
				t.Fatalf("line %d: %s is none of the kernels' kinds", i+1, fn)
			}
			for _, f := range strings.Split(requires, ", ") {
				if !allowed[kind][f] {
					t.Errorf("%s requires %s", fn, f)
				}
			}
			requires = ""
			continue
		}
		if narrow[kind] && !strings.HasPrefix(line, "//") {
			if m := wide.FindString(line); m != "" {
				t.Errorf("line %d: %s uses %s, beyond its CPU: %s", i+1, fn, m, strings.TrimSpace(line))
			}
		}
	}
	// the two words kernels; AVX-512: FillWide's transform and FillWideRows32's, each
	// with its One twin; AVX2: the two transforms
	if funcs != 8 {
		t.Fatalf("%d kernels in kernel_amd64.s, want 8", funcs)
	}
}

// The paths follow the features golang.org/x/sys/cpu reports, GODEBUG included, and
// every route they pick gives the pinned bits: in a child process with cpu.avx512f=off
// the AVX2 transform and AES-NI's words run, with cpu.avx512vaes=off the AVX-512
// transform and AES-NI, with AES off too the AVX-512 transform and Go's words, with
// AVX2 and AVX-512 off pure Go's transform and AES-NI, with cpu.all=off pure Go, with
// AVX-512 and FMA off pure Go's transform (the AVX2 kernels' series are FMAs), and each
// child passes TestStreamsPinned on its route (pure Go's fma32 in software). Planted:
// bestPath checking AVX2 before AVX-512 fails the unmodified case; bestPath not
// checking FMA fails the cpu.fma=off case; bestARS not checking AVX-512 F fails the
// cpu.avx512f=off case (vaes where aes is wanted).
func TestGODEBUGChoosesThePath(t *testing.T) {
	if want := os.Getenv("ARS_WANT_ROUTE"); want != "" {
		if got := (route{path, arsPath}).String(); got != want {
			t.Fatalf("GODEBUG=%q: route %s, want %s", os.Getenv("GODEBUG"), got, want)
		}
		return
	}
	if runtime.GOARCH != "amd64" || !cpu.X86.HasAVX2 || !cpu.X86.HasAES {
		t.Skip("no kernels to turn off on this machine")
	}
	if g := os.Getenv("GODEBUG"); strings.Contains(g, "cpu.") {
		// The expectations come from this process's features, which g has already cut,
		// while each case's GODEBUG replaces g in its child.
		t.Skipf("GODEBUG=%q turns CPU features off here: the cases set their own", g)
	}
	cases := []struct{ godebug, want string }{
		{"cpu.avx512f=off", "avx2/aes"},
		{"cpu.avx512f=off,cpu.avx2=off", "go/aes"},
		{"cpu.avx512f=off,cpu.fma=off", "go/aes"},
		{"cpu.avx512f=off,cpu.aes=off", "avx2/go"},
		{"cpu.all=off", "go/go"},
	}
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ {
		top := "avx512/aes"
		if cpu.X86.HasAVX512VAES {
			top = "avx512/vaes"
			cases = append(cases,
				struct{ godebug, want string }{"cpu.avx512vaes=off", "avx512/aes"},
				struct{ godebug, want string }{"cpu.avx512vaes=off,cpu.aes=off", "avx512/go"})
		}
		cases = append(cases, struct{ godebug, want string }{"", top})
	}
	for _, c := range cases {
		cmd := exec.Command(os.Args[0], "-test.run=^(TestGODEBUGChoosesThePath|TestStreamsPinned)$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "GODEBUG="+c.godebug, "ARS_WANT_ROUTE="+c.want)
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

// Filling allocates nothing on any route, whole steps and a partial last one alike: the
// engine fills every run's noise at every step. Planted: the last partial group's buffer
// stored to a package variable (one allocation a call) fails it.
func TestFillDoesNotAllocate(t *testing.T) {
	d64 := make([]float64, 784) // 784 = 24 groups + 16; 1001 ends mid-group too
	dw := make([]float64, 1001)
	seeds := make([]uint64, 32)
	rows := make([]float32, 32*784)
	for _, r := range routes() {
		onRoute(r, func() {
			for _, c := range []struct {
				name string
				f    func()
			}{
				{"FillWide 1001", func() { FillWide(dw, 1, 2, 3) }},
				{"fillWide from group 5", func() { fillWide(dw, 1, 1, 2, 3, 5) }},
				{"FillScaledWide", func() { FillScaledWide(d64, 0.3, 1, 2, 3) }},
				{"FillScaledWide 1001", func() { FillScaledWide(dw, 0.3, 1, 2, 3) }},
				{"FillWideRows32 32 × 784", func() { FillWideRows32(rows, 784, seeds, 2, 3) }},
			} {
				if n := testing.AllocsPerRun(20, c.f); n != 0 {
					t.Errorf("%s, route %s: %v allocations a call", c.name, r, n)
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

// The float32 transform's kernels give pairNormals' bits (widened, times sd in
// float64, or float32) for every pair of an edge word of the radius and one of the
// angle, fed to them directly as a chunk's words, in whole steps and through the One
// kernels: random streams seldom reach a word of 0, an exponent's edge or the √2 cut.
// Planted, each seen to fail here when the kernels were written (stream v2's layout,
// the same arithmetic): a = 0 not given E = −1 (AVX-512), AVX2's exponent of the word's
// top bits one short, the cut 2⁻²⁴ low (0x100 off in 32 fraction bits, AVX-512 and
// AVX2), the halving of a big mantissa dropped, the odd quadrant's cosine not negated,
// a Horner step's coefficients swapped, the radius's FMA emitted as a multiply and an
// add; the cut moved up by 2⁻²⁸ is not seen (the 8 words it moves get the same radius
// either way: both reductions are within their series' ranges there), and ≥ for > is
// no change at all (frac is never the odd cut ⌊(√2 − 1)·2³²⌋ exactly). Under stream v3
// (pair layout): the odd quadrant's cosine not negated, seen to fail here.
func TestFloat32KernelsOnEdgeWords(t *testing.T) {
	if len(paths()) < 2 {
		t.Skip("no transform kernel on this CPU")
	}
	ra, an, cut := edgeWords()
	type pair struct{ a, b uint32 }
	var ps []pair
	for _, a := range ra {
		for _, b := range an {
			ps = append(ps, pair{a, b})
		}
	}
	for i := range cut {
		ps = append(ps, pair{cut[i], an[i%len(an)]})
	}
	const chunk = chunkGroups * groupValues / 2 // pairs a chunk
	for len(ps)%chunk != 0 {
		ps = append(ps, ps[len(ps)%97])
	}
	for _, p := range paths()[1:] {
		onRoute(route{p, arsGo}, func() {
			for _, sd := range []float64{1, -0.37} {
				for c := 0; c < len(ps); c += chunk {
					var words [chunkGroups * groupValues]uint32
					for i, q := range ps[c : c+chunk] {
						g, l := i/16, i%16
						words[groupValues*g+l], words[groupValues*g+16+l] = q.a, q.b
					}
					for _, one := range []bool{false, true} {
						var wide [chunkGroups * groupValues]float64
						var narrow [chunkGroups*groupValues + 1]float32
						narrow[chunkGroups*groupValues] = 7 // past the groups' values: left alone
						if one && p == pathAVX512 {
							pairWideOneAVX512(&wide[0], &words[0], chunkGroups, sd)
							pair32OneAVX512(&narrow[0], &words[0], chunkGroups)
						} else {
							pairs(wide[:], words[:], chunkGroups, sd)
							pairs(narrow[:chunkGroups*groupValues], words[:], chunkGroups, 0)
						}
						for i, q := range ps[c : c+chunk] {
							g, l := i/16, i%16
							r := radius32(q.a)
							s, co := sinCos32(q.b)
							for h, z := range [2]float32{r * co, r * s} {
								at := groupValues*g + 16*h + l
								if want := sd * float64(z); math.Float64bits(wide[at]) != math.Float64bits(want) {
									t.Fatalf("%s wide, one %v, sd %v: words %#x %#x, value %d is %v, the transform's %v", pathNames[p], one, sd, q.a, q.b, h, wide[at], want)
								}
								if math.Float32bits(narrow[at]) != math.Float32bits(z) {
									t.Fatalf("%s float32, one %v: words %#x %#x, value %d is %v, the transform's %v", pathNames[p], one, q.a, q.b, h, narrow[at], z)
								}
							}
						}
						if narrow[chunkGroups*groupValues] != 7 {
							t.Fatalf("%s float32, one %v: wrote past its groups", pathNames[p], one)
						}
					}
				}
			}
		})
	}
	t.Logf("%d pairs of edge words on %d transform kernels", len(ps), len(paths())-1)
}

// With ARS_EXHAUSTIVE=1, the float32 transform's kernels on every word: each 32-bit word
// is a radius's word and an angle's once (pairs (w, w) and (w+1, w+1)... every word w as
// both a and b), every transform kernel against pairNormals, widened and scaled, and
// float32 (about 450 s of one core for AVX-512 and AVX2: not run by default; it passed
// when the kernels were written, under stream v2's layout and again under v3's).
// TestFloat32KernelsOnEdgeWords is its quick stand-in. Planted: AVX2's exponent of a
// word's top bits not raised by 8 fails it at its first chunk.
func TestFloat32KernelsExhaustive(t *testing.T) {
	if os.Getenv("ARS_EXHAUSTIVE") == "" {
		t.Skip("set ARS_EXHAUSTIVE=1 to check every word")
	}
	if len(paths()) < 2 {
		t.Skip("no transform kernel on this CPU")
	}
	const sd = -0.37
	const n = chunkGroups * groupValues
	var want [n]float32
	bad := 0
	for base := uint64(0); base < 1<<32; base += n / 2 {
		var words [n]uint32
		for i := range n / 2 {
			w := uint32(base) + uint32(i)
			g, l := i/16, i%16
			words[groupValues*g+l], words[groupValues*g+16+l] = w, w
		}
		for g := range chunkGroups {
			z := pairNormals((*[groupValues]uint32)(words[groupValues*g:]))
			copy(want[groupValues*g:], z[:])
		}
		for _, p := range paths()[1:] {
			onRoute(route{p, arsGo}, func() {
				var wide [n]float64
				pairs(wide[:], words[:], chunkGroups, sd)
				var narrow [n]float32
				pairs(narrow[:], words[:], chunkGroups, 0)
				for i, z := range want {
					if math.Float64bits(wide[i]) != math.Float64bits(sd*float64(z)) || math.Float32bits(narrow[i]) != math.Float32bits(z) {
						t.Errorf("%s: value %d of words from %#x: %v (float32 %v), pairNormals %v", pathNames[p], i, base, wide[i], narrow[i], z)
						if bad++; bad == 10 {
							t.FailNow()
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
// FillScaledWide's (a property, on every route): d from 0 to 300 crosses every size of a
// row's partial group (0 to 31 values) and of its whole groups against the AVX-512
// kernel's steps of 4, 784 is the engine's, and k up to 70 rows the batches of partial
// groups (32 rows' groups fill the gathering buffer); values past the rows are left
// alone. Planted, each seen to fail: a row's partial group read from its block 0 (not
// after its whole groups), the last batch's rows skipped, the gathered values copied
// from a row's place at rest (not 32) values a row, a chunk's next block not advanced
// (d from 1600 is two chunks), and pure Go's rows all drawn from the first seed.
func TestFillWideRows32IsFillWide(t *testing.T) {
	checkOnRoutes(t, func(t *rapid.T) {
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
}
