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
// that SIMD lanes run in step and an assembly kernel can reproduce the pure-Go values; and
// over an inverse-CDF approximation because it is exact up to the rounding of its log,
// square root and sincos (math.Log, math.Sqrt, math.Sincos: within an ulp or two), in the
// tails too. With a 53-bit u centred in its cell (never 0) |z| reaches √(2·54·ln 2) = 8.65σ;
// beyond it the normal law has 5·10⁻¹⁸ of its mass. Fill32 makes four float32 normals a
// block from 32-bit uniforms (|z| ≤ 6.76σ, beyond which the law has 1.4·10⁻¹¹).
// FillUniform and FillUniform32 give the uniforms themselves.
package philox
