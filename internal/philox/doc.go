// Package philox draws uniforms and standard normals addressed by (seed, trial, step) from
// the counter-based generator Philox4x32-10. It is Philox as Salmon, Moraes, Dror and Shaw
// defined it ("Parallel random numbers: as easy as 1, 2, 3", SC 2011), the generator of JAX,
// PyTorch and cuRAND, in pure Go.
//
// # A block is a function, not a state
//
// Block maps a 128-bit counter and a 64-bit key to 128 random bits, a bijection of the
// counter for each key. Nothing is carried from one call to the next, so the values at any
// position of any stream are computed directly, in any order, on any machine:
//
//	x := philox.Block(philox.Counter(trial, step, i), philox.Key(seed))
//
// # Streams are addressed by (seed, trial, step)
//
// The key is the seed (its low word first). The counter is
//
//	word 0: i, the block's index in its stream (2³² blocks a stream)
//	word 1: step
//	word 2: trial, low 32 bits
//	word 3: trial, high 32 bits
//
// so each (trial, step) has its own stream, and no two share a block: a shard running
// trials 1000–1999 and a lockstep engine running all trials at once draw identical values
// for trial 1500 without coordinating.
//
// # Normals by Box–Muller
//
// Fill writes a stream's normals in bulk. Block i's four words give two 53-bit uniforms
// u (words 1:0) and v (words 3:2), and the two normals
//
//	√(−2 ln u)·cos 2πv,  √(−2 ln u)·sin 2πv.
//
// Box–Muller was chosen over the ziggurat (math/rand's) because it has no rejection: every
// block costs the same log, square root and sine-cosine, with no data-dependent branch, so
// SIMD lanes run in step; and over an inverse-CDF approximation because it is exact up to
// the rounding of those three, in the tails too. The log and the sine-cosine are this
// package's own (transform.go): Taylor series on a reduced range whose products are
// rounded before their sums, so that every build (math.Sincos's bits change with GOAMD64,
// where the compiler fuses multiply-adds) and an assembly kernel doing mulpd then addpd
// give the same bits, pinned by TestStreamsPinned. The log is within 6 ulp of math.Log
// (2 measured), the sine and cosine within 2⁻⁴⁹ of math.Sincos(2πv) (2⁻⁵⁰·⁴ measured, the
// rounding of 2πv being most of it), so a normal is within a few ulp of the exact
// transform of its uniforms. With a 53-bit u centred in its cell (never 0) |z| reaches
// √(2·54·ln 2) = 8.65σ; beyond it the normal law has 5·10⁻¹⁸ of its mass. Fill32 makes four
// float32 normals a block from 32-bit uniforms (|z| ≤ 6.76σ, beyond which the law has
// 1.4·10⁻¹¹), computed in float64 and rounded once.
// FillUniform and FillUniform32 give the uniforms themselves.
//
// # Using it
//
// To give trial t its noise at step s, fill a buffer from its address:
//
//	noise := make([]float64, d)
//	philox.Fill(noise, seed, t, s)
//
// and nothing else: there is no generator to create, share, lock or advance, and two calls
// with one address give the same values whatever ran between them (see ExampleFill).
//
// # How it is checked and what it costs
//
// The tests check Block against Random123's published known answers, pin the layout
// above and the streams' bits, hold the log and sine-cosine to their error bounds, and
// test the normals as a generator from fixed seeds (moments, tails to 6σ, a
// fine-binned χ², independence of adjacent trials, steps and positions), each with its
// false-failure probability and power stated. BenchmarkFill gives the cost a normal and
// its multiple of copying the same bytes, BenchmarkBlock Philox's share of it: in pure Go
// both are scalar, tens of nanoseconds a normal, hundreds of times the copy; running four
// or eight blocks and their transforms a SIMD instruction is what the kernels are for.
//
// Nothing in the trial engine uses this package yet: its streams are not
// math/rand/v2's, so adopting them changes reports' bits and is a versioned change.
package philox

//go:generate go run -C asm . -out ../kernel_amd64.s -stubs ../kernel_amd64_stubs.go -pkg philox
