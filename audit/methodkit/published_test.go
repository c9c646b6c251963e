package methodkit_test

import (
	"context"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/methodkit"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// fakeResults are n fakeResults of one Gaussian mechanism (σ = 1, d = 3) on both sides: the
// secret model at 0, the published one a draw from a fixed stream.
func fakeResults(n int) []trials.TrialResult {
	out := make([]trials.TrialResult, n)
	for i := range out {
		st := reference.Streams{Seed: 1, Trial: i}
		side := func(name string) reference.Release {
			pub := make([]float64, 3)
			reference.FillNormal(pub, 1, st.Rand(name))
			return reference.Release{Published: pub, Secret: make([]float64, 3)}
		}
		out[i] = trials.TrialResult{Index: i, Unlearned: side("u"), Retrained: side("r")}
	}
	return out
}

// The phase passes what every method passes alike from the options: the Rényi order
// (only d2d passed it before the phase was shared — planted back by dropping Alpha from
// Check's release, this test fails: the title reads D_2), the membership attack only when
// asked and given its records, and exactly as many steps as it declares.
func TestPublishedFillsTheOptions(t *testing.T) {
	res := fakeResults(16)
	p := methodkit.Published{Prefix: "toy", Epsilon: 1, Delta: 1e-5,
		Release: &checks.GaussianRelease{Sigma: 1, Rho: 0.5, Epsilon: 1, Delta: 1e-5}}
	for _, c := range []struct {
		opt   audit.CheckOptions
		order string
		want  int // findings
	}{
		{audit.CheckOptions{Seed: 1, Attacks: audit.Attacks{}}, "D_2 ", 0},
		{audit.CheckOptions{Seed: 1, Alpha: 3, Attacks: audit.Attacks{}}, "D_3 ", 0},
		{audit.CheckOptions{Seed: 1, Alpha: 3, Attacks: audit.Attacks{audit.GameAttack, audit.MembershipAttack}}, "D_3 ", 1},
	} {
		fs, err := p.Check(context.Background(), nil, c.opt, res)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := (&checks.GaussianRelease{Prefix: "toy", Sigma: 1, Rho: 0.5, Epsilon: 1, Delta: 1e-5}).Check(res)
		if len(fs) != len(rel)+c.want {
			t.Errorf("alpha %g, attacks %v: %d findings; want the release's %d and %d more (no attack without records)", c.opt.Alpha, c.opt.Attacks, len(fs), len(rel), c.want)
		}
		found := false
		for _, f := range fs {
			if !strings.HasPrefix(f.Check, "toy/") {
				t.Errorf("finding %s: want the method's prefix", f.Check)
			}
			found = found || strings.Contains(f.Title, "Rényi divergence "+c.order)
		}
		if !found {
			t.Errorf("alpha %g: no release finding titled with %q", c.opt.Alpha, c.order)
		}
		n := 0
		for _, s := range p.Steps(c.opt) {
			if s {
				n++
			}
		}
		if want := 1 + len(fs) - len(rel); n != want {
			t.Errorf("attacks %v: %d steps declared; want %d", c.opt.Attacks, n, want)
		}
	}
	if _, err := p.Membership(context.Background(), audit.CheckOptions{}, res); err == nil || !strings.Contains(err.Error(), "toy check") {
		t.Errorf("Membership without records: %v; want an error naming the method", err)
	}
}
