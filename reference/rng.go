package reference

import (
	"math/rand/v2"

	"github.com/unlearnaudit/unlearnaudit/internal/streams"
)

// Streams derives independent random streams from a root seed and a trial index.
// Every randomized step in the toolkit draws from a stream named after its purpose,
// so a trial re-runs bit for bit, and two runs that must share randomness (a method
// and its retrain, say) share it by asking for the same purpose.
type Streams struct {
	Seed  uint64
	Trial int
}

// Rand returns a PCG generator for the named purpose. Distinct (seed, trial, purpose)
// triples give independent streams: the PCG state is a SHA-256 digest of the triple.
// Asking twice for the same purpose gives two generators that produce the same numbers.
func (s Streams) Rand(purpose string) *rand.Rand {
	return rand.New(s.Source(purpose))
}

// Source returns the PCG source behind Rand (internal/streams.Source of the triple).
func (s Streams) Source(purpose string) *rand.PCG {
	return streams.Source(s.Seed, s.Trial, purpose)
}

// Stream is shorthand for Streams{seed, trial}.Rand(purpose).
func Stream(seed uint64, trial int, purpose string) *rand.Rand {
	return Streams{Seed: seed, Trial: trial}.Rand(purpose)
}

// FillNormal fills dst with independent N(0, sigma²) draws from r.
func FillNormal(dst []float64, sigma float64, r *rand.Rand) {
	for i := range dst {
		dst[i] = sigma * r.NormFloat64()
	}
}
