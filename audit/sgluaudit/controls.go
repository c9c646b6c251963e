package sgluaudit

import (
	"context"
	"fmt"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/controls"
	"github.com/unlearnaudit/unlearnaudit/reference/sglu"
)

// bug is a negative control's planted bug.
type bug string

const (
	none bug = ""
	// halfNoise injects σ√η for σ√(2η): half the variance the certificate analyses.
	halfNoise bug = "half-noise"
	// noUnlearning ignores every request: the record is never replaced, the epochs run
	// on the old data.
	noUnlearning bug = controls.NoUnlearning
	// updateSkipped replaces the record but skips the K_s epochs it claims.
	updateSkipped bug = controls.UpdateSkipped
	// staleSigma injects σ/2, a stale configuration's σ (calibrated for a looser target),
	// while the certificate is computed for σ.
	staleSigma bug = "stale-sigma"
	// staleEpochs counts each request's epochs with a stale, larger σ, so it runs and
	// declares fewer than the certificate needs.
	staleEpochs bug = "stale-epochs"
)

// runEpochs is the epochs request i really runs.
func (s *Subject) runEpochs(i int) int {
	if s.bug == updateSkipped {
		return 0
	}
	return s.ks[i]
}

// Controls are the negative controls of a subject (audit.Control): SGLU with one of four
// real bugs, each audited by the subject's own checks, which must FAIL it —
//
//   - half-noise (σ√η for σ√(2η), learning and unlearning alike): caught by sglu/noise;
//   - no-unlearning (the requests are ignored) and update-skipped (the record is replaced,
//     its K_s epochs are not run): caught by sglu/coupled-replay;
//   - stale-sigma (σ/2 injected, a stale configuration's): caught by sglu/noise;
//   - stale-epochs (each K_s counted with a stale 2^k·σ, and declared; only where that changes
//     a K_s): caught by sglu/certificate, which recomputes ϵ for the declared epochs.
func Controls(s *Subject, opt audit.CheckOptions) []audit.Control {
	mutant := func(b bug) *Subject {
		m := *s
		m.bug = b
		m.fp = trials.ConfigFingerprint(s.fp+"|"+string(b), s.ordered, nil, nil)
		return &m
	}
	mk := func(b bug, what string, sub *Subject) audit.Control {
		return audit.Control{Name: string(b), Bug: what, Audited: audit.Audited{Subject: sub, Check: func(ctx context.Context, r []trials.TrialResult) ([]verdict.Finding, error) {
			return Check(ctx, sub, r, opt)
		}}}
	}
	out := []audit.Control{
		mk(halfNoise, "each step adds σ√η·N(0, I) for σ√(2η)·N(0, I): half the noise variance the certificate analyses", mutant(halfNoise)),
		mk(noUnlearning, "ignores every request: the record is never replaced, the K_s epochs run on the old data", mutant(noUnlearning)),
		mk(updateSkipped, "replaces the record but skips the K_s epochs the request claims", mutant(updateSkipped)),
		mk(staleSigma, fmt.Sprintf("injects σ = %g, a stale configuration's, while the certificate is computed for σ = %g", s.setup.Sigma/2, s.setup.Sigma), mutant(staleSigma)),
	}
	if st, ok := s.stale(); ok {
		out = append(out, mk(staleEpochs, fmt.Sprintf("counts each request's epochs with σ = %g for %g and runs (and declares) K = %v for the K = %v needed", st.staleFactor*s.setup.Sigma, s.setup.Sigma, compactInts(st.ks), compactInts(s.needed)), st))
	}
	return out
}

// stale is the subject with each request's epochs counted by the accountant at a stale σ:
// the least of 2σ, 4σ, … 1024σ that changes a K_s (one epoch contracts the certificate's
// term by c^{2n/b}, often more than 4× the variance makes up); false when none does.
func (s *Subject) stale() (*Subject, bool) {
	for f := 2.0; f <= 1024; f *= 2 {
		ks, _, err := SequentialNonConvergent(s.setup.Epsilon, s.delta, f*s.setup.Sigma, s.problem, s.nc, len(s.setup.Removals), sglu.PaperVariance, sglu.NonConvergentAlphas)
		if err != nil || slices.Equal(ks, s.needed) {
			continue
		}
		st := s.setup
		st.UnlearnEpochs = ks
		m, err := New(context.Background(), st)
		if err != nil {
			return nil, false
		}
		m.bug, m.staleFactor = staleEpochs, f
		m.fp = trials.ConfigFingerprint(m.fp+"|"+string(staleEpochs), m.ordered, nil, nil)
		return m, true
	}
	return nil, false
}
