// Package ars draws standard normals addressed by (seed, trial, step) from ARS-4x32
// (Advanced Randomization System), the counter-based generator of Salmon, Moraes, Dror
// and Shaw ("Parallel random numbers: as easy as 1, 2, 3", SC 2011) built from AES
// rounds: the stream SGLU's Langevin noise is (v3).
//
// # A block is a function, not a state
//
// Block maps a 128-bit counter and a 128-bit key to 128 random bits, a bijection of the
// counter for each key. Nothing is carried from one call to the next, so the values at
// any position of any stream are computed directly, in any order, on any machine:
//
//	x := ars.Block(ars.Counter(trial, step, i), ars.Key(seed), ars.StreamRounds)
//
// Block is Random123's ars4x32_R: the key xored into the counter, then rounds − 1 AES
// encryption rounds (x86's AESENC: ShiftRows, SubBytes, MixColumns, the round key xored)
// and a last one without MixColumns (AESENCLAST), the round key advanced before each by
// the Weyl increments of the golden ratio (low 64 bits) and √3 − 1 (high 64 bits). A
// state is the 128-bit register's bytes in memory order read as four little-endian
// words, so that ctr[0] is the low word, as Random123 prints it. The AES round is this
// package's own, from FIPS 197's definitions (the S-box computed from the inverse in
// GF(2⁸) and the affine map), a table of one column a byte rather than a constant-time
// one: this is a generator of noise for simulation, not a cipher, and nothing secret
// enters it. The streams use StreamRounds = 7, Random123's default for ars4x32.
//
// # Streams are addressed by (seed, trial, step)
//
// The key is the seed (its low word first; words 2 and 3 zero). The counter is
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
// # Normals by Box–Muller, paired across a group
//
// FillWide writes a stream's normals in bulk, 32 a group of 8 blocks: the group's 32
// words w in block order (block 8g's four words first), word l (l = 0 to 15) gives a
// 32-bit uniform u = (a + ½)·2⁻³² (never 0) and word 16 + l an angle v = b·2⁻³², and the
// two normals
//
//	z[32g + l] = √(−2 ln u)·cos 2πv,  z[32g + 16 + l] = √(−2 ln u)·sin 2πv.
//
// The pairing is the kernels': a 512-bit register holds a group's 16 radius words, the
// next its 16 angle words, lane by lane, and its 16 cosines and 16 sines are stored as
// they are, with no shuffle of words or values (stream v2 paired the words of one Philox
// block, and its kernels spent about 7 % of their operations packing words and unpacking
// normals).
//
// Box–Muller was chosen over the ziggurat (math/rand's) because it has no rejection: every
// pair costs the same log, square root and sine-cosine, with no data-dependent branch, so
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
// arithmetic is float64.
//
// # Using it
//
// To give trial t its noise at step s, fill a buffer from its address:
//
//	noise := make([]float64, d)
//	ars.FillWide(noise, seed, t, s)
//
// and nothing else: there is no generator to create, share, lock or advance, and two calls
// with one address give the same values whatever ran between them (see ExampleFillWide).
// FillScaledWide(noise, sd, seed, t, s) writes sd·z for each normal z in the same pass,
// the very bits of multiplying FillWide's output by sd (one rounding of the product): the
// Langevin step's noise σ·√(2η)·z without a second pass over it. An ensemble of runs,
// one stream a run, draws a step's noise with FillWideRows32(z, d, seeds, t, s): row r of
// z (a []float32) is seeds[r]'s first d normals before their widening, so float64(z[i])
// is FillWide's value and sd·float64(z[i]) FillScaledWide's, the same bits; the engine
// scales them in its own update, and the rows' last partial groups (16 of 784 normals)
// are transformed together instead of one row at a time.
//
// A stream is its groups in order, and each group's values sit at fixed places, so any
// stretch of a stream can be drawn without the groups before it; the package's own fill
// reads from any group (fillWide; the tests hold it to the tail of one long FillWide),
// though the exported fills, all the engine needs, start at group 0. A stream has 2²⁹
// groups (2³⁴ normals); reading past its end panics.
//
// # The kernels
//
// On amd64, the fills run assembly kernels (kernel_amd64.s, generated by asm/ with avo:
// go generate) that give exactly the pure-Go path's bits, two for a fill (kernel.go):
//
//   - The words kernel writes a chunk's words in block order: VAES on 512-bit registers,
//     four blocks an AESENC, eight registers side by side (an AES round's latency is a few
//     cycles, and one issues each cycle), or AES-NI's 128-bit form on CPUs without VAES.
//     The counter's words 1 to 3 are the same in every lane, so they are xored into the
//     first round key once a call (roundKeys), and the blocks' indices lane by lane.
//   - The transform kernel reads them and writes the normals in their place, in float32
//     lanes, sixteen a 512-bit register and eight a 256-bit one, a group's radius words
//     one register and its angle words the next: the radius's reduction in integer
//     arithmetic, exactly transform32.go's float64 one (E = ⌊log₂ a⌋ from the word
//     converted toward zero, (2a + 1) << (31 − E) the mantissa's fraction in 32 bits,
//     m > √2 an unsigned compare, f its one rounding to float32), then VADDPS, VDIVPS,
//     the series by Horner (VFMADD231PS, VFMADD213PS, each fma32 of the Go with its
//     addend), VSQRTPS; the angle from the word shifted, the two series, the quarter turn
//     from bits 30 and 31 of b + 2²⁹ (a blend and a sign xor); R·cos and R·sin stored as
//     float32, or widened (VCVTPS2PD, exact) and times sd in float64 (sd = 1 gives the
//     same bits, so there is no unscaled kernel). AVX-512 runs four groups a step (a One
//     twin runs one, for a length's last groups), AVX2 one.
//
// Every operation is one IEEE 754 operation correctly rounded, the same as the Go code's,
// in the same order, or an exact one, so the bits cannot differ; TestKernelsAreGosBits
// and its rapid twin check it value by value on every pair of paths this CPU has,
// TestWordsAreBlocks holds each words kernel to Block, TestFloat32KernelsOnEdgeWords the
// transform's kernels on the words where its reduction turns, and TestStreamsPinned holds
// every path to the pinned hash. A group's 32 words take the room of 16 of its float64
// values, so FillWide's words kernel writes a chunk's words to the back half of where its
// values go and the transform overwrites them (a step reads its words before it writes);
// FillWideRows32's words take the room of its float32 values exactly and are
// transformed in place.
//
// The paths are chosen once, at start-up: the transform's (bestPath) AVX-512 if the CPU
// and OS have AVX-512 F and DQ, else AVX2 with FMA3, else pure Go; the words' (bestARS)
// VAES if AVX-512 F and VAES, else AES-NI with AVX, else pure Go (other architectures,
// older CPUs, and GODEBUG=cpu.avx512f=off, cpu.avx512vaes=off, cpu.aes=off and the like,
// which golang.org/x/sys/cpu honours; pure Go's fma32 is computed from float64
// operations, with the same bits). The Go runtime does not know cpu.avx512vaes and says
// so on standard error ("GODEBUG: unknown cpu feature"); x/sys/cpu still turns VAES off.
//
// # How it is checked and what it costs
//
// TestKnownAnswers holds Block to Random123's published ARS-4x32-10 answers
// (kat_vectors); TestRoundsAreAES holds the rounds to the standard library's AES-128
// (crypto/aes), ten of them with FIPS 197's key expansion, on random keys and blocks;
// TestSBox checks the S-box's published values and that it is a permutation. The
// normals are tested as a generator's from fixed seeds (moments, tails to 6σ, a
// fine-binned χ², independence of adjacent trials, steps and positions, the Box–Muller
// partners 16 apart included), each with its false-failure probability and power stated.
// BenchmarkWords gives the words' cost a word on each words path, BenchmarkFill a
// normal's on each pair of paths and its multiple of copying the same bytes,
// BenchmarkEpochNoise the noise of one SGLU trial-epoch at b = 128 (88 steps of 784
// normals), BenchmarkRows an ensemble's step (32 rows of 784). On a Zen 4 core (AVX-512
// on 256-bit units), an ensemble step's normal costs 0.46 ns where stream v2's cost 0.74:
// ARS's words 0.12 ns a word with VAES, where Philox4x32-10's took 0.30–0.34.
//
// # The streams before
//
// Reports and checkpoints name the stream SGLU's noise is (reference/sglu's
// NoiseStream), and a checkpoint of another is refused. Stream v1 drew Philox4x32-10's
// float64 Box–Muller normals, two words a normal; v2 this package's float32 transform of
// one Philox word a normal, paired within a block; v3, this one, ARS-4x32-7's words,
// paired across a group (issue 44: Philox's words were 45 % of a normal's cost, near its
// count of multiplies).
package ars
