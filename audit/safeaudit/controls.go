package safeaudit

import (
	"context"
	"math"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// Controls are the negative controls of a subject (audit.Control): SAFE with one of three
// real bugs, each audited by the subject's own checks, which must FAIL it.
//
//   - half-variance: Theorem 2(iii)'s Gaussian noise published with half its variance
//     (σ/√2), so the release is not the mechanism σ certifies;
//   - update-skipped: the last round's request is not served — the model published is the
//     one from before it, with the right noise;
//   - stale-horizon: the step γ = √W/(K√T) computed with a stale horizon T = 1 (the step of
//     a one-request stream) instead of the stream's T rounds, so every step is √T times too
//     long. SAFE's step direction does not depend on γ, so this is the honest run's step
//     rescaled from w₀.
//
// The retrain is the real subject's in each.
func Controls(s *Subject, opt audit.CheckOptions) []audit.Control {
	check := func(ctx context.Context, r []audit.TrialResult) ([]audit.Finding, error) {
		return Check(ctx, s, r, opt)
	}
	mk := func(name, bug string, run func(ctx context.Context, st reference.Streams) (reference.Release, error)) audit.Control {
		return audit.Control{Name: name, Bug: bug, Audited: audit.Audited{Subject: audit.Mutant{Of: s, Bug: name, Run: run}, Check: check}}
	}
	before := s.w0 // the model before the last round's request
	if n := len(s.rounds); n >= 2 {
		before = s.rounds[n-2].noiseless
	}
	T := float64(len(s.setup.Stream))
	stale := slices.Clone(s.wT) // w₀ + (γ(1)/γ(T))·(w_T − w₀), γ(1)/γ(T) = √T
	for j := range stale {
		stale[j] = s.w0[j] + math.Sqrt(T)*(s.wT[j]-s.w0[j])
	}
	return []audit.Control{
		mk("half-variance", "publishes Theorem 2(iii)'s Gaussian noise with half its variance (σ/√2)",
			func(ctx context.Context, st reference.Streams) (reference.Release, error) {
				r, err := s.Unlearned(ctx, st)
				if err != nil {
					return r, err
				}
				pub := slices.Clone(r.Published)
				for j := range pub {
					pub[j] = r.Secret[j] + (pub[j]-r.Secret[j])/math.Sqrt2
				}
				return reference.Release{Published: pub, Secret: r.Secret}, nil
			}),
		mk("update-skipped", "skips the last round's forgetting step: publishes the model from before that request, with the right noise",
			func(_ context.Context, st reference.Streams) (reference.Release, error) {
				return s.release(before, st.Rand("safe/unlearned/noise")), nil
			}),
		mk("stale-horizon", "sizes the step γ = √W/(K√T) with a stale horizon T = 1 instead of the stream's rounds: every step √T times too long",
			func(_ context.Context, st reference.Streams) (reference.Release, error) {
				return s.release(stale, st.Rand("safe/unlearned/noise")), nil
			}),
	}
}
