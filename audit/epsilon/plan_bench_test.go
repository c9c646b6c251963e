package epsilon

import (
	"context"
	"testing"
)

// BenchmarkPlan is `audit plan --trials 1000 --delta δ --claim-epsilon 1`'s search: the
// settled trials to catch 2× the claim with 80 % power, uncached.
func BenchmarkPlan(b *testing.B) {
	for _, c := range []struct {
		name  string
		delta float64
	}{{"delta=1e-5", 1e-5}, {"delta=1e-6", 1e-6}} {
		b.Run(c.name, func(b *testing.B) {
			p := PowerSpec{Claim: 1, Factor: 2, Power: 0.8, Delta: c.delta, Conf: 0.95}
			for b.Loop() {
				n, _, err := searchTrials(context.Background(), p)
				if err != nil || n < 4 {
					b.Fatal(n, err)
				}
			}
		})
	}
}

// BenchmarkPowerReplicate is one replicate of a plan's settling estimate at δ = 1e-6
// (159 681 trials): the draws, the rule choice and the held-out power.
func BenchmarkPowerReplicate(b *testing.B) {
	p := PowerSpec{Claim: 1, Factor: 2, Power: 0.8, Delta: 1e-6, Conf: 0.95}
	mu, err := gdpMuFor(p.Factor*p.Claim, p.Delta)
	if err != nil {
		b.Fatal(err)
	}
	s := newPowerSim(159681, p)
	per := make([]float64, 1)
	s.replicates(context.Background(), mu, per, 0) // the bounds it needs, computed
	for b.Loop() {
		s.replicates(context.Background(), mu, per[:1], 0)
	}
}
