// Package normal draws what rand.New(rand.NewPCG(seed1, seed2)).NormFloat64 draws — the
// same PCG (DXSM), the same ziggurat and tables, so the same values bit for bit — with the
// generator's state in registers instead of behind an interface and a pointer: the power
// simulation and the bootstraps draw 10⁸–10⁹ normals, and the calls and the state's round
// trips through memory were half their cost. Hot loops inline Step, Fast and Slow by hand
// (the compiler does not inline Normal); Stream is the convenient form. The generator and
// the ziggurat with its tables are Go's math/rand/v2 pcg.go and normal.go (Copyright 2009
// and 2023 The Go Authors; BSD-style license, the Go distribution's LICENSE file).
package normal

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
)

// A Stream is rand.New(src).NormFloat64's stream for a PCG source src.
type Stream struct{ hi, lo uint64 }

// New is the stream of rand.NewPCG(seed1, seed2).
func New(seed1, seed2 uint64) Stream { return Stream{seed1, seed2} }

// FromPCG is the stream of src from its current state (src itself does not advance).
func FromPCG(src *rand.PCG) Stream {
	b, err := src.MarshalBinary()
	if err != nil || len(b) != 20 {
		panic(fmt.Sprintf("normal: rand.PCG's encoding changed: %d bytes, %v", len(b), err))
	}
	return Stream{binary.BigEndian.Uint64(b[4:12]), binary.BigEndian.Uint64(b[12:20])}
}

// State is the stream's generator state, (hi, lo) as Step takes it.
func (g Stream) State() (hi, lo uint64) { return g.hi, g.lo }

// SetState sets the stream's generator state.
func (g *Stream) SetState(hi, lo uint64) { g.hi, g.lo = hi, lo }

// Next is the stream's next normal.
func (g *Stream) Next() float64 {
	z, hi, lo := Normal(g.hi, g.lo)
	g.hi, g.lo = hi, lo
	return z
}

// Fill sets dst[i] = mean + sd·zᵢ for the stream's next normals z, as a loop of
// mean + sd*r.NormFloat64() computes them.
func (g *Stream) Fill(dst []float64, mean, sd float64) {
	hi, lo := g.hi, g.lo
	for i := range dst {
		u, h, l := Step(hi, lo)
		z, ok := Fast(u)
		if hi, lo = h, l; !ok {
			z, hi, lo = Slow(u, hi, lo)
		}
		dst[i] = mean + sd*z
	}
	g.hi, g.lo = hi, lo
}

// The PCG's multiplier M and increment C (the state steps to s·M + C mod 2¹²⁸), and the
// multiplier and increment of two steps at once, M² and C·(M + 1) mod 2¹²⁸ (TestSkip2).
const (
	mulHi, mulLo   = 2549297995355413924, 4865540595714422341
	incHi, incLo   = 6364136223846793005, 1442695040888963407
	mul2Hi, mul2Lo = 0x17bce35bdf69743c, 0x529ed9eb20e0ae99
	inc2Hi, inc2Lo = 0x4871bec9994273f8, 0xac1f8a1c3883459a
)

// Step is rand.PCG.Uint64 on the state (hi, lo): the output and the next state.
func Step(hi, lo uint64) (out, nhi, nlo uint64) {
	h, l := bits.Mul64(lo, mulLo)
	h += hi*mulLo + lo*mulHi
	l, c := bits.Add64(l, incLo, 0)
	h, _ = bits.Add64(h, incHi, c)
	return Out(h, l), h, l
}

// Out is the output of the step that reached the state (hi, lo) (PCG's DXSM mix).
func Out(hi, lo uint64) uint64 {
	o := hi
	o ^= o >> 32
	o *= 0xda942042e4dd58b5
	o ^= o >> 48
	o *= lo | 1
	return o
}

// Skip2 is the state two steps after (hi, lo). Two states a step apart, each advanced by
// Skip2, give every state in order, and their two multiply-adds run side by side: a
// loop over draws runs at the multiply's throughput, not at its latency.
func Skip2(hi, lo uint64) (nhi, nlo uint64) {
	h, l := bits.Mul64(lo, mul2Lo)
	h += hi*mul2Lo + lo*mul2Hi
	l, c := bits.Add64(l, inc2Lo, 0)
	h, _ = bits.Add64(h, inc2Hi, c)
	return h, l
}

// Normal is rand.Rand.NormFloat64 on the state (hi, lo): the ziggurat's first strip test,
// which takes more than 99 % of draws (Fast), and the rest in Slow.
func Normal(hi, lo uint64) (float64, uint64, uint64) {
	u, hi, lo := Step(hi, lo)
	if x, ok := Fast(u); ok {
		return x, hi, lo
	}
	return Slow(u, hi, lo)
}

// Fast is the ziggurat's value for a draw u, and whether its first test accepts it.
func Fast(u uint64) (float64, bool) {
	j := int32(u)
	i := u >> 32 & 0x7F
	a := uint32(j)
	if j < 0 {
		a = uint32(-j)
	}
	return float64(j) * float64(wn[i]), a < kn[i]
}

// R is rn of math/rand/v2: where the ziggurat's base strip's tail starts.
const R = 3.442619855899

// Slow is NormFloat64's loop from a draw u whose first test failed.
func Slow(u, hi, lo uint64) (float64, uint64, uint64) {
	uniform := func(v uint64) float64 { return float64(v<<11>>11) / (1 << 53) } // Rand.Float64
	for {
		j := int32(u)
		i := u >> 32 & 0x7F
		x := float64(j) * float64(wn[i])
		a := uint32(j)
		if j < 0 {
			a = uint32(-j)
		}
		if a < kn[i] {
			return x, hi, lo
		}
		if i == 0 {
			for {
				var v uint64
				v, hi, lo = Step(hi, lo)
				x = -math.Log(uniform(v)) * (1.0 / R)
				v, hi, lo = Step(hi, lo)
				y := -math.Log(uniform(v))
				if y+y >= x*x {
					break
				}
			}
			if j > 0 {
				return R + x, hi, lo
			}
			return -R - x, hi, lo
		}
		var v uint64
		v, hi, lo = Step(hi, lo)
		if below(fn[i]+float32(uniform(v))*(fn[i-1]-fn[i]), -.5*x*x) {
			return x, hi, lo
		}
		u, hi, lo = Step(hi, lo)
	}
}

// below is the wedge test l < float32(math.Exp(t)) for t = −x²/2 ∈ [−5.93, 0] (|x| < R)
// and l ≥ 0, the same answer for every input, mostly without math.Exp: a table and a
// cubic give e ≈ exp(t), and only when l is within about a float32 step of the float32
// that math.Exp rounds to (one wedge test in some 3·10⁵) does math.Exp decide. The wedge
// tests were a quarter of Fill's time, most of it math.Exp.
//
// Why the answer is the same. Write m = math.Exp(t), E = float32(m) and U for the float32
// after l. (1) e = expTab[k]·p(r) with −t = k/32 + r: k is −32t rounded to an integer,
// so |r| ≤ 2⁻⁶, and r is exact (−t and k/32 are multiples of ulp(−t), their difference
// under 2⁻⁵); expTab[k] is within 1 ulp (2⁻⁵²) of exp(−k/32) (TestExpTab, every entry
// against 256-bit math/big); p is exp(−r)'s Taylor polynomial to r³, off by at most
// r⁴/24·e^2|r| < 2⁻²⁸·⁵ relative, plus < 2⁻⁵¹ from its roundings (fused or not) and
// 2⁻⁵³ from the product: |e/exp(t) − 1| < 2⁻²⁸·⁴. (2) math.Exp is within 1 ulp of
// exp(t) (its documentation; TestExpNear checks 2⁻⁴⁰ against math/big on its samples,
// the amd64 assembly's too), so |m/e − 1| < 2⁻²⁸·³. (3) fl(e·(1 + 2⁻²⁶)) ≥ e·(1 + 2⁻²⁶)(1 − 2⁻⁵³)
// > e·(1 + 2⁻²⁸·³) > m: if it is ≤ l then m < l and, float32 rounding being monotone and l
// a float32, E ≤ l, so l < E is false. Likewise fl(e·(1 − 2⁻²⁶)) < m: if it is ≥ U then
// m > U and E ≥ U > l, so l < E is true. Otherwise (and for t off the table, which
// |x| < R never gives) math.Exp decides.
func below(l float32, t float64) bool {
	if b, ok := belowFast(l, t); ok {
		return b
	}
	return l < float32(math.Exp(t))
}

// belowFast is below's answer without math.Exp, and whether it has one.
func belowFast(l float32, t float64) (b, ok bool) {
	e, ok := expNear(t)
	if !ok {
		return false, false
	}
	if e*(1+0x1p-26) <= float64(l) {
		return false, true
	}
	if e*(1-0x1p-26) >= float64(math.Float32frombits(math.Float32bits(l)+1)) {
		return true, true
	}
	return false, false
}

// expNear is exp(t) within 2⁻²⁸·⁴ relative (below's proof, (1)) for t ≤ 0 (what below
// gets), and false off its table (t < −5.98). Its steps are few and short (it decides a
// branch the processor has to wait for): k is −32t rounded to an integer by adding
// 1.5·2⁵², and exp(−r) a cubic (Estrin's form).
func expNear(t float64) (float64, bool) {
	const magic = 0x1.8p52
	s := -t
	z := s*32 + magic
	kf := z - magic // −32t rounded: the add left no fraction bits
	if !(kf < float64(len(expTab))) {
		return 0, false
	}
	r := s - kf*(1.0/32)
	p := (1 - r) + r*r*(1.0/2-r*(1.0/6))
	return expTab[math.Float64bits(z)&0xff] * p, true
}

// expTab[k] is exp(−k/32) for k/32 up to R²/2 ≈ 5.93 (k ≤ 190) and a little past.
var expTab = func() (tab [192]float64) {
	for k := range tab {
		tab[k] = math.Exp(-float64(k) / 32)
	}
	return tab
}()

var kn = [128]uint32{
	0x76ad2212, 0x0, 0x600f1b53, 0x6ce447a6, 0x725b46a2,
	0x7560051d, 0x774921eb, 0x789a25bd, 0x799045c3, 0x7a4bce5d,
	0x7adf629f, 0x7b5682a6, 0x7bb8a8c6, 0x7c0ae722, 0x7c50cce7,
	0x7c8cec5b, 0x7cc12cd6, 0x7ceefed2, 0x7d177e0b, 0x7d3b8883,
	0x7d5bce6c, 0x7d78dd64, 0x7d932886, 0x7dab0e57, 0x7dc0dd30,
	0x7dd4d688, 0x7de73185, 0x7df81cea, 0x7e07c0a3, 0x7e163efa,
	0x7e23b587, 0x7e303dfd, 0x7e3beec2, 0x7e46db77, 0x7e51155d,
	0x7e5aabb3, 0x7e63abf7, 0x7e6c222c, 0x7e741906, 0x7e7b9a18,
	0x7e82adfa, 0x7e895c63, 0x7e8fac4b, 0x7e95a3fb, 0x7e9b4924,
	0x7ea0a0ef, 0x7ea5b00d, 0x7eaa7ac3, 0x7eaf04f3, 0x7eb3522a,
	0x7eb765a5, 0x7ebb4259, 0x7ebeeafd, 0x7ec2620a, 0x7ec5a9c4,
	0x7ec8c441, 0x7ecbb365, 0x7ece78ed, 0x7ed11671, 0x7ed38d62,
	0x7ed5df12, 0x7ed80cb4, 0x7eda175c, 0x7edc0005, 0x7eddc78e,
	0x7edf6ebf, 0x7ee0f647, 0x7ee25ebe, 0x7ee3a8a9, 0x7ee4d473,
	0x7ee5e276, 0x7ee6d2f5, 0x7ee7a620, 0x7ee85c10, 0x7ee8f4cd,
	0x7ee97047, 0x7ee9ce59, 0x7eea0eca, 0x7eea3147, 0x7eea3568,
	0x7eea1aab, 0x7ee9e071, 0x7ee98602, 0x7ee90a88, 0x7ee86d08,
	0x7ee7ac6a, 0x7ee6c769, 0x7ee5bc9c, 0x7ee48a67, 0x7ee32efc,
	0x7ee1a857, 0x7edff42f, 0x7ede0ffa, 0x7edbf8d9, 0x7ed9ab94,
	0x7ed7248d, 0x7ed45fae, 0x7ed1585c, 0x7ece095f, 0x7eca6ccb,
	0x7ec67be2, 0x7ec22eee, 0x7ebd7d1a, 0x7eb85c35, 0x7eb2c075,
	0x7eac9c20, 0x7ea5df27, 0x7e9e769f, 0x7e964c16, 0x7e8d44ba,
	0x7e834033, 0x7e781728, 0x7e6b9933, 0x7e5d8a1a, 0x7e4d9ded,
	0x7e3b737a, 0x7e268c2f, 0x7e0e3ff5, 0x7df1aa5d, 0x7dcf8c72,
	0x7da61a1e, 0x7d72a0fb, 0x7d30e097, 0x7cd9b4ab, 0x7c600f1a,
	0x7ba90bdc, 0x7a722176, 0x77d664e5,
}
var wn = [128]float32{
	1.7290405e-09, 1.2680929e-10, 1.6897518e-10, 1.9862688e-10,
	2.2232431e-10, 2.4244937e-10, 2.601613e-10, 2.7611988e-10,
	2.9073963e-10, 3.042997e-10, 3.1699796e-10, 3.289802e-10,
	3.4035738e-10, 3.5121603e-10, 3.616251e-10, 3.7164058e-10,
	3.8130857e-10, 3.9066758e-10, 3.9975012e-10, 4.08584e-10,
	4.1719309e-10, 4.2559822e-10, 4.338176e-10, 4.418672e-10,
	4.497613e-10, 4.5751258e-10, 4.651324e-10, 4.7263105e-10,
	4.8001775e-10, 4.87301e-10, 4.944885e-10, 5.015873e-10,
	5.0860405e-10, 5.155446e-10, 5.2241467e-10, 5.2921934e-10,
	5.359635e-10, 5.426517e-10, 5.4928817e-10, 5.5587696e-10,
	5.624219e-10, 5.6892646e-10, 5.753941e-10, 5.818282e-10,
	5.882317e-10, 5.946077e-10, 6.00959e-10, 6.072884e-10,
	6.135985e-10, 6.19892e-10, 6.2617134e-10, 6.3243905e-10,
	6.386974e-10, 6.449488e-10, 6.511956e-10, 6.5744005e-10,
	6.6368433e-10, 6.699307e-10, 6.7618144e-10, 6.824387e-10,
	6.8870465e-10, 6.949815e-10, 7.012715e-10, 7.075768e-10,
	7.1389966e-10, 7.202424e-10, 7.266073e-10, 7.329966e-10,
	7.394128e-10, 7.4585826e-10, 7.5233547e-10, 7.58847e-10,
	7.653954e-10, 7.719835e-10, 7.7861395e-10, 7.852897e-10,
	7.920138e-10, 7.987892e-10, 8.0561924e-10, 8.125073e-10,
	8.194569e-10, 8.2647167e-10, 8.3355556e-10, 8.407127e-10,
	8.479473e-10, 8.55264e-10, 8.6266755e-10, 8.7016316e-10,
	8.777562e-10, 8.8545243e-10, 8.932582e-10, 9.0117996e-10,
	9.09225e-10, 9.174008e-10, 9.2571584e-10, 9.341788e-10,
	9.427997e-10, 9.515889e-10, 9.605579e-10, 9.697193e-10,
	9.790869e-10, 9.88676e-10, 9.985036e-10, 1.0085882e-09,
	1.0189509e-09, 1.0296151e-09, 1.0406069e-09, 1.0519566e-09,
	1.063698e-09, 1.0758702e-09, 1.0885183e-09, 1.1016947e-09,
	1.1154611e-09, 1.1298902e-09, 1.1450696e-09, 1.1611052e-09,
	1.1781276e-09, 1.1962995e-09, 1.2158287e-09, 1.2369856e-09,
	1.2601323e-09, 1.2857697e-09, 1.3146202e-09, 1.347784e-09,
	1.3870636e-09, 1.4357403e-09, 1.5008659e-09, 1.6030948e-09,
}
var fn = [128]float32{
	1, 0.9635997, 0.9362827, 0.9130436, 0.89228165, 0.87324303,
	0.8555006, 0.8387836, 0.8229072, 0.8077383, 0.793177,
	0.7791461, 0.7655842, 0.7524416, 0.73967725, 0.7272569,
	0.7151515, 0.7033361, 0.69178915, 0.68049186, 0.6694277,
	0.658582, 0.6479418, 0.63749546, 0.6272325, 0.6171434,
	0.6072195, 0.5974532, 0.58783704, 0.5783647, 0.56903,
	0.5598274, 0.5507518, 0.54179835, 0.5329627, 0.52424055,
	0.5156282, 0.50712204, 0.49871865, 0.49041483, 0.48220766,
	0.4740943, 0.46607214, 0.4581387, 0.45029163, 0.44252872,
	0.43484783, 0.427247, 0.41972435, 0.41227803, 0.40490642,
	0.39760786, 0.3903808, 0.3832238, 0.37613547, 0.36911446,
	0.3621595, 0.35526937, 0.34844297, 0.34167916, 0.33497685,
	0.3283351, 0.3217529, 0.3152294, 0.30876362, 0.30235484,
	0.29600215, 0.28970486, 0.2834622, 0.2772735, 0.27113807,
	0.2650553, 0.25902456, 0.2530453, 0.24711695, 0.241239,
	0.23541094, 0.22963232, 0.2239027, 0.21822165, 0.21258877,
	0.20700371, 0.20146611, 0.19597565, 0.19053204, 0.18513499,
	0.17978427, 0.17447963, 0.1692209, 0.16400786, 0.15884037,
	0.15371831, 0.14864157, 0.14361008, 0.13862377, 0.13368265,
	0.12878671, 0.12393598, 0.119130544, 0.11437051, 0.10965602,
	0.104987256, 0.10036444, 0.095787846, 0.0912578, 0.08677467,
	0.0823389, 0.077950984, 0.073611505, 0.06932112, 0.06508058,
	0.06089077, 0.056752663, 0.0526674, 0.048636295, 0.044660863,
	0.040742867, 0.03688439, 0.033087887, 0.029356318,
	0.025693292, 0.022103304, 0.018592102, 0.015167298,
	0.011839478, 0.008624485, 0.005548995, 0.0026696292,
}
