package ensemble

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// problem draws m rows of d features (norm ≤ 1), ±1 labels and k models in the ball of
// radius 3, as Θ (d × k, column t model t).
func problem(m, d, k int, seed uint64) (X, y, Theta []float64) {
	r := rand.New(rand.NewPCG(seed, 7))
	X, y, Theta = make([]float64, m*d), make([]float64, m), make([]float64, d*k)
	for i := range m {
		var s float64
		for j := range d {
			X[i*d+j] = r.NormFloat64()
			s += X[i*d+j] * X[i*d+j]
		}
		for j := range d {
			X[i*d+j] /= math.Sqrt(s) * (1 + r.Float64())
		}
		y[i] = float64(1 - 2*r.IntN(2))
	}
	for i := range Theta {
		Theta[i] = 3 * r.NormFloat64() / math.Sqrt(float64(d))
	}
	return X, y, Theta
}

// Every model's gradient is reference.Logistic's, one model at a time, within the rounding
// bound the two summation orders allow; the shapes cover full blocks, edge rows (m mod 4)
// and edge models (k mod 8), one group and several.
func TestLogisticGradientMatchesReference(t *testing.T) {
	for _, c := range []struct{ m, d, k int }{{37, 19, 13}, {64, 40, 8}, {9, 5, 1}, {130, 33, 70}, {3, 7, 9}} {
		X, y, Theta := problem(c.m, c.d, c.k, uint64(c.m*c.k))
		const lambda = 0.05
		G := make([]float64, c.d*c.k)
		LogisticGradient(G, X, y, Theta, c.m, c.d, c.k, lambda)
		ds := dataset(t, X, y, c.m, c.d)
		obj := reference.Logistic{Lambda: lambda}.Objective(ds)
		theta, g := make([]float64, c.d), make([]float64, c.d)
		worst := 0.0
		for tt := range c.k {
			for j := range c.d {
				theta[j] = Theta[j*c.k+tt]
			}
			obj.Gradient(g, theta)
			for j := range c.d {
				diff := math.Abs(G[j*c.k+tt] - g[j])
				bound := RoundingBound(X, y, Theta, c.m, c.d, c.k, j, tt, lambda)
				if diff > bound {
					t.Fatalf("%+v: model %d, coordinate %d: %v against the reference's %v (off by %.3g, bound %.3g)", c, tt, j, G[j*c.k+tt], g[j], diff, bound)
				}
				worst = max(worst, diff/bound)
			}
		}
		t.Logf("%+v: worst difference %.3g of the rounding bound", c, worst)
	}
}

// The assembly and the pure-Go micro-kernels sum in the same order with the same fused
// operations: the gradients agree bit for bit.
func TestAsmMatchesGo(t *testing.T) {
	if !HasAsm {
		t.Skip("no AVX2 and FMA here: the pure-Go kernel is the only one")
	}
	X, y, Theta := problem(101, 50, 45, 3)
	a, b := make([]float64, 50*45), make([]float64, 50*45)
	LogisticGradient(a, X, y, Theta, 101, 50, 45, 0.1)
	HasAsm = false
	defer func() { HasAsm = true }()
	LogisticGradient(b, X, y, Theta, 101, 50, 45, 0.1)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("coordinate %d: assembly %v, Go %v", i, a[i], b[i])
		}
	}
}

// Neither precision allocates once warm (AllocsPerRun makes a call first), on any path: wide
// blocks, panels, edges, the group copies (k = 45 > 32 at m = 64), the derivatives'
// float64 scratch (k = 45 has them all).
func TestLogisticGradientAllocatesNothing(t *testing.T) {
	const m, d, k = 64, 30, 45
	X, y, Theta := problem(m, d, k, 1)
	G, G32 := make([]float64, d*k), make([]float32, d*k)
	X32, y32, Theta32 := to32(X), to32(y), to32(Theta)
	onEachPath(func(asm bool) {
		if n := testing.AllocsPerRun(10, func() { LogisticGradient(G, X, y, Theta, m, d, k, 0.1) }); n != 0 {
			t.Errorf("assembly %v: %v allocations a call", asm, n)
		}
		if n := testing.AllocsPerRun(10, func() { LogisticGradient32(G32, X32, y32, Theta32, m, d, k, 0.1) }); n != 0 {
			t.Errorf("assembly %v: %v allocations a float32 call", asm, n)
		}
	})
}

func TestLogisticGradientRefusesShortSlices(t *testing.T) {
	X, y, Theta := problem(8, 4, 2, 1)
	defer func() {
		if recover() == nil {
			t.Error("a G too short for d × k was accepted")
		}
	}()
	LogisticGradient(make([]float64, 7), X, y, Theta, 8, 4, 2, 0)
}

// A model's gradient is the same bits whatever its place among the k and however many
// there are: in a panel, at the edge, alone. So trials run in lockstep give the results
// they give alone, and batches of any composition agree.
func TestLogisticGradientIndependentOfPlace(t *testing.T) {
	const m, d = 45, 23
	X, y, Theta := problem(m, d, 40, 9)
	all := make([]float64, d*40)
	LogisticGradient(all, X, y, Theta, m, d, 40, 0.1)
	for _, k := range []int{1, 7, 13} {
		for pos := range k {
			for _, model := range []int{0, 9, 39} {
				sub := make([]float64, d*k)
				for j := range d {
					for c := range k {
						sub[j*k+c] = Theta[j*40+(model+c-pos+40)%40]
					}
				}
				g := make([]float64, d*k)
				LogisticGradient(g, X, y, sub, m, d, k, 0.1)
				for j := range d {
					if g[j*k+pos] != all[j*40+model] {
						t.Fatalf("model %d at place %d of %d: coordinate %d is %v, at place %d of 40 %v", model, pos, k, j, g[j*k+pos], model, all[j*40+model])
					}
				}
			}
		}
	}
}

// Every model's Hessian–vector product is reference.Logistic's Hessian times the direction,
// one model at a time, to within a rounding bound derived as RoundingBound's: xᵢᵀθ and
// xᵢᵀv each off by γ_d of their absolute terms in each evaluation, φ″ ≤ ¼ and
// 1/(6√3)-Lipschitz, the weight (1/m)·φ″·xᵢᵀv costing 8u relative in each (exp's ulp, four
// operations for φ″, two multiplications), and the outer sum γ_{m+2}.
func TestLogisticHVPMatchesReference(t *testing.T) {
	for _, c := range []struct{ m, d, k int }{{37, 19, 13}, {64, 40, 8}, {130, 33, 70}} {
		X, y, Theta := problem(c.m, c.d, c.k, uint64(c.m+c.k))
		_, _, V := problem(c.m, c.d, c.k, uint64(c.m+c.k+1))
		const lambda = 0.05
		HV := make([]float64, c.d*c.k)
		LogisticHVP(HV, X, y, Theta, V, c.m, c.d, c.k, lambda)
		ds := dataset(t, X, y, c.m, c.d)
		obj := reference.Logistic{Lambda: lambda}.Objective(ds)
		theta, v, hv := make([]float64, c.d), make([]float64, c.d), make([]float64, c.d)
		for tt := range c.k {
			for j := range c.d {
				theta[j], v[j] = Theta[j*c.k+tt], V[j*c.k+tt]
			}
			obj.HessVec(hv, theta, v)
			for j := range c.d {
				bound := 2 * hvpEvalBound(Unit, X, theta, v, c.m, c.d, j, lambda)
				if diff := math.Abs(HV[j*c.k+tt] - hv[j]); diff > bound {
					t.Fatalf("%+v: model %d, coordinate %d: %v against the reference's %v (off by %.3g, bound %.3g)", c, tt, j, HV[j*c.k+tt], hv[j], diff, bound)
				}
			}
		}
	}
	// the assembly and Go kernels agree bit for bit here too
	if HasAsm {
		X, y, Theta := problem(45, 21, 19, 2)
		_, _, V := problem(45, 21, 19, 3)
		a, b := make([]float64, 21*19), make([]float64, 21*19)
		LogisticHVP(a, X, y, Theta, V, 45, 21, 19, 0.1)
		HasAsm = false
		LogisticHVP(b, X, y, Theta, V, 45, 21, 19, 0.1)
		HasAsm = true
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("coordinate %d: assembly %v, Go %v", i, a[i], b[i])
			}
		}
	}
}

// The float32 kernel's gradients are the float64 kernel's on the same inputs within
// RoundingBound32 (float32's error bound plus float64's), on the assembly and on the Go
// path alike.
func TestLogisticGradient32(t *testing.T) {
	for _, c := range []struct{ m, d, k int }{{37, 19, 13}, {64, 40, 16}, {130, 33, 70}, {3, 7, 9}} {
		X, y, Theta := problem(c.m, c.d, c.k, uint64(c.m*c.k+5))
		for i := range X { // inputs float32 can hold
			X[i] = float64(float32(X[i]))
		}
		for i := range Theta {
			Theta[i] = float64(float32(Theta[i]))
		}
		const lambda = 0.0625 // a power of two: exact in both
		G := make([]float64, c.d*c.k)
		LogisticGradient(G, X, y, Theta, c.m, c.d, c.k, lambda)
		X32, y32, T32 := to32(X), to32(y), to32(Theta)
		onEachPath(func(asm bool) {
			G32 := make([]float32, c.d*c.k)
			LogisticGradient32(G32, X32, y32, T32, c.m, c.d, c.k, lambda)
			worst := 0.0
			for j := range c.d {
				for tt := range c.k {
					diff := math.Abs(float64(G32[j*c.k+tt]) - G[j*c.k+tt])
					bound := RoundingBound32(X, y, Theta, c.m, c.d, c.k, j, tt, lambda)
					if diff > bound {
						t.Fatalf("%+v (assembly %v): model %d, coordinate %d: float32 %v, float64 %v (off by %.3g, bound %.3g)", c, asm, tt, j, G32[j*c.k+tt], G[j*c.k+tt], diff, bound)
					}
					worst = max(worst, diff/bound)
				}
			}
			t.Logf("%+v (assembly %v): worst difference %.3g of the bound", c, asm, worst)
		})
	}
}

func to32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// hvpEvalBound is one evaluation's error bound on coordinate j of a Hessian–vector product
// at unit roundoff u (TestLogisticHVPMatchesReference's terms).
func hvpEvalBound(u float64, X, theta, v []float64, m, d, j int, lambda float64) float64 {
	gamma := func(n int) float64 { return float64(n) * u / (1 - float64(n)*u) }
	var b, abs float64
	for i := range m {
		var ua, va, ui, vi float64
		for l := range d {
			ua += math.Abs(X[i*d+l] * theta[l])
			va += math.Abs(X[i*d+l] * v[l])
			ui += X[i*d+l] * theta[l]
			vi += X[i*d+l] * v[l]
		}
		s := logisticCurv(ui)
		ds := gamma(d)*ua/(6*math.Sqrt(3))*(math.Abs(vi)+gamma(d)*va) + 0.25*gamma(d)*va + 8*u*s*math.Abs(vi)
		b += math.Abs(X[i*d+j]) * ds / float64(m)
		abs += math.Abs(X[i*d+j]*s*vi) / float64(m)
	}
	abs += math.Abs(lambda * v[j])
	return b + gamma(m+2)*abs
}

// The float32 Hessian–vector products are the float64 ones within one float32 evaluation's
// bound plus one float64's.
func TestLogisticHVP32(t *testing.T) {
	const m, d, k = 61, 27, 35
	X, y, Theta := problem(m, d, k, 11)
	_, _, V := problem(m, d, k, 12)
	for _, a := range [][]float64{X, Theta, V} {
		for i := range a {
			a[i] = float64(float32(a[i]))
		}
	}
	const lambda = 0.125
	HV := make([]float64, d*k)
	LogisticHVP(HV, X, y, Theta, V, m, d, k, lambda)
	HV32 := make([]float32, d*k)
	LogisticHVP32(HV32, to32(X), to32(y), to32(Theta), to32(V), m, d, k, lambda)
	theta, v := make([]float64, d), make([]float64, d)
	for tt := range k {
		for j := range d {
			theta[j], v[j] = Theta[j*k+tt], V[j*k+tt]
		}
		for j := range d {
			bound := hvpEvalBound(Unit32, X, theta, v, m, d, j, lambda) + hvpEvalBound(Unit, X, theta, v, m, d, j, lambda)
			if diff := math.Abs(float64(HV32[j*k+tt]) - HV[j*k+tt]); diff > bound {
				t.Fatalf("model %d, coordinate %d: float32 %v, float64 %v (off by %.3g, bound %.3g)", tt, j, HV32[j*k+tt], HV[j*k+tt], diff, bound)
			}
		}
	}
}

// dataset wraps rows and labels as a reference.Dataset with IDs 0..m−1.
func dataset(t *testing.T, X, y []float64, m, d int) *reference.Dataset {
	t.Helper()
	ids := make([]int64, m)
	for i := range ids {
		ids[i] = int64(i)
	}
	ds, err := reference.NewDataset(ids, mat.NewDense(m, d, X), y)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// The float32 kernel's models are place-independent too, on each path: in a panel, a half
// panel or at the edge, every output is the same chain of fused float32 operations (the
// assembly's single-rounded ones, or the Go fallback's, rounded through float64), so
// float32 trials in lockstep give the same bits however they are batched.
func TestLogisticGradient32IndependentOfPlace(t *testing.T) {
	const m, d, n = 45, 23, 40
	X, y, Theta := problem(m, d, n, 9)
	X32, y32, T32 := to32(X), to32(y), to32(Theta)
	onEachPath(func(asm bool) {
		all := make([]float32, d*n)
		LogisticGradient32(all, X32, y32, T32, m, d, n, 0.1)
		for _, k := range []int{1, 7, 13, 19} {
			for pos := range k {
				for _, model := range []int{0, 9, 39} {
					sub := make([]float32, d*k)
					for j := range d {
						for c := range k {
							sub[j*k+c] = T32[j*n+(model+c-pos+n)%n]
						}
					}
					g := make([]float32, d*k)
					LogisticGradient32(g, X32, y32, sub, m, d, k, 0.1)
					for j := range d {
						if g[j*k+pos] != all[j*n+model] {
							t.Fatalf("assembly %v: model %d at place %d of %d: coordinate %d is %v, at place %d of %d %v", asm, model, pos, k, j, g[j*k+pos], model, n, all[j*n+model])
						}
					}
				}
			}
		}
	})
}

// A witness that the float32 paths must round alike, not merely nearly: x·θ = 2⁻⁸⁰ +
// 1.5·(1 + 3·2⁻²³) is just above a float32 midpoint, which one fused float32 operation
// rounds up, but which rounded first to float64 lands on the midpoint and then rounds to
// even, down. A model at the edge (k = 1) and in a half panel (k = 8) must still agree.
func TestLogisticGradient32DoubleRoundingWitness(t *testing.T) {
	const m, d = 4, 2
	X := []float32{0x1p-40, 1.5, 0x1p-40, 1.5, 0x1p-40, 1.5, 0x1p-40, 1.5}
	y := []float32{1, -1, 1, -1}
	theta := []float32{0x1p-40, 1 + 3*0x1p-23}
	onEachPath(func(asm bool) {
		alone := make([]float32, d)
		LogisticGradient32(alone, X, y, theta, m, d, 1, 0)
		const k = 8
		Theta := make([]float32, d*k)
		for j := range d {
			for c := range k {
				Theta[j*k+c] = theta[j]
			}
		}
		G := make([]float32, d*k)
		LogisticGradient32(G, X, y, Theta, m, d, k, 0)
		for j := range d {
			if G[j*k] != alone[j] {
				t.Fatalf("assembly %v: coordinate %d is %v in a panel of %d, %v alone", asm, j, G[j*k], k, alone[j])
			}
		}
	})
}

// onEachPath runs f with the assembly kernels (where the CPU has them) and with the Go
// fallback, restoring HasAsm after each, also when f stops the test.
func onEachPath(f func(asm bool)) {
	for _, asm := range []bool{true, false} {
		if asm && !HasAsm {
			continue
		}
		func() {
			saved := HasAsm
			HasAsm = asm
			defer func() { HasAsm = saved }()
			f(asm)
		}()
	}
}

// The assembly's 6-row blocks give the bits its 4-row blocks give, in both precisions, for
// gradients and Hessian–vector products: every output sums its rows in order with the same
// fused operations, and the same last m mod 4 rows go to the edge. (In float64 the Go
// fallback is a second witness, TestAsmMatchesGo; in float32 it rounds differently, so
// this is the test that keeps float32 runs' bits.) m = 103 has eight 12-row units, a
// 4-row block and 3 edge rows; k = 45 has panels, a half panel and single models.
func TestSixRowBlocksMatchFourRowBlocks(t *testing.T) {
	if !HasAsm {
		t.Skip("no AVX2 and FMA here: the 6-row kernels never run")
	}
	const m, d, k = 103, 50, 45
	X, y, Theta := problem(m, d, k, 5)
	_, _, V := problem(m, d, k, 6)
	run := func(six bool) (g, hv []float64, g32, hv32 []float32) {
		sixRows, HasAVX512 = six, false // the 6-row kernels run where pass512 does not
		defer func() { sixRows, HasAVX512 = true, hasAVX512 }()
		return allFour(X, y, Theta, V, m, d, k)
	}
	g6, hv6, g632, hv632 := run(true)
	g4, hv4, g432, hv432 := run(false)
	for i := range g6 {
		if g6[i] != g4[i] || hv6[i] != hv4[i] || g632[i] != g432[i] || hv632[i] != hv432[i] {
			t.Fatalf("coordinate %d (row %d, model %d): 6-row blocks give %v %v %v %v, 4-row blocks %v %v %v %v",
				i, i/k, i%k, g6[i], hv6[i], g632[i], hv632[i], g4[i], hv4[i], g432[i], hv432[i])
		}
	}
}

// The AVX-512 kernels give the bits the AVX2 panels give, in both precisions, for
// gradients and Hessian–vector products, and in float64 the Go path's too: each output is
// the same FMA chain over j and the same row order into G, from the same λ·base, whatever
// the block or chunk. At d = 50 (accRows's tiles of 8 or 16 leave it 2 columns) the shapes
// cover every block pass512 has: k = 45 is two float64 wide blocks, a narrow panel (8), a
// half panel (4) and one single model, in float32 a wide block (32), a half panel (8) and 5
// single models; k = 61 adds float32's narrow panel (16); k = 70 two groups. m = 103 has
// eight 12-row blocks, a 4-row block and 3 edge rows, m = 44 three 12-row blocks and an
// 8-row one (a mini-batch of 32 or 128 ends so), m = 3 edge rows alone (λ·base all in Go).
// Then the edge shapes: d below accRows's tiles and not a multiple of them (1 to 23),
// m = 4..15 (a 4- or 8-row block alone, 12 plus 0..3 edge rows), k giving a narrow or a
// half panel alone, several groups, and m ≥ 64 with group copies. Each runs in one chunk
// and with the rows cut into chunks of 12 (and 24 or 48): the chunks after the first must
// add to G, not start again from λ·base (planted, and caught).
func TestAVX512MatchesAVX2(t *testing.T) {
	if !HasAsm || !HasAVX512 {
		t.Skip("no AVX-512 here: the wide kernels never run")
	}
	type shape struct{ m, d, k int }
	var shapes []shape
	for _, k := range []int{45, 61, 70} {
		for _, m := range []int{103, 44, 3} {
			shapes = append(shapes, shape{m, 50, k})
		}
	}
	for _, d := range []int{1, 3, 7, 8, 9, 15, 16, 17, 23} {
		for _, m := range []int{4, 8, 12, 13, 15, 40, 64, 77} {
			for _, k := range []int{4, 8, 16, 24, 33, 65, 70} {
				shapes = append(shapes, shape{m, d, k})
			}
		}
	}
	for _, s := range shapes {
		m, d, k := s.m, s.d, s.k
		X, y, Theta := problem(m, d, k, uint64(m*1000+d*10+k))
		_, _, V := problem(m, d, k, uint64(m*1000+d*10+k+1))
		for _, chunk := range []int{chunkBytes, 1, 24 * (d + 48) * 8, 48 * (d + 96) * 4} {
			run := func(wide, asm bool) (g, hv []float64, g32, hv32 []float32) {
				savedC, savedA := chunkBytes, HasAsm
				HasAVX512, HasAsm, chunkBytes = wide, asm, chunk
				defer func() { HasAVX512, HasAsm, chunkBytes = true, savedA, savedC }()
				return allFour(X, y, Theta, V, m, d, k)
			}
			gw, hvw, gw32, hvw32 := run(true, true)
			g, hv, g32, hv32 := run(false, true)
			gg, hvg, _, _ := run(false, false)
			for i := range g {
				if math.Float64bits(gw[i]) != math.Float64bits(g[i]) || math.Float64bits(hvw[i]) != math.Float64bits(hv[i]) ||
					math.Float32bits(gw32[i]) != math.Float32bits(g32[i]) || math.Float32bits(hvw32[i]) != math.Float32bits(hv32[i]) {
					t.Fatalf("chunkBytes = %d, m = %d, d = %d, k = %d, coordinate %d (row %d, model %d): AVX-512 gives %v %v %v %v, AVX2 %v %v %v %v",
						chunk, m, d, k, i, i/k, i%k, gw[i], hvw[i], gw32[i], hvw32[i], g[i], hv[i], g32[i], hv32[i])
				}
				if math.Float64bits(gw[i]) != math.Float64bits(gg[i]) || math.Float64bits(hvw[i]) != math.Float64bits(hvg[i]) {
					t.Fatalf("chunkBytes = %d, m = %d, d = %d, k = %d, coordinate %d: AVX-512 gives %v %v, Go %v %v",
						chunk, m, d, k, i, gw[i], hvw[i], gg[i], hvg[i])
				}
			}
		}
	}
}

// The gradient's derivatives are logit.Derivs's (its tests compare them with the scalar
// code lane by lane); where margins leave math.Exp's normal path (|xᵢᵀθ| > 708 here) its
// lanes go back to Go, and the assembly path still gives the Go fallback's bits.
func TestAsmMatchesGoAtLargeMargins(t *testing.T) {
	if !HasAsm {
		t.Skip("no AVX2 and FMA here: the pure-Go kernel is the only one")
	}
	const m, d, k = 101, 50, 45
	X, y, Theta := problem(m, d, k, 21)
	for i := range Theta {
		Theta[i] *= 3000 // margins in the thousands
	}
	var large int
	for i := range m {
		for c := range k {
			var u float64
			for j := range d {
				u += X[i*d+j] * Theta[j*k+c]
			}
			if math.Abs(u) > 708 {
				large++
			}
		}
	}
	if large == 0 {
		t.Fatal("no margin beyond 708: the case does not reach the Go weights")
	}
	a, b := make([]float64, d*k), make([]float64, d*k)
	LogisticGradient(a, X, y, Theta, m, d, k, 0.1)
	HasAsm = false
	defer func() { HasAsm = true }()
	LogisticGradient(b, X, y, Theta, m, d, k, 0.1)
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("coordinate %d: assembly %v, Go %v (%d margins beyond 708)", i, a[i], b[i], large)
		}
	}
}

// allFour computes the gradients and Hessian–vector products at Θ (direction V), in float64
// and float32, with λ = 0.1.
func allFour(X, y, Theta, V []float64, m, d, k int) (g, hv []float64, g32, hv32 []float32) {
	g, hv = make([]float64, d*k), make([]float64, d*k)
	g32, hv32 = make([]float32, d*k), make([]float32, d*k)
	LogisticGradient(g, X, y, Theta, m, d, k, 0.1)
	LogisticHVP(hv, X, y, Theta, V, m, d, k, 0.1)
	LogisticGradient32(g32, to32(X), to32(y), to32(Theta), m, d, k, 0.1)
	LogisticHVP32(hv32, to32(X), to32(y), to32(Theta), to32(V), m, d, k, 0.1)
	return
}

// pass512's copies of a group of models out of a wider Θ (m ≥ copyRows, k above the group)
// give the bits the strided kernels give, for gradients and Hessian–vector products in
// both precisions: k = 70 and 128 are two and four float64 groups (one and two float32
// ones), the last of k = 70 narrower; m = 64 and 130 (with edge rows).
func TestGroupCopiesKeepTheBits(t *testing.T) {
	if !HasAsm || !HasAVX512 {
		t.Skip("no AVX-512 here: pass512 never runs")
	}
	for _, k := range []int{70, 128} {
		for _, m := range []int{copyRows, 130} {
			const d = 37
			X, y, Theta := problem(m, d, k, uint64(k+m))
			_, _, V := problem(m, d, k, uint64(k+m+1))
			run := func(copies bool) (g, hv []float64, g32, hv32 []float32) {
				copyGroups = copies
				defer func() { copyGroups = true }()
				return allFour(X, y, Theta, V, m, d, k)
			}
			gc, hvc, gc32, hvc32 := run(true)
			g, hv, g32, hv32 := run(false)
			for i := range g {
				if gc[i] != g[i] || hvc[i] != hv[i] || gc32[i] != g32[i] || hvc32[i] != hv32[i] {
					t.Fatalf("m = %d, k = %d, coordinate %d (row %d, model %d): with copies %v %v %v %v, strided %v %v %v %v",
						m, k, i, i/k, i%k, gc[i], hvc[i], gc32[i], hvc32[i], g[i], hv[i], g32[i], hv32[i])
				}
			}
		}
	}
}
