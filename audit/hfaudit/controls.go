package hfaudit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/controls"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"github.com/unlearnaudit/unlearnaudit/reference/hf"
)

// Controls are the negative controls of a subject (audit.Control): HF with one of three
// real bugs, each audited by the subject's own Check, which must FAIL it. The checks judge
// a mutant with the real subject's certificate (its Δ̂ and σ), so a certificate check
// (hf/certificate/sigma) never sees a mutant's own arithmetic: a bug in σ shows in what
// is published.
//
//   - half-noise: the published noise has half the variance the certificate calibrates,
//     published = secret + (published − secret)/√2. The release checks' noise tests catch
//     it (checks.GaussianRelease: the noise below σ, and of another scale than the
//     retrain's), so hf/release/renyi and hf/release/exact-epsilon FAIL.
//   - deletions-ignored: Stage III is skipped — the learned model w_T is published with
//     the right noise and the deleted records' statistics are never added. No check on
//     the certificate's terms can catch it: on the demo the learned model's distance to
//     the retrain (about 0.03 at worst) is far below Δ̂ under both readings (1262 under
//     Theorem 4, 0.28 under the code's), so hf/implementation/error PASSes and the
//     published laws are within the claimed (ε, δ) — ignoring the requests is itself
//     certified at this noise, and the distinguishing game cannot tell. Only
//     hf/implementation/relative-error catches it: the unlearned model must be nearer the
//     retrain than w_T is (spec hf §4.4, R2), and here it is exactly as far.
//   - stale-m: the noise is sized once, by the bound for the first request's single
//     deletion, and not re-sized as the deletions accumulate (σ from Δ̂(1), not Δ̂(m);
//     a third of σ under Theorem 4, whose Δ̂ is linear in m, about 0.37σ under the code's).
//     The noise tests catch it as they catch half-noise. It is defined only where more
//     than one record is deleted and Δ̂(1) < Δ̂(m).
func Controls(s *Subject, opt audit.CheckOptions) []audit.Control {
	set := controls.Set{Of: s, Check: func(ctx context.Context, r []trials.TrialResult) ([]verdict.Finding, error) {
		return Check(ctx, s, r, opt)
	}}
	out := []audit.Control{
		// controls.HalfVariance, under the name HF's reports have always given it
		set.Mutant("half-noise", "publishes noise of half the variance the certificate calibrates (σ/√2)", set.NoiseDividedBy(math.Sqrt2)),
		set.Mutant("deletions-ignored", "skips Stage III: publishes the learned model w_T with the right noise, the deleted records' statistics never added", s.deletionsIgnored),
	}
	if len(s.rows) > 1 {
		sigma1, err := dp.AnalyticGaussianSigma(s.boundAfter(1), s.setup.Epsilon, s.setup.Delta)
		if err == nil && sigma1 < s.sigma {
			out = append(out, set.Mutant("stale-m", fmt.Sprintf("sizes the noise once, for the first request's single deletion (σ = %.4g from Δ̂(1)), not for the %d deletions served (σ = %.4g)", sigma1, len(s.rows), s.sigma),
				set.NoiseScaledTo(sigma1, s.sigma)))
		}
	}
	return out
}

// deletionsIgnored learns on the trial's batch order as Unlearned does and publishes w_T
// with the calibrated noise from the same stream.
func (s *Subject) deletionsIgnored(ctx context.Context, st reference.Streams) (reference.Release, error) {
	tr, err := hf.Learn(ctx, s.setup.Config, s.setup.Data, s.w0(), st.Rand("hf/schedule"))
	if err != nil {
		return reference.Release{}, err
	}
	return publish(tr.Final, s.sigma, st.Rand("hf/unlearned/noise")), nil
}

// publish is w + N(0, σ²I) with the noise drawn from r, as hf.Unlearner.Release draws
// it; the secret model is w.
func publish(w []float64, sigma float64, r *rand.Rand) reference.Release {
	pub := make([]float64, len(w))
	reference.FillNormal(pub, sigma, r)
	for j, v := range w {
		pub[j] += v
	}
	return reference.Release{Published: pub, Secret: w}
}
