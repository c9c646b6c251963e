package ensemble

import (
	"math"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"
)

// stepLoop is the update as sglu's Ensemble.step computed it before NoisyStep, one run
// after another in each coordinate, on the noise sd·z it drew with FillScaledWide (one
// rounding of sd·float64(z)): the bits NoisyStep must give.
func stepLoop(theta []float64, z []float32, sd float64, g, norm2 []float64, d, k int, eta float64) {
	for i := range d {
		th, gi := theta[i*k:(i+1)*k], g[i*k:(i+1)*k]
		for t := range th {
			v := th[t] + (float64(sd*float64(z[t*d+i])) - float64(eta*gi[t]))
			th[t] = v
			norm2[t] += float64(v * v)
		}
	}
}

// stepValues fills v with values that exercise the update's roundings: normals over sixty
// binary orders of magnitude (so sums and differences round, and the order of a run's
// squared norm matters), and with probability special/8 one of ±0, ±Inf, subnormals,
// values whose square overflows or underflows, and ones just off a power of two.
func stepValues(r *rand.Rand, v []float64, special int) {
	specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 0x1p-1074, -0x1p-1060, 0x1p600, -0x1p-600, 1 + 0x1p-52, 1 - 0x1p-53, math.MaxFloat64}
	for i := range v {
		if r.IntN(8) < special {
			v[i] = specials[r.IntN(len(specials))]
		} else {
			v[i] = r.NormFloat64() * math.Exp2(float64(r.IntN(61)-30))
		}
	}
}

// noiseValues fills z with float32 normals, and with probability special/8 one of ±0,
// ±Inf, subnormals, the largest float32 and ones just off a power of two.
func noiseValues(r *rand.Rand, z []float32, special int) {
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), 0x1p-149, -0x1p-140, 1 + 0x1p-23, 1 - 0x1p-24, math.MaxFloat32}
	for i := range z {
		if r.IntN(8) < special {
			z[i] = specials[r.IntN(len(specials))]
		} else {
			z[i] = float32(r.NormFloat64())
		}
	}
}

// stepCase is one update's inputs.
type stepCase struct {
	d, k            int
	theta, g, norm2 []float64
	z, g32          []float32
	sd, eta         float64
}

func newStepCase(d, k int, seed uint64, special int) stepCase {
	r := rand.New(rand.NewPCG(seed, 44))
	c := stepCase{d: d, k: k, theta: make([]float64, d*k), z: make([]float32, k*d), g: make([]float64, d*k), norm2: make([]float64, k), g32: make([]float32, d*k)}
	stepValues(r, c.theta, special)
	noiseValues(r, c.z, special)
	stepValues(r, c.g, special)
	for i := range c.norm2 { // a norm already under way (NoisyStep adds to it), or zero
		if r.IntN(2) == 0 {
			c.norm2[i] = math.Abs(r.NormFloat64()) * math.Exp2(float64(r.IntN(41)-20))
		}
	}
	for i, v := range c.g {
		c.g32[i] = float32(v)
	}
	c.eta = math.Abs(r.NormFloat64()) * math.Exp2(float64(r.IntN(11)-5))
	// sd over sixty orders of magnitude (sd·z then rounds: z's 24 bits times sd's 53), or
	// with probability special/8 one whose products underflow or overflow
	c.sd = math.Abs(r.NormFloat64()) * math.Exp2(float64(r.IntN(61)-30))
	if r.IntN(8) < special {
		c.sd = []float64{0x1p-1074, 0x1p-1000, 0x1p900, math.MaxFloat64}[r.IntN(4)]
	}
	return c
}

// check runs NoisyStep and NoisyStep32 on copies of c and compares them with stepLoop, bit
// for bit: θ, norm2, and θ32 = float32(θ) (NoisyStep32's reference is stepLoop on the
// widened float32 gradients).
func (c stepCase) check(fatalf func(string, ...any), asm bool) {
	wantTheta, wantNorm := append([]float64(nil), c.theta...), append([]float64(nil), c.norm2...)
	stepLoop(wantTheta, c.z, c.sd, c.g, wantNorm, c.d, c.k, c.eta)
	theta, norm2 := append([]float64(nil), c.theta...), append([]float64(nil), c.norm2...)
	NoisyStep(theta, c.z, c.sd, c.g, norm2, c.d, c.k, c.eta)
	c.compare(fatalf, "NoisyStep", asm, theta, wantTheta, norm2, wantNorm, nil)

	g := make([]float64, len(c.g32))
	for i, v := range c.g32 {
		g[i] = float64(v)
	}
	wantTheta, wantNorm = append(wantTheta[:0], c.theta...), append(wantNorm[:0], c.norm2...)
	stepLoop(wantTheta, c.z, c.sd, g, wantNorm, c.d, c.k, c.eta)
	theta, norm2 = append(theta[:0], c.theta...), append(norm2[:0], c.norm2...)
	theta32 := make([]float32, len(theta))
	for i := range theta32 {
		theta32[i] = float32(math.NaN()) // every entry must be written
	}
	NoisyStep32(theta, theta32, c.z, c.sd, c.g32, norm2, c.d, c.k, c.eta)
	c.compare(fatalf, "NoisyStep32", asm, theta, wantTheta, norm2, wantNorm, theta32)
}

func (c stepCase) compare(fatalf func(string, ...any), name string, asm bool, theta, wantTheta, norm2, wantNorm []float64, theta32 []float32) {
	for i := range theta {
		if math.Float64bits(theta[i]) != math.Float64bits(wantTheta[i]) {
			fatalf("%s d = %d, k = %d (assembly %v): θ[%d] (coordinate %d, run %d) is %v, the loop's %v", name, c.d, c.k, asm, i, i/c.k, i%c.k, theta[i], wantTheta[i])
		}
		if theta32 != nil && math.Float32bits(theta32[i]) != math.Float32bits(float32(wantTheta[i])) {
			fatalf("%s d = %d, k = %d (assembly %v): θ32[%d] (coordinate %d, run %d) is %v, float32 of the loop's θ %v", name, c.d, c.k, asm, i, i/c.k, i%c.k, theta32[i], float32(wantTheta[i]))
		}
	}
	for t := range norm2 {
		if math.Float64bits(norm2[t]) != math.Float64bits(wantNorm[t]) {
			fatalf("%s d = %d, k = %d (assembly %v): run %d's norm² is %v, the loop's %v", name, c.d, c.k, asm, t, norm2[t], wantNorm[t])
		}
	}
}

// NoisyStep and NoisyStep32 are the scalar loop's bits on every path, for any shape: d and
// k drawn from 1 to 40 (whole 8 × 8 tiles, a run tail, a coordinate tail, both, and shapes
// below one tile, which go through Go alone), values over sixty orders of magnitude with
// or without special ones, the noise's scale sd too. Caught when planted: the assembly's
// η·g subtracted by a fused VFNMADD231PD, the coordinate tail's squares added before the
// tiles', the run tail left out, one z row of two left unscaled (assembly), sd·z − η·g
// fused into one math.FMA (Go).
func TestNoisyStepIsTheScalarLoop(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		d := rapid.IntRange(1, 40).Draw(rt, "d")
		k := rapid.IntRange(1, 40).Draw(rt, "k")
		special := rapid.IntRange(0, 2).Draw(rt, "special")
		c := newStepCase(d, k, rapid.Uint64().Draw(rt, "seed"), special)
		onEachPath(func(asm bool) { c.check(rt.Fatalf, asm) })
	})
}

// The same at fixed shapes, whatever rapid draws: the engine's (d = 784, k = 32 and 128),
// a tile exactly, and each tail on its own beside many tiles.
func TestNoisyStepShapes(t *testing.T) {
	for i, s := range [][2]int{{784, 32}, {784, 128}, {8, 8}, {64, 45}, {101, 16}, {101, 45}, {7, 100}, {100, 7}, {1, 1}} {
		c := newStepCase(s[0], s[1], uint64(i), 1)
		onEachPath(func(asm bool) { c.check(t.Fatalf, asm) })
	}
}

// The update allocates nothing on either path (it runs at every step of every run).
func TestNoisyStepDoesNotAllocate(t *testing.T) {
	c := newStepCase(37, 21, 5, 0)
	theta32 := make([]float32, len(c.theta))
	onEachPath(func(asm bool) {
		if n := testing.AllocsPerRun(10, func() { NoisyStep(c.theta, c.z, c.sd, c.g, c.norm2, c.d, c.k, c.eta) }); n != 0 {
			t.Errorf("NoisyStep (assembly %v): %v allocations a call", asm, n)
		}
		if n := testing.AllocsPerRun(10, func() { NoisyStep32(c.theta, theta32, c.z, c.sd, c.g32, c.norm2, c.d, c.k, c.eta) }); n != 0 {
			t.Errorf("NoisyStep32 (assembly %v): %v allocations a call", asm, n)
		}
	})
}

func TestNoisyStepRefusesShortSlices(t *testing.T) {
	c := newStepCase(9, 9, 1, 0)
	for name, f := range map[string]func(){
		"θ":     func() { NoisyStep(c.theta[:80], c.z, 1, c.g, c.norm2, 9, 9, 1) },
		"z":     func() { NoisyStep(c.theta, c.z[:80], 1, c.g, c.norm2, 9, 9, 1) },
		"g":     func() { NoisyStep(c.theta, c.z, 1, c.g[:80], c.norm2, 9, 9, 1) },
		"norm2": func() { NoisyStep(c.theta, c.z, 1, c.g, c.norm2[:8], 9, 9, 1) },
		"θ32":   func() { NoisyStep32(c.theta, make([]float32, 80), c.z, 1, c.g32, c.norm2, 9, 9, 1) },
		"g32":   func() { NoisyStep32(c.theta, make([]float32, 81), c.z, 1, c.g32[:80], c.norm2, 9, 9, 1) },
		"k = 0": func() { NoisyStep(c.theta, c.z, 1, c.g, c.norm2, 9, 0, 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("a short %s was accepted", name)
				}
			}()
			f()
		}()
	}
}
