package sglu

// NoiseStream names the generator of the Langevin noise, so that reports and checkpoints
// can say which one their trials drew from: ARS-4x32-7 (internal/ars) turned into normals
// by Box–Muller, addressed as doc.go's "Where the noise comes from" says. Any change to
// the noise's bits (generator, transform or addressing) is a new version, and checkpoints
// of another are refused with the command that reruns them:
//   - v1 ("philox4x32-10/box-muller/v1") drew Philox4x32-10's float64 normals, two 32-bit
//     words a normal;
//   - v2 ("philox4x32-10/box-muller-f32/v2") Box–Muller of one Philox word a normal in
//     float32 (within 10·2⁻²⁴ of the exact transform of its words, relatively) widened
//     to float64: the same target, the normal law, from coarser uniforms (32-bit: tails
//     to 6.76σ), at about a third of v1's cost;
//   - v3 draws ars.FillWide's: the same float32 transform of the words of ARS-4x32-7, a
//     generator of AES rounds that VAES runs four blocks an instruction, each group of
//     8 blocks' first 16 words the radii's and last 16 the angles', paired lane by lane
//     (no shuffle of words or values): the noise of a b = 128 epoch at two thirds of
//     v2's cost (issue 44).
const NoiseStream = "ars4x32-7/box-muller-f32/v3"

// LegacyNoiseStream describes the noise before NoiseStream (issue 44): math/rand/v2's
// NormFloat64 (a ziggurat) over the run's PCG stream, d values a step drawn in sequence
// from the stream r itself. Checkpoints of that engine name no stream.
const LegacyNoiseStream = "math/rand/v2 NormFloat64 over the run's PCG stream (before noise streams were named)"
