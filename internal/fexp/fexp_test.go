package fexp

import (
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// edgeArgs are the arguments where exp_amd64.s turns: ±0, the smallest subnormals, the
// overflow threshold and its neighbours, the last normal and subnormal results and the
// underflow to 0, ties of x·log₂e at half-integers (CVTSD2SL rounds them to even), the
// integer indefinite of a huge negative x, ±Inf and NaN.
func edgeArgs() []float64 {
	xs := []float64{0, math.Copysign(0, -1), 5e-324, -5e-324, 1, -1, 0.5, -0.5, 1e-300,
		overflow, math.Nextafter(overflow, 0), math.Nextafter(overflow, 1000), 709.78, 710,
		-708.39, -708.4, -709, -744.4, -745.1, -745.2, -746, -1000, -1e300, -math.MaxFloat64,
		math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0x7FF8000000000123)}
	for k := -1080; k <= 1030; k += 7 {
		x := (float64(k) + 0.5) / log2e // near a tie of x·log₂e
		xs = append(xs, x, math.Nextafter(x, math.Inf(1)), math.Nextafter(x, math.Inf(-1)))
	}
	return xs
}

// goldenArgs are edgeArgs and a fixed sample of the range, for knownValues.
func goldenArgs() []float64 {
	r := rand.New(rand.NewPCG(1, 2))
	xs := edgeArgs()
	for range 64 {
		xs = append(xs, -750+r.Float64()*1460)
	}
	return xs
}

// expFMA is math.Exp bit for bit where math.Exp fuses: every edge argument, a million
// uniform on [−750, 710] (the whole finite range, subnormal results and overflow), and
// 2²⁰ random bit patterns (NaNs, infinities, huge and tiny arguments). Planted, each
// fails it: the series' last step a multiply and an add, the halving of a tie rounded
// away from zero (math.Round), the reduction's second FMA dropped, the subnormal path's
// bias 0x3FF instead of 0x3FE.
func TestMatchesMathExp(t *testing.T) {
	if !mathFuses {
		t.Skip("math.Exp does not take exp_amd64.s's FMA path here: TestKnownValues holds Exp")
	}
	check := func(x float64) {
		t.Helper()
		got, want := expFMA(x), math.Exp(x)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("expFMA(%v) (bits %#x) = %v (%#x), math.Exp %v (%#x)", x, math.Float64bits(x), got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
	for _, x := range edgeArgs() {
		check(x)
	}
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range n {
		check(-750 + r.Float64()*1460)
	}
	for range n / 4 {
		check(math.Float64frombits(r.Uint64()))
	}
}

// The same as a property: any float64.
func TestMatchesMathExpProperty(t *testing.T) {
	if !mathFuses {
		t.Skip("math.Exp does not take exp_amd64.s's FMA path here")
	}
	rapid.Check(t, func(t *rapid.T) {
		x := rapid.Float64().Draw(t, "x")
		if got, want := expFMA(x), math.Exp(x); math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("expFMA(%v) = %v, math.Exp %v", x, got, want)
		}
	})
}

// Exp and expFMA, Pow and powFMA give the values math.Exp and math.Pow gave on an amd64
// CPU with FMA (knownValues and knownPows,
// written by TestPrintKnownValues there), on any CPU and architecture: under
// GODEBUG=cpu.fma=off, where math.Exp rounds each product (TestExpUnderGODEBUG), and on
// arm64, whose own math.Exp is another algorithm. Planted: the series' last step
// unfused fails it under cpu.fma=off too (software math.FMA is exact, so the fused bits
// do not depend on the CPU), and so does Exp calling math.Exp whatever mathFuses says.
func TestKnownValues(t *testing.T) {
	if len(knownValues) == 0 {
		t.Fatal("no known values")
	}
	if len(knownPows) == 0 {
		t.Fatal("no known powers")
	}
	for _, c := range knownPows {
		x, y := math.Float64frombits(c.x), math.Float64frombits(c.y)
		for _, f := range []func(float64, float64) float64{Pow, powFMA} {
			if got := f(x, y); math.Float64bits(got) != c.want && !(math.IsNaN(got) && math.IsNaN(math.Float64frombits(c.want))) {
				t.Errorf("Pow(%v, %v) = %v (%#x), want %v (%#x)", x, y, got, math.Float64bits(got), math.Float64frombits(c.want), c.want)
			}
		}
	}
	for _, c := range knownValues {
		x := math.Float64frombits(c.x)
		for _, f := range []func(float64) float64{Exp, expFMA} {
			if got := f(x); math.Float64bits(got) != c.want && !(math.IsNaN(got) && math.IsNaN(math.Float64frombits(c.want))) {
				t.Errorf("Exp(%v) = %v (%#x), want %v (%#x)", x, got, math.Float64bits(got), math.Float64frombits(c.want), c.want)
			}
		}
	}
}

// Under each GODEBUG switch that turns math.Exp's FMA path off (or leaves it), a child
// process passes TestKnownValues: mathFuses follows math's choice. Planted: mathFuses
// true whatever the CPU fails the cpu.fma=off and cpu.avx=off cases.
func TestExpUnderGODEBUG(t *testing.T) {
	if os.Getenv("FEXP_GODEBUG_CHILD") != "" {
		t.Skip("in the child process")
	}
	if runtime.GOARCH != "amd64" {
		t.Skip("math.Exp's FMA path is amd64's")
	}
	for _, godebug := range []string{"cpu.fma=off", "cpu.avx=off", "cpu.all=off", ""} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKnownValues$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "GODEBUG="+godebug, "FEXP_GODEBUG_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("GODEBUG=%q: %v\n%s", godebug, err, out)
		} else if !strings.Contains(string(out), "--- PASS: TestKnownValues") {
			t.Errorf("GODEBUG=%q: TestKnownValues did not run:\n%s", godebug, out)
		}
	}
}

// BenchmarkExp is Exp's cost against math.Exp's, on arguments a logistic loss meets.
func BenchmarkExp(b *testing.B) {
	xs := make([]float64, 1024)
	r := rand.New(rand.NewPCG(5, 6))
	for i := range xs {
		xs[i] = r.NormFloat64() * 4
	}
	var s float64
	b.Run("fexp", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			s += Exp(xs[i%len(xs)])
		}
	})
	b.Run("expFMA", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			s += expFMA(xs[i%len(xs)])
		}
	})
	b.Run("math", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			s += math.Exp(xs[i%len(xs)])
		}
	})
	_ = s
}

// powArgs are pairs where math.Pow reaches math.Exp (a fractional y, x > 0) and where it
// does not, with the exponents the toolkit raises to (OLU's 1.3, 2.2, 1.6, 1.7, ω).
func powArgs() [][2]float64 {
	r := rand.New(rand.NewPCG(7, 8))
	ps := [][2]float64{{2, 0.5}, {2, -0.5}, {2, 3}, {-2, 3}, {-2, 0.3}, {0, 0.3}, {math.Inf(1), 0.3},
		{0.5, 1e10 + 0.25}, {1e300, 1.5}, {1e-300, 1.5}, {3, 1.3}, {1000, 2.2}, {0.9, 1.6}, {7, 1.7}, {12, -1.1}}
	for range 200 {
		x := math.Exp(r.NormFloat64() * 5)
		y := r.NormFloat64() * 4
		ps = append(ps, [2]float64{x, y})
	}
	return ps
}

// powFMA is math.Pow bit for bit where math.Exp fuses, on powArgs and 2·10⁵ random pairs.
// Planted: yf·log x rounded to float32 fails it, as does yf not moved into (−½, ½]; each
// fails TestKnownValues under GODEBUG=cpu.fma=off too.
func TestPowMatchesMathPow(t *testing.T) {
	if !mathFuses {
		t.Skip("math.Exp does not take exp_amd64.s's FMA path here: TestKnownValues holds Pow")
	}
	check := func(x, y float64) {
		t.Helper()
		got, want := powFMA(x, y), math.Pow(x, y)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("powFMA(%v, %v) = %v, math.Pow %v", x, y, got, want)
		}
	}
	for _, p := range powArgs() {
		check(p[0], p[1])
	}
	r := rand.New(rand.NewPCG(9, 10))
	for range 200_000 {
		check(math.Exp(r.NormFloat64()*20), r.NormFloat64()*10)
	}
}
