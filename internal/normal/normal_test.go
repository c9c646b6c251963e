package normal

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// A Stream from a PCG source draws what rand.New(src).NormFloat64 draws from it, bit for
// bit, through Fill (mean + sd·z, as the loop it replaces computes) and Next alike, over
// enough draws that the ziggurat's rare branches run (the base strip's tail counted).
func TestStreamIsNormFloat64(t *testing.T) {
	const n = 300_000
	tails := 0
	for _, seed := range [][2]uint64{{1, 2}, {0, 0}, {7, 1 << 63}} {
		src := rand.NewPCG(seed[0], seed[1])
		for range 3 {
			src.Uint64() // a source part-way through its stream
		}
		g := FromPCG(src)
		want := rand.New(src)
		dst := make([]float64, n)
		mean, sd := 0.3, 1.7
		g.Fill(dst, mean, sd)
		for i, v := range dst {
			z := want.NormFloat64()
			if w := mean + sd*z; math.Float64bits(v) != math.Float64bits(w) {
				t.Fatalf("seed %v, draw %d: Fill %v, NormFloat64 gives %v", seed, i, v, w)
			}
			if math.Abs(z) >= R {
				tails++
			}
		}
		for i := range 1000 {
			if got, w := g.Next(), want.NormFloat64(); math.Float64bits(got) != math.Float64bits(w) {
				t.Fatalf("seed %v, draw %d after Fill: Next %v, NormFloat64 %v", seed, n+i, got, w)
			}
		}
		if hi, lo := g.State(); FromPCG(src) != New(hi, lo) {
			t.Fatalf("seed %v: the stream ended at another state than the source", seed)
		}
	}
	if tails == 0 {
		t.Fatal("no draw in the base strip's tail: its branch was not tested")
	}
}

// Skip2's constants are two steps of the PCG: from any state, Skip2 reaches the state two
// Steps reach, and two chains a step apart give rand.PCG's outputs in order.
func TestSkip2(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		hi, lo := r.Uint64(), r.Uint64()
		_, h1, l1 := Step(hi, lo)
		_, h2, l2 := Step(h1, l1)
		if h, l := Skip2(hi, lo); h != h2 || l != l2 {
			t.Fatalf("Skip2(%#x, %#x) = %#x, %#x; two steps give %#x, %#x", hi, lo, h, l, h2, l2)
		}
	}
	src := rand.NewPCG(5, 6)
	_, aH, aL := Step(5, 6)
	_, bH, bL := Step(aH, aL)
	for range 1000 {
		if x := src.Uint64(); x != Out(aH, aL) {
			t.Fatalf("chain a gives %#x, rand.PCG %#x", Out(aH, aL), x)
		}
		if x := src.Uint64(); x != Out(bH, bL) {
			t.Fatalf("chain b gives %#x, rand.PCG %#x", Out(bH, bL), x)
		}
		aH, aL = Skip2(aH, aL)
		bH, bL = Skip2(bH, bL)
	}
}

// bigExp is exp(t) for t ≤ 0 to 256 bits: 1/Σ (−t)ⁿ/n!, the series of positive terms
// (no cancellation), summed until a term is under 2⁻³⁰⁰ of the sum.
func bigExp(t float64) *big.Float {
	const prec = 256
	y := new(big.Float).SetPrec(prec).SetFloat64(-t)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for n := int64(1); ; n++ {
		term.Mul(term, y)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(n))
		sum.Add(sum, term)
		if term.Sign() == 0 || term.MantExp(nil)-sum.MantExp(nil) < -300 {
			break
		}
	}
	return new(big.Float).SetPrec(prec).Quo(new(big.Float).SetPrec(prec).SetInt64(1), sum)
}

// relErr is |x/ref − 1|.
func relErr(x float64, ref *big.Float) float64 {
	d := new(big.Float).SetPrec(256).SetFloat64(x)
	d.Sub(d, ref).Quo(d, ref)
	f, _ := d.Float64()
	return math.Abs(f)
}

// Every entry of expTab is within 1 ulp of exp(−k/32) (2⁻⁵² relative): below's proof, (1).
func TestExpTab(t *testing.T) {
	for k, v := range expTab {
		if e := relErr(v, bigExp(-float64(k)/32)); e > 0x1p-52 {
			t.Errorf("expTab[%d] = %v is %.3g off exp(−%d/32), over 2⁻⁵²", k, v, e, k)
		}
	}
	// the table reaches the largest −t the wedge test gets, |x| = 2³¹·wn[127] (≈ R)
	x := float64(math.MinInt32) * float64(wn[127])
	if _, ok := expNear(-.5 * x * x); !ok {
		t.Fatalf("expNear(%v) is off the table: the largest wedge x is %v", -.5*x*x, x)
	}
}

// expNear is within 2⁻²⁸·⁴ of exp(t) and math.Exp within 2⁻⁴⁰ (below's proof, (1) and
// (2)) on t at the table's half-steps (where |r| is largest), at the strips' edges and
// at random over [−5.98, 0].
func TestExpNear(t *testing.T) {
	var ts []float64
	for k := range len(expTab) {
		for _, c := range []float64{float64(k) / 32, (float64(k) + .5) / 32, (float64(k) - .5) / 32} {
			ts = append(ts, -c, math.Nextafter(-c, 0), math.Nextafter(-c, -1))
		}
	}
	for i := 1; i < 128; i++ {
		for _, j := range []int64{int64(kn[i]), 1<<31 - 1, 1 << 31} {
			x := float64(j) * float64(wn[i])
			ts = append(ts, -.5*x*x)
		}
	}
	r := rand.New(rand.NewPCG(8, 9))
	for range 20_000 {
		ts = append(ts, -5.98*r.Float64())
	}
	for _, v := range ts {
		e, ok := expNear(v)
		if v <= -(float64(len(expTab))-.5)/32 {
			if ok {
				t.Fatalf("expNear(%v) claims a value off its table", v)
			}
			continue
		}
		if !ok {
			t.Fatalf("expNear(%v) has no value", v)
		}
		ref := bigExp(v)
		if d := relErr(e, ref); d > math.Exp2(-28.4) {
			t.Fatalf("expNear(%v) = %v, %.3g off exp, over 2⁻²⁸·⁴", v, e, d)
		}
		if d := relErr(math.Exp(v), ref); d > 0x1p-40 {
			t.Fatalf("math.Exp(%v) = %v, %.3g off exp, over 2⁻⁴⁰", v, math.Exp(v), d)
		}
	}
}

// below is the wedge test l < float32(math.Exp(t)) for every strip's x: the edges of the
// j that reach the test (|j| ≥ kn[i], and −2³¹) and random ones, each with l at and up to
// 4 float32 steps either side of the rounded exp (where the answer turns), the strip's
// bounds and random draws. From 2 steps away on, the fast test decides.
func TestBelowIsWedgeTest(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	calls, slow := 0, 0
	check := func(i int, j int64) {
		x := float64(j) * float64(wn[i])
		tt := -.5 * x * x
		ex := float32(math.Exp(tt))
		ls := []float32{fn[i], fn[i-1]}
		for d := int32(-4); d <= 4; d++ {
			ls = append(ls, math.Float32frombits(uint32(int32(math.Float32bits(ex))+d)))
		}
		for range 4 {
			ls = append(ls, fn[i]+float32(r.Float64())*(fn[i-1]-fn[i]))
		}
		for n, l := range ls {
			calls++
			want := l < ex
			if got := below(l, tt); got != want {
				t.Fatalf("strip %d, j %d, x %v, l %v: below says %v, float32(math.Exp) %v < %v says %v", i, j, x, l, got, ex, l, want)
			}
			_, ok := belowFast(l, tt)
			if !ok {
				slow++
			}
			if !ok && n >= 2 && n < 11 && (n-2-4 <= -2 || n-2-4 >= 2) {
				t.Fatalf("strip %d, x %v: l %v, %d steps from float32(exp) %v, needed math.Exp", i, x, l, n-6, ex)
			}
		}
	}
	edges, draws := 64, 2_000
	if testing.Short() {
		draws = 200
	}
	for i := 1; i < 128; i++ {
		k := int64(kn[i])
		for d := range int64(edges) {
			for _, j := range []int64{k + d, 1<<31 - 1 - d} {
				check(i, j)
				check(i, -j)
			}
		}
		check(i, -1<<31)
		for range draws {
			j := k + r.Int64N(1<<31-k)
			check(i, j)
			check(i, -j)
		}
	}
	t.Logf("%d wedge tests, %d of them by math.Exp", calls, slow)
}

// below at l next to float32 values and float32 midpoints that math.Exp reaches or
// nearly reaches (t = log of them and float64 steps around), where rounding decides:
// every 499th float32 from exp(−5.98) to 1.
func TestBelowAtRoundingEdges(t *testing.T) {
	lo, hi := math.Float32bits(float32(math.Exp(-5.98))), math.Float32bits(1)
	for b := lo; b < hi; b += 499 {
		f, g := math.Float32frombits(b), math.Float32frombits(b+1)
		for _, target := range []float64{float64(f), (float64(f) + float64(g)) / 2} {
			t0 := math.Log(target)
			for d := -3; d <= 3; d++ {
				tt := t0
				for range max(d, -d) {
					tt = math.Nextafter(tt, float64(d)*math.Inf(1))
				}
				if tt > 0 {
					continue
				}
				ex := float32(math.Exp(tt))
				for _, l := range []float32{math.Float32frombits(b - 1), f, g, math.Float32frombits(b + 2)} {
					if got, want := below(l, tt), l < ex; got != want {
						t.Fatalf("t %v, l %v: below says %v, float32(math.Exp) %v says %v", tt, l, got, ex, want)
					}
				}
			}
		}
	}
}

// Normal and Fill draw what rand.NormFloat64 draws over millions of draws, so that the
// wedge test (below) runs some 10⁵ times in each.
func TestManyNormals(t *testing.T) {
	n := 10_000_000
	if testing.Short() {
		n = 1_000_000
	}
	want := rand.New(rand.NewPCG(12, 13))
	hi, lo := uint64(12), uint64(13)
	for i := range n {
		var z float64
		z, hi, lo = Normal(hi, lo)
		if w := want.NormFloat64(); math.Float64bits(z) != math.Float64bits(w) {
			t.Fatalf("draw %d: Normal %v, NormFloat64 %v", i, z, w)
		}
	}
	g := New(14, 15)
	want = rand.New(rand.NewPCG(14, 15))
	dst := make([]float64, n)
	g.Fill(dst, 0, 1)
	for i, z := range dst {
		if w := want.NormFloat64(); math.Float64bits(z) != math.Float64bits(w) {
			t.Fatalf("draw %d: Fill %v, NormFloat64 %v", i, z, w)
		}
	}
}
