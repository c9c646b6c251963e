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
