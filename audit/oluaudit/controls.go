package oluaudit

import (
	"context"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/controls"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/olu"
)

// Controls are the negative controls of a subject (audit.Control), each audited by the
// subject's own checks, which must FAIL it:
//
//   - paper-gamma (passive): the noise sized by the paper's constant γ = (β/μ − 1)/(β/μ + 1),
//     which η_t = 1/(μt) does not contract by (erratum 1);
//   - weak-noise: a tenth of the noise the certificate needs.
func Controls(s *Subject, opt audit.CheckOptions) []audit.Control {
	set := controls.Set{Of: s, Check: func(ctx context.Context, r []trials.TrialResult) ([]verdict.Finding, error) {
		return Check(ctx, s, r, opt)
	}}
	var out []audit.Control
	if s.setup.Variant == Passive {
		paper := *s
		paper.setup.Config.Contraction = olu.PaperGamma
		out = append(out, set.Mutant("paper-gamma", "sizes the noise with the paper's constant contraction γ^{τ−u}, which the steps 1/(μt) do not achieve",
			func(ctx context.Context, st reference.Streams) (reference.Release, error) {
				run, err := paper.runWith(ctx, st.Rand("olu/unlearned"))
				if err != nil {
					return reference.Release{}, err
				}
				return s.publish(run), nil
			}))
	}
	out = append(out, set.Mutant(controls.WeakNoise, "publishes with a tenth of the noise the certificate needs", set.NoiseDividedBy(10)))
	return out
}
