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

// fills are every filling function, each writing n values at an address as float64 bits
// (float32's widened exactly), so that one comparison serves them all.
var fills = []struct {
	name string
	f    func(n int, a address) []uint64
}{
	{"Fill", func(n int, a address) []uint64 {
		x := make([]float64, n)
		Fill(x, a.seed, a.trial, a.step)
		return bits64(x)
	}},
	{"FillAt", func(n int, a address) []uint64 {
		x := make([]float64, n)
		FillAt(x, a.seed, a.trial, a.step, a.block)
		return bits64(x)
	}},
	{"FillScaled", func(n int, a address) []uint64 {
		x := make([]float64, n)
		FillScaled(x, 0.37, a.seed, a.trial, a.step)
		return bits64(x)
	}},
	{"Fill32", func(n int, a address) []uint64 {
		x := make([]float32, n)
		Fill32(x, a.seed, a.trial, a.step)
		return bits32(x)
	}},
	{"FillAt32", func(n int, a address) []uint64 {
		x := make([]float32, n)
		FillAt32(x, a.seed, a.trial, a.step, a.block)
		return bits32(x)
	}},
	{"FillScaled32", func(n int, a address) []uint64 {
		x := make([]float32, n)
		FillScaled32(x, 0.37, a.seed, a.trial, a.step)
		return bits32(x)
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
// lengths around the kernels' groups and steps (AVX2's groups of 4 blocks: 8 float64 or
// 16 float32 values; AVX-512's of 8: 16 or 32; their transform and Philox steps up to 48
// blocks, and the 96-block chunks: 192 float64 or 384 float32 values) and past 2¹⁶, at
// addresses with every word set, and read from blocks up to the stream's end (where a
// partial step's spare lanes run past it). Planted, each seen to fail here: one lane's
// quadrant turned the wrong way (AVX-512 and AVX2 alike), the partial step's buffer
// copied one value short, preRounds' slot 5 keyed with round 2's k1, (in the Estrin
// transform) the log's final FMA emitted as a VMULPD then a VADDPD (1 ulp at value 0 of
// a one-value fill), and (in the split kernels) round 8's two keys swapped in the Philox
// kernels, and the One transform of a chunk's last groups reading the words a group on.
func TestKernelsAreGosBits(t *testing.T) {
	if len(kernelPaths()) == 0 {
		t.Skip("no kernel on this CPU: the pure-Go path is the only one")
	}
	lengths := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65,
		95, 96, 97, 191, 192, 193, 383, 384, 385, 784, 1001, 1<<16 + 5, 1<<17 + 3}
	addrs := []address{
		{0, 0, 0, 0},
		{0x0123456789abcdef, 1<<40 + 7, 11, 5},
		{math.MaxUint64, math.MaxUint64, math.MaxUint32, 1<<31 + 3},
		{42, 7, 3, 0},
	}
	for _, n := range lengths {
		for ai, a := range addrs {
			if ai == 2 { // read up to the very last block
				a.block = uint32(uint64(MaxBlocks) - uint64(n+1)/2 - 1)
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
		run := func() (z64 []float64, z32 []float32) {
			z64, z32 = make([]float64, n), make([]float32, n)
			fill64(z64, sd, a.seed, a.trial, a.step, a.block)
			fill32(z32, float32(sd), a.seed, a.trial, a.step, a.block)
			return z64, z32
		}
		var w64, g64 []float64
		var w32, g32 []float32
		onPath(pathGo, func() { w64, w32 = run() })
		onPath(p, func() { g64, g32 = run() })
		if i, ok := sameBits(bits64(g64), bits64(w64)); !ok {
			t.Fatalf("float64 on %s: value %d is %v, pure Go %v", pathNames[p], i, g64[i], w64[i])
		}
		if i, ok := sameBits(bits32(g32), bits32(w32)); !ok {
			t.Fatalf("float32 on %s: value %d is %v, pure Go %v", pathNames[p], i, g32[i], w32[i])
		}
	})
}

// FillAt and FillAt32 are slices of one long Fill and Fill32 (a property, on every path):
// reading from block b gives the values a fill from block 0 puts at 2b (4b in float32).
// Planted: FillAt starting one block late fails it.
func TestFillAtIsASliceOfFill(t *testing.T) {
	for _, p := range paths() {
		t.Run(pathNames[p], func(t *testing.T) {
			onPath(p, func() {
				rapid.Check(t, func(t *rapid.T) {
					seed, trial := rapid.Uint64().Draw(t, "seed"), rapid.Uint64().Draw(t, "trial")
					step := rapid.Uint32().Draw(t, "step")
					b := rapid.IntRange(0, 300).Draw(t, "block")
					n := rapid.IntRange(0, 400).Draw(t, "n")
					long := make([]float64, 2*b+n)
					Fill(long, seed, trial, step)
					at := make([]float64, n)
					FillAt(at, seed, trial, step, uint32(b))
					if i, ok := sameBits(bits64(at), bits64(long[2*b:])); !ok {
						t.Fatalf("FillAt from block %d: value %d is %v, Fill's %v", b, i, at[i], long[2*b+i])
					}
					long32 := make([]float32, 4*b+n)
					Fill32(long32, seed, trial, step)
					at32 := make([]float32, n)
					FillAt32(at32, seed, trial, step, uint32(b))
					if i, ok := sameBits(bits32(at32), bits32(long32[4*b:])); !ok {
						t.Fatalf("FillAt32 from block %d: value %d is %v, Fill32's %v", b, i, at32[i], long32[4*b+i])
					}
				})
			})
		})
	}
}

// FillScaled and FillScaled32 are sd times Fill's and Fill32's values, one rounding each
// (a property, on every path). Planted: the scale applied before the float32 rounding
// fails it.
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
					Fill(z, seed, trial, step)
					FillScaled(s, sd, seed, trial, step)
					for i := range z {
						if math.Float64bits(s[i]) != math.Float64bits(sd*z[i]) {
							t.Fatalf("FillScaled(sd %v) value %d is %v, sd·Fill's %v", sd, i, s[i], sd*z[i])
						}
					}
					sd32 := rapid.Float32Range(-1e30, 1e30).Draw(t, "sd32")
					z32, s32 := make([]float32, n), make([]float32, n)
					Fill32(z32, seed, trial, step)
					FillScaled32(s32, sd32, seed, trial, step)
					for i := range z32 {
						if math.Float32bits(s32[i]) != math.Float32bits(sd32*z32[i]) {
							t.Fatalf("FillScaled32(sd %v) value %d is %v, sd·Fill32's %v", sd32, i, s32[i], sd32*z32[i])
						}
					}
				})
			})
		})
	}
}

// A stream ends at block 2³²−1: FillAt reads its last block and panics one value past it.
func TestFillAtEnd(t *testing.T) {
	last := make([]float64, 2)
	FillAt(last, 1, 2, 3, MaxBlocks-1)
	x := Block(Counter(2, 3, MaxBlocks-1), Key(1))
	if a, b := boxMuller(uniform53(x[0], x[1]), uniform53(x[2], x[3])); last[0] != a || last[1] != b {
		t.Errorf("FillAt's last block = %v, want %v %v", last, a, b)
	}
	for _, f := range []func(){
		func() { FillAt(make([]float64, 3), 1, 2, 3, MaxBlocks-1) },
		func() { FillAt32(make([]float32, 5), 1, 2, 3, MaxBlocks-1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic past the stream's end")
				}
			}()
			f()
		}()
	}
}

// The AVX2 kernels use only what an AVX2 CPU has: the assembler accepts Y16–Y31 (and
// X16–X31) in instructions with an AVX-512VL encoding, and this CPU would run them, but an
// AVX2-only CPU would fault; and every kernel requires no more than bestPath checks for
// (avo's "Requires:" line above each function: FMA3 for the AVX2 ones, which bestPath
// checks). Planted: one AVX2 VADDPD's Y3 renamed Y17
// fails it, as does an AVX2 kernel requiring AVX512F.
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
	if funcs != 16 { // AVX-512: Philox, four transforms and their One twins; AVX2: Philox and its One, four kernels
		t.Fatalf("%d kernels in kernel_amd64.s, want 16", funcs)
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
// (the stack buffer then escapes: one 512-byte allocation a call), and this fails.
func TestFillDoesNotAllocate(t *testing.T) {
	d64, d32 := make([]float64, 784), make([]float32, 1001) // 784 = 24 AVX-512 steps + 16; 1001 ends mid-step too
	for _, p := range paths() {
		onPath(p, func() {
			for _, c := range []struct {
				name string
				f    func()
			}{
				{"FillScaled", func() { FillScaled(d64, 0.3, 1, 2, 3) }},
				{"FillAt", func() { FillAt(d64, 1, 2, 3, 5) }},
				{"FillScaled32", func() { FillScaled32(d32, 0.3, 1, 2, 3) }},
				{"FillAt32", func() { FillAt32(d32, 1, 2, 3, 5) }},
			} {
				if n := testing.AllocsPerRun(20, c.f); n != 0 {
					t.Errorf("%s, path %s: %v allocations a call", c.name, pathNames[p], n)
				}
			}
		})
	}
}
