package sglu

// NoiseStream names the generator of the Langevin noise, so that reports and checkpoints
// can say which one their trials drew from: Philox4x32-10 (internal/philox) turned into
// normals by Box–Muller, addressed as doc.go's "Where the noise comes from" says. Any
// change to the noise's bits (generator, transform or addressing) is a new version.
const NoiseStream = "philox4x32-10/box-muller/v1"

// LegacyNoiseStream describes the noise before NoiseStream (issue 44): math/rand/v2's
// NormFloat64 (a ziggurat) over the run's PCG stream, d values a step drawn in sequence
// from the stream r itself. Checkpoints of that engine name no stream.
const LegacyNoiseStream = "math/rand/v2 NormFloat64 over the run's PCG stream (before noise streams were named)"
