package trials

import (
	"context"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// A Subject is an unlearning setup the auditor can sample from. Trial t of a subject is a
// pure function of the subject's configuration and (seed, t): all its randomness comes from
// the streams it is given, so trials re-run bit for bit and may run in any order.
type Subject interface {
	// Name identifies the subject in reports and checkpoints.
	Name() string
	// Claim is what the method certifies.
	Claim() verdict.Claim
	// Unlearned learns on 𝒟, serves the deletion and addition requests, and publishes.
	Unlearned(ctx context.Context, s reference.Streams) (reference.Release, error)
	// Retrained retrains on the final dataset from scratch and publishes.
	Retrained(ctx context.Context, s reference.Streams) (reference.Release, error)
}

// A NoiseStreamer is a Subject whose trials draw their noise from a named, versioned
// generator (SGLU: sglu.NoiseStream). Its checkpoints name the stream, and a checkpoint
// naming another one, or none, is refused: two versions' trials would mix two laws of
// noise under one seed, and neither version would re-run the other's bit for bit. The
// subject's fingerprint, and so its checkpoint's path, does not include the stream, so
// an old checkpoint is found where it always was and refused with both streams named.
type NoiseStreamer interface {
	// NoiseStream names the generator this version's trials draw from ("" for none).
	NoiseStream() string
	// UnnamedNoiseStream describes the generator of this subject's checkpoints that name
	// none: those written before the subject named its stream.
	UnnamedNoiseStream() string
}

// NoiseStreamOf is s's noise stream and the description of an unnamed one, or "" twice
// when s is not a NoiseStreamer.
func NoiseStreamOf(s Subject) (stream, unnamed string) {
	if n, ok := s.(NoiseStreamer); ok {
		return n.NoiseStream(), n.UnnamedNoiseStream()
	}
	return "", ""
}
