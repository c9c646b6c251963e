package sglu

// NoiseStream names the generator of the Langevin noise, so that reports and checkpoints
// can say which one their trials drew from: Philox4x32-10 (internal/philox) turned into
// normals by Box–Muller, addressed as doc.go's "Where the noise comes from" says. Any
// change to the noise's bits (generator, transform or addressing) is a new version, and
// checkpoints of another are refused with the command that reruns them: v1
// ("philox4x32-10/box-muller/v1") drew philox.Fill's float64 normals, two 32-bit words
// a normal; v2 draws philox.FillWide's, Box–Muller of one word a normal in float32
// (within 10·2⁻²⁴ of the exact transform of its words, relatively) widened to float64:
// the same target, the normal law, from coarser uniforms (32-bit: tails to 6.76σ), at
// about a third of the cost (issue 44).
const NoiseStream = "philox4x32-10/box-muller-f32/v2"

// LegacyNoiseStream describes the noise before NoiseStream (issue 44): math/rand/v2's
// NormFloat64 (a ziggurat) over the run's PCG stream, d values a step drawn in sequence
// from the stream r itself. Checkpoints of that engine name no stream.
const LegacyNoiseStream = "math/rand/v2 NormFloat64 over the run's PCG stream (before noise streams were named)"
