package verify_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/threshold"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/audit/verify"
)

// Every game finding opens with what its trials support, and its figures are the
// planner's for the question the finding states (Power.Question): the largest ε its
// trials can show is epsilon.MaxCertifiable, the trials that can show the claim violated
// at all epsilon.TrialsForResolution, the trials a PASS needs epsilon.TrialsToDetect, the
// smallest leak caught SmallestFactor × the claim, each with the μ of its Gaussian pair.
// 16 a side cannot show ε = 1 violated at all (0.533), which the first line says; 64 a
// side can (2.1). Planted bugs caught: the resolution taken at the whole trials instead of
// the held-out half (MaxEpsilon 1.16 at 16), the first line left off a FAIL.
func TestFindingsSayWhatTheirTrialsSupport(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		n        int
		leak     bool
		canShow  bool
		verdict  verdict.Verdict
		maxAbove float64
	}{{16, false, false, verdict.Inconclusive, 0.5}, {16, true, false, verdict.Inconclusive, 0.5}, {64, false, true, verdict.Inconclusive, 2}, {64, true, true, verdict.Fail, 2}} {
		mean := 0.5
		if c.leak {
			mean = 0.3
		}
		s := &spec.Spec{Epsilon: 1, Delta: 1e-3, Confidence: 0.95, PowerAgainst: 2, Seed: 1, Claimed: true}
		_, fs, err := verify.VerifyScores(ctx, seedCase(11, c.n, 30, mean), seedCase(12, c.n, 30, 0.5), s)
		if err != nil {
			t.Fatal(err)
		}
		f := fs[0]
		p, q := f.Power, f.Power.Question
		if f.Verdict != c.verdict {
			t.Fatalf("%d a side, leak %t: %s; want %s", c.n, c.leak, f.Verdict, c.verdict)
		}
		show, _ := epsilon.TrialsForResolution(q.Epsilon, q.Delta, q.Confidence, threshold.Split)
		pass, _, _ := epsilon.TrialsToDetect(ctx, q.PowerSpec(p.Against))
		if want := epsilon.MaxCertifiable(c.n, q.Delta, q.Confidence, threshold.Split); p.MaxEpsilon != want || p.MaxEpsilon < c.maxAbove || (p.MaxEpsilon > q.Epsilon) != c.canShow {
			t.Errorf("%d a side: MaxEpsilon %v; want the planner's %v", c.n, p.MaxEpsilon, want)
		}
		if p.TrialsToShow != show || p.TrialsToPass != pass || p.SmallestEpsilon != p.SmallestFactor*q.Epsilon {
			t.Errorf("%d a side: to show %d, to pass %d, smallest ε %v; want the planner's %d, %d and %v", c.n, p.TrialsToShow, p.TrialsToPass, p.SmallestEpsilon, show, pass, p.SmallestFactor*q.Epsilon)
		}
		if p.MaxMu != epsilon.GDPMu(p.MaxEpsilon, q.Delta) || p.SmallestMu != epsilon.GDPMu(p.SmallestEpsilon, q.Delta) {
			t.Errorf("%d a side: μ %v and %v are not the Gaussian pairs' of ε %v and %v", c.n, p.MaxMu, p.SmallestMu, p.MaxEpsilon, p.SmallestEpsilon)
		}
		first := p.Supports(f.Verdict)
		if !strings.HasPrefix(f.Detail, first+". The check: ") || !strings.HasPrefix(first, "What ") {
			t.Errorf("%d a side, %s: the detail does not open with what the trials support:\n%s", c.n, f.Verdict, f.Detail)
		}
		if strings.Contains(first, "these cannot show it at all") == c.canShow {
			t.Errorf("%d a side: the first line says wrongly whether these trials can show ε = 1 violated: %s", c.n, first)
		}
	}
}

// A rank finding opens with what its model and retrains support (checks.PlanRanks, the
// figures `audit plan --models` prints): with 20 retrains one model cannot show ε = 1
// violated at all, with 64 it can, up to ε = ln(65·0.049) = 1.158. Planted bug caught: the
// first line computed at the needed retrains instead of the given ones (the 20-retrain
// finding would say it can show ε = 1).
func TestRankFindingSaysWhatItsRetrainsSupport(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{20, 64} {
		s := &spec.Spec{Epsilon: 1, Delta: 1e-3, Confidence: 0.95, PowerAgainst: 2, Seed: 1, Claimed: true}
		_, fs, err := verify.VerifyScores(ctx, seedCase(1, 1, 30, 0.05), seedCase(13, n, 30, 0.5), s)
		if err != nil {
			t.Fatal(err)
		}
		rp, err := checks.PlanRanks(ctx, 1, n, 1, 1e-3, 0.95, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(fs[0].Detail, rp.Supports()+". The check: ") {
			t.Errorf("%d retrains: the detail does not open with the plan's line %q:\n%s", n, rp.Supports(), fs[0].Detail)
		}
		cannot := strings.Contains(rp.Supports(), "these cannot show it at all")
		if cannot != (n < 55) || (n == 64 && math.Abs(rp.MaxEpsilon-math.Log(65*0.049)) > 1e-12) {
			t.Errorf("%d retrains: %s (max ε %v)", n, rp.Supports(), rp.MaxEpsilon)
		}
	}
}
