// Package controls makes a method's negative controls (audit.Control): mutants of an
// audited subject with one real bug planted, audited by the subject's own check, which
// must FAIL them. A method package lists its controls with New, and takes the mutations
// every method shares from here, each under one name, instead of writing its own.
package controls

import (
	"context"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// The mutations' names, one per planted bug: a report's controls and the trials' file
// names carry them, so two methods planting the same bug call it the same.
const (
	// NoUnlearning publishes the model learned before the requests, every request ignored.
	NoUnlearning = "no-unlearning"
	// WeakNoise publishes with a tenth of the noise the certificate needs (NoiseDividedBy 10).
	WeakNoise = "weak-noise"
	// HalfVariance publishes the noise with half the variance the certificate calibrates
	// (NoiseDividedBy √2). HF's controls have called it "half-noise" since before this
	// package, and pinned reports name it so: HF keeps that name (see hfaudit.Controls).
	HalfVariance = "half-variance"
	// UpdateSkipped serves a request without the update it claims.
	UpdateSkipped = "update-skipped"
)

// A Run is a mutant's unlearned run (audit.Mutant.Run).
type Run = func(ctx context.Context, st reference.Streams) (reference.Release, error)

// A Check is the subject's own check, the one every control of it is audited by.
type Check = func(ctx context.Context, results []trials.TrialResult) ([]verdict.Finding, error)

// Set makes the controls of one subject: each is Of with its unlearned run replaced, or
// a subject of the method's own making, audited by Check.
type Set struct {
	Of    trials.Subject
	Check Check
}

// Mutant is the control of name whose unlearned run is run: Of with that run (audit.Mutant,
// named and fingerprinted "Of~name"), bug saying in plain words what is wrong.
func (s Set) Mutant(name, bug string, run Run) audit.Control {
	return s.Subject(name, bug, audit.Mutant{Of: s.Of, Bug: name, Run: run})
}

// Subject is the control of name audited on sub, a mutant the method builds itself (a
// subject with a bug flag set, whose trials differ from the first step on).
func (s Set) Subject(name, bug string, sub trials.Subject) audit.Control {
	return audit.Control{Name: name, Bug: bug, Audited: audit.Audited{Subject: sub, Check: s.Check}}
}

// NoiseDividedBy is the mutation of the published noise: Of's unlearned release with
// published = secret + (published − secret)/d, the rest of the release as it was. d = 10
// is WeakNoise, d = √2 HalfVariance. It divides rather than multiplies by 1/d so that the
// published coordinates are the ones the methods' own controls computed, bit for bit.
func (s Set) NoiseDividedBy(d float64) Run {
	return func(ctx context.Context, st reference.Streams) (reference.Release, error) {
		r, err := s.Of.Unlearned(ctx, st)
		if err != nil {
			return r, err
		}
		pub := slices.Clone(r.Published)
		for j := range pub {
			pub[j] = r.Secret[j] + (pub[j]-r.Secret[j])/d
		}
		r.Published = pub
		return r, nil
	}
}

// NoiseScaledTo is Of's unlearned release with its noise of scale from rescaled to
// scale to: published = secret + (published − secret)·to/from (a noise sized for a stale
// setting).
func (s Set) NoiseScaledTo(to, from float64) Run {
	return func(ctx context.Context, st reference.Streams) (reference.Release, error) {
		r, err := s.Of.Unlearned(ctx, st)
		if err != nil {
			return r, err
		}
		pub := slices.Clone(r.Published)
		for j := range pub {
			pub[j] = r.Secret[j] + (pub[j]-r.Secret[j])*to/from
		}
		r.Published = pub
		return r, nil
	}
}
