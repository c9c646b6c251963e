package audit

import (
	"context"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/internal/gausstest"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// A Mutant replaces only the unlearned run: its retrain and claim are its subject's, and
// its name and fingerprint differ from its subject's, so the engine keeps its trials apart.
func TestMutant(t *testing.T) {
	g := gausstest.New(3, 0.05, 0.5)
	m := Mutant{Of: g, Bug: "no-noise", Run: func(_ context.Context, st reference.Streams) (reference.Release, error) {
		return reference.Release{Published: []float64{7, 7, 7}}, nil
	}}
	st := reference.Streams{Seed: 1, Trial: 2}
	u, _ := m.Unlearned(context.Background(), st)
	r, _ := m.Retrained(context.Background(), st)
	want, _ := g.Retrained(context.Background(), st)
	if u.Published[0] != 7 || r.Published[0] != want.Published[0] {
		t.Errorf("unlearned %v (want the bug's), retrained %v (want the subject's %v)", u.Published, r.Published, want.Published)
	}
	if m.Name() != "gauss~no-noise" || m.Claim().Rho != g.Claim().Rho {
		t.Errorf("name %q, claim %+v", m.Name(), m.Claim())
	}
	if trials.Fingerprint(m) == trials.Fingerprint(g) {
		t.Error("the mutant's fingerprint is its subject's: their trials would share a checkpoint")
	}
	if _, batch := any(m).(trials.BatchSubject); batch {
		t.Error("a Mutant is a BatchSubject: RunTrials would bypass its buggy run")
	}
}
