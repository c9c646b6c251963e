// Package philox draws standard normals addressed by (seed, trial, step) from
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
// FillWide writes a stream's normals in bulk, four a block: block i's words (0, 1) and
// (2, 3) each give a 32-bit uniform u = (a + ½)·2⁻³² (never 0) and an angle v = b·2⁻³²,
// and the two normals
//
//	√(−2 ln u)·cos 2πv,  √(−2 ln u)·sin 2πv.
//
// Box–Muller was chosen over the ziggurat (math/rand's) because it has no rejection: every
// block costs the same log, square root and sine-cosine, with no data-dependent branch, so
// SIMD lanes run in step; and over an inverse-CDF approximation because it is exact up to
// the rounding of those three, in the tails too. The transform is this package's own
// (transform32.go), in float32 arithmetic after an exact reduction: series of four and
// five terms on reduced ranges, each step one fused float32 multiply-add (fma32, exact in
// Go on every build; VFMADD231PS in the kernels) and every other operation one rounded
// IEEE operation, so that every build (math.Sincos's bits change with GOAMD64, where the
// compiler fuses multiply-adds of its own choosing) and the assembly kernels give the same
// bits, pinned by TestStreamsPinned. Relatively, the radius is within 4.7·2⁻²⁴ of the
// exact transform of its word, the sine and cosine within 3.7·2⁻²⁴ and a normal within
// 9.4·2⁻²⁴ (TestTransform32Accuracy's first-order error analysis; 2.77·2⁻²⁴ and
// 2.92·2⁻²⁴ the worst measured over 2²² words); the 32-bit u bounds |z| by
// √(2·33·ln 2) = 6.76σ, beyond which the normal law has 1.4·10⁻¹¹ of its mass. FillWide
// writes these float32 normals widened to float64 (exactly), for an engine whose
// arithmetic is float64: it is the stream reference/sglu draws (v2). Stream v1, Box–Muller
// of 53-bit uniforms in float64 (Fill, two normals a block), was removed when the engine
// moved to v2 (issue 44), and the float32-output fills (Fill32, FillAt32, FillScaled32)
// later, as nothing but their tests called them.
//
// # Using it
//
// To give trial t its noise at step s, fill a buffer from its address:
//
//	noise := make([]float64, d)
//	philox.FillWide(noise, seed, t, s)
//
// and nothing else: there is no generator to create, share, lock or advance, and two calls
// with one address give the same values whatever ran between them (see ExampleFillWide).
// FillScaledWide(noise, sd, seed, t, s) writes sd·z for each normal z in the same pass,
// the very bits of multiplying FillWide's output by sd (one rounding of the product): the
// Langevin step's noise σ·√(2η)·z without a second pass over it. An ensemble of runs,
// one stream a run, draws a step's noise with FillScaledWideRows(noise, d, sd, seeds, t, s):
// row r of noise is FillScaledWide's d values of seeds[r], the same bits, with the rows'
// last partial units of the kernels (16 of 784 normals) transformed together instead of
// one row at a time.
//
// # Reading a stream from any block
//
// A stream is its blocks in order, and each block's values sit at fixed places:
// FillWide's normals 4i to 4i+3 are block i's, the pairs of words 0, 1 and 2, 3. So any
// stretch of a stream can be drawn without the blocks before it, from Block's words; the
// package's own fill reads from any block (fillWide; the tests hold it to the tail of one
// long FillWide), though the exported fills, all the engine needs, start at block 0. A
// stream has 2³² blocks; reading past its end panics.
//
// # The kernels
//
// On amd64, FillWide and FillScaledWide run assembly kernels (kernel_amd64.s, generated
// by asm/gen.go and asm/gen32.go with avo: go generate) that give exactly the pure-Go
// path's bits. Philox and the transform are two kernels (kernel.go's splitWide). A
// Philox kernel puts each block in a 64-bit lane of a 512-bit (AVX-512, groups of eight
// blocks) or 256-bit (AVX2, groups of four) register, a round's two 32×32→64-bit
// products by VPMULUDQ, their high words shifted down and xored with the key and the
// other words (one VPTERNLOGQ on AVX-512). The lanes share the counter's step and trial
// words, so round 1's product of word 2 and round 2's of word 0 are the same in every
// lane: they are computed once a call in Go (preRounds) and folded into the round keys.
// It writes a chunk's words (384 blocks, 12 KiB) where the chunk's normals go, six
// groups side by side on AVX-512 (each round emitted group after group, so that six
// groups' words fit the 32 registers) and two on AVX2.
//
// The transform's kernels (asm/gen32.go) run in float32 lanes, sixteen a 512-bit register
// and eight a 256-bit one, a unit of two groups' blocks (16 or 8) a register, its word
// pairs (0, 1) and (2, 3) two chains, two units a step on AVX-512 and one on AVX2:
//
//   - The words packed from the groups' quadwords into dwords (VPERMT2D; VSHUFPS on
//     AVX2), in an order that the output's unpacks turn into block order.
//   - The radius's reduction in integer arithmetic, exactly transform32.go's float64
//     one (checked over all 2³² words when it was written): E = ⌊log₂ a⌋ from the word
//     converted toward zero (VCVTUDQ2PS with {rz-sae}; on AVX2 from its top 24 and low
//     8 bits, each converted exactly), (2a + 1) << (31 − E) the mantissa's fraction
//     m − 1 in 32 bits, m > √2 an unsigned compare with ⌊(√2 − 1)·2³²⌋, the halved
//     mantissa's fraction its negation, f its one rounding to float32 (VCVTUDQ2PS; on
//     AVX2 its two halves, the high times 2¹⁶ plus the low in one FMA) times a power
//     of two; then VADDPS, VDIVPS, the series by Horner (VFMADD231PS, VFMADD213PS,
//     each fma32 of the Go with its addend), VSQRTPS.
//   - The angle from the word shifted (VPSLLD, VCVTDQ2PS, an exact scale), the two
//     series by Horner, the quarter turn k from bits 30 and 31 of b + 2²⁹: a blend and
//     a sign xor, the odd quadrant's cosine negated.
//   - R·cos and R·sin, into block order by eight unpacks a unit, widened (VCVTPS2PD,
//     exact) and times sd in float64 (sd = 1 gives the same bits, so there is no
//     unscaled kernel).
//
// Every operation is one IEEE 754 operation correctly rounded, the same as the Go code's,
// in the same order (a word's conversion to float32 rounds once, as the Go's does), or an
// exact one (powers of two, the integer reduction, whose f and e are the Go's), so the
// bits cannot differ;
// TestKernelsAreGosBits and its rapid twin check it value by value on every path this
// CPU has, TestFloat32KernelsOnEdgeWords the transform's kernels on the words where its
// reduction turns, and TestStreamsPinned holds every path to the pinned hashes. On
// AVX-512 each constant is loaded once a step into a register the chains share. A
// chunk's last groups (units), fewer than a step, run through one-group (one-unit) twins
// of the kernels (One), and a last partial unit goes through a buffer on the stack,
// copied out. A block's four words take the room of its four float64 normals, so Philox
// writes them to dst and the transform overwrites them: no chunk buffer to clear a call
// (3 KiB: 29 ns).
//
// The path is chosen once, at start-up (bestPath): AVX-512 if the CPU and OS have
// AVX-512 F and DQ, else AVX2 with FMA3, else pure Go (other architectures, older CPUs,
// and GODEBUG=cpu.avx512f=off, cpu.avx2=off or cpu.fma=off, which golang.org/x/sys/cpu
// honours; pure Go's fma32 is computed from float64 operations, with the same bits). The
// pure-Go path runs a block at a time.
//
// # How it is checked and what it costs
//
// The tests check Block against Random123's published known answers, pin the layout
// above and the streams' bits, hold the transform to its error bounds, and test the
// normals of stream v2 as a generator from fixed seeds (moments, tails to 6σ, a
// fine-binned χ², independence of adjacent trials, steps and positions), each with its
// false-failure probability and power stated. BenchmarkFill gives the cost a normal on
// each path, wall and CPU time, and its multiple of copying the same bytes;
// BenchmarkBlock Philox's share in pure Go; BenchmarkEpochNoise the noise of one SGLU
// trial-epoch at b = 128 (88 steps of 784 normals). What this project's 2-core machine
// (AMD EPYC, Zen 5, shared while measured) runs a cycle, measured with 512-bit operands:
// FMAs, multiplies, VPMULUDQs and permutes on two pipes, adds, shifts and conversions on
// two others, logic and shuffles on all four, two loads and one store; a VPMULUDQ takes 3
// cycles, an integer add, shift or xor 2, an FMA 4, a division 14 and a square root 21. A
// Philox round is thus a 7-cycle chain: in one kernel with a transform, two groups waited
// on it; apart, the Philox kernel runs six side by side.
//
// The transform's kernels (issue 44; thread CPU, the least of five runs, the machine
// shared): a FillScaledWide normal costs 0.55 ns at n = 784 and 0.44 at 2¹⁶ on AVX-512
// (1.41 and 1.32 on AVX2), the removed float32-output Fill32 one 0.51–0.56 and 0.39 (1.26
// and 1.15), where v1's float64 Fill cost 1.09 and 0.96 (2.8); the epoch's noise 0.037 ms
// with FillScaledWide, 0.077 with v1's. Of FillScaledWide's cost on AVX-512, Philox is
// 0.17 ns a normal (one word) and the transform 0.26 (0.21 with a float32 output: the
// widening is the rest), near its operation count: 165 vector operations a unit of 64
// normals. Tried and not kept (same bits): the sine-cosine before the radius, a step's units written one
// after the other (two or three a step), the radius's and the angle's operations
// interleaved one by one (one unit a step: two units so do not fit the registers), each
// 10–35 % slower (the transform alone); FillWide's last partial unit drawn first, to
// overlap its chain with the rest (1–3 % slower at 784 values, 2 % faster at 2¹⁶);
// three units a step, and two on AVX2, need more registers than there are.
//
// Reports and checkpoints name the stream SGLU's noise is (reference/sglu's NoiseStream);
// a checkpoint of another stream is refused.
package philox

//go:generate go run -C asm . -out ../kernel_amd64.s -stubs ../kernel_amd64_stubs.go -pkg philox
