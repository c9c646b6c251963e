package safeaudit

import (
	"context"
	"math"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/controls"
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
	set := controls.Set{Of: s, Check: func(ctx context.Context, r []trials.TrialResult) ([]verdict.Finding, error) {
		return Check(ctx, s, r, opt)
	}}
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
		set.Mutant(controls.HalfVariance, "publishes Theorem 2(iii)'s Gaussian noise with half its variance (σ/√2)", set.NoiseDividedBy(math.Sqrt2)),
		set.Mutant(controls.UpdateSkipped, "skips the last round's forgetting step: publishes the model from before that request, with the right noise",
			func(_ context.Context, st reference.Streams) (reference.Release, error) {
				return s.release(before, st.Rand("safe/unlearned/noise")), nil
			}),
		set.Mutant("stale-horizon", "sizes the step γ = √W/(K√T) with a stale horizon T = 1 instead of the stream's rounds: every step √T times too long",
			func(_ context.Context, st reference.Streams) (reference.Release, error) {
				return s.release(stale, st.Rand("safe/unlearned/noise")), nil
			}),
	}
}
