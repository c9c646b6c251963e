package oluaudit

import (
	"context"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit"
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
	check := func(ctx context.Context, r []audit.TrialResult) ([]audit.Finding, error) {
		return Check(ctx, s, r, opt)
	}
	mk := func(name, bug string, run func(ctx context.Context, st reference.Streams) (reference.Release, error)) audit.Control {
		return audit.Control{Name: name, Bug: bug, Audited: audit.Audited{Subject: audit.Mutant{Of: s, Bug: name, Run: run}, Check: check}}
	}
	var out []audit.Control
	if s.setup.Variant == Passive {
		paper := *s
		paper.setup.Config.Contraction = olu.PaperGamma
		out = append(out, mk("paper-gamma", "sizes the noise with the paper's constant contraction γ^{τ−u}, which the steps 1/(μt) do not achieve",
			func(ctx context.Context, st reference.Streams) (reference.Release, error) {
				run, err := paper.runWith(ctx, st.Rand("olu/unlearned"))
				if err != nil {
					return reference.Release{}, err
				}
				return s.publish(run), nil
			}))
	}
	out = append(out, mk("weak-noise", "publishes with a tenth of the noise the certificate needs",
		func(ctx context.Context, st reference.Streams) (reference.Release, error) {
			r, err := s.Unlearned(ctx, st)
			if err != nil {
				return r, err
			}
			pub := slices.Clone(r.Published)
			for j := range pub {
				pub[j] = r.Secret[j] + (pub[j]-r.Secret[j])/10
			}
			return reference.Release{Published: pub, Secret: r.Secret}, nil
		}))
	return out
}
