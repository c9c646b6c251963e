// Package methodkit is what a method's audit package shares with every other: the
// published-model phase its Check ends with (Published). A method package imports it
// beside audit; see docs/adding-a-method.md.
package methodkit

import (
	"context"
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/internal/steps"
)

// Published is the published-model phase of a method's check: the checks made on the
// published models alone, in this order — the Gaussian release against the claim
// (checks.GaussianRelease), the distinguishing game (checks.EmpiricalRelease), the
// membership attack on the deleted records (checks.MembershipRelease) — each as the
// options' attacks ask. The method says what is particular to it; Check fills what every
// method passes alike from the options (the confidence, the Rényi order, the seed, the
// power target) and names the method in its errors.
type Published struct {
	// Prefix is the method's name, the prefix of the checks' identifiers ("d2d").
	Prefix string
	// Release is the Gaussian release check with its Sigma, Rho, Epsilon and Delta (the
	// mechanism step's, which may differ from the claim's: d2d's is its mechanism δ); nil
	// for a method whose release is not one Gaussian step (sglu).
	Release *checks.GaussianRelease
	// Epsilon and Delta are the claim the game and the attack test.
	Epsilon, Delta float64
	// Rho is the claim's Rényi slope, D_α ≤ α·ρ, beside which the game notes its Rényi
	// estimate; 0 for none. Only d2d has passed one (its claims are Rényi curves); the
	// other methods' games never carried the note, and giving it to them would change
	// their reports, so it stays the method's to give.
	Rho float64
	// Members is the membership attack's target — Loss and Deleted, or Score and IDs —
	// with the rest left zero; nil when no record is deleted (no attack then).
	Members *checks.MembershipRelease
}

// Steps are the checks Check will run, for steps.Count: the release, the game, the attack.
func (p Published) Steps(opt audit.CheckOptions) []bool {
	return []bool{p.Release != nil, opt.Attacks.Has(audit.GameAttack), p.attacks(opt)}
}

func (p Published) attacks(opt audit.CheckOptions) bool {
	return p.Members != nil && opt.Attacks.Has(audit.MembershipAttack)
}

// Check runs the phase on finished trials, counting each check run on st (nil: none).
func (p Published) Check(ctx context.Context, st *steps.Counter, opt audit.CheckOptions, results []trials.TrialResult) ([]verdict.Finding, error) {
	step := func() {
		if st != nil {
			st.Step()
		}
	}
	var fs []verdict.Finding
	if p.Release != nil {
		rel := *p.Release
		rel.Prefix, rel.Alpha, rel.Confidence = p.Prefix, opt.Alpha, confidence(opt)
		got, err := rel.Check(results)
		if err != nil {
			return nil, fmt.Errorf("%s check: %w", p.Prefix, err)
		}
		fs = append(fs, got...)
		step()
	}
	if opt.Attacks.Has(audit.GameAttack) {
		f, err := p.Game(ctx, opt, results)
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
		step()
	}
	if p.attacks(opt) {
		f, err := p.Membership(ctx, opt, results)
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
		step()
	}
	return fs, nil
}

// Game is the distinguishing game on the published models alone, whatever the options'
// attacks (for a method that runs the phase's checks beside its own, as sglu does).
func (p Published) Game(ctx context.Context, opt audit.CheckOptions, results []trials.TrialResult) (verdict.Finding, error) {
	f, err := checks.EmpiricalRelease{Prefix: p.Prefix, Epsilon: p.Epsilon, Delta: p.Delta, Rho: p.Rho, Alpha: opt.Alpha,
		Confidence: confidence(opt), Seed: opt.Seed, PowerAgainst: opt.PowerAgainst}.Check(ctx, results)
	if err != nil {
		return verdict.Finding{}, fmt.Errorf("%s check: %w", p.Prefix, err)
	}
	return f, nil
}

// Membership is the membership attack on Members, whatever the options' attacks; an error
// when Members is nil.
func (p Published) Membership(ctx context.Context, opt audit.CheckOptions, results []trials.TrialResult) (verdict.Finding, error) {
	if p.Members == nil {
		return verdict.Finding{}, fmt.Errorf("%s check: the membership attack has no deleted records to attack", p.Prefix)
	}
	m := *p.Members
	m.Prefix, m.Epsilon, m.Delta, m.Confidence, m.Seed, m.PowerAgainst = p.Prefix, p.Epsilon, p.Delta, confidence(opt), opt.Seed, opt.PowerAgainst
	m.Resamples = opt.Resamples // shared with the subject's controls when the run shares them
	f, err := m.Check(ctx, results)
	if err != nil {
		return verdict.Finding{}, fmt.Errorf("%s check: %w", p.Prefix, err)
	}
	return f, nil
}

// confidence is the options' confidence, 0 read as 0.95 (as every check reads it).
func confidence(opt audit.CheckOptions) float64 {
	if opt.Confidence == 0 {
		return 0.95
	}
	return opt.Confidence
}
