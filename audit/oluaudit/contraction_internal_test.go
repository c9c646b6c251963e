package oluaudit

import (
	"context"
	"math"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/olu"
)

// The closed-form laws behind the contraction audit's exact divergences, against samples
// of the runs themselves: on the three-request quadratic case, at every request's round,
// each coordinate's sample mean of the real run's outputs is within 5 standard errors of
// the noise-free state, and its sample variance within 5 standard errors (√(2/N)
// relative) of V. Per-comparison false-failure probability below 6·10⁻⁷; 30 comparisons.
func TestContractionExactLaws(t *testing.T) {
	cases, err := ContractionCases(nil, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	c := cases[1]
	if c.Name != "quadratic-5d" {
		t.Fatalf("case %s", c.Name)
	}
	ctx := context.Background()
	cfg := c.Config
	cfg.KeepStates = true
	base, err := olu.OGD(ctx, cfg, c.Stream)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := olu.Passive(ctx, c.Config, c.Stream, c.Sched, reference.Stream(1, 0, "plan"))
	if err != nil {
		t.Fatal(err)
	}
	sigmas := plan.Sigmas()
	n := 4000
	if testing.Short() {
		n = 1000
	}
	k, d := len(c.Sched), len(cfg.X0)
	sum, sq := make([][]float64, k), make([][]float64, k)
	for i := range k {
		sum[i], sq[i] = make([]float64, d), make([]float64, d)
	}
	for s := range n {
		run, err := olu.Passive(ctx, c.Config, c.Stream, c.Sched, reference.Stream(2, s, "laws"))
		if err != nil {
			t.Fatal(err)
		}
		for i := range k {
			for j, x := range run.Served[i].Noisy {
				x -= base.States[c.Sched[i].Tau][j]
				sum[i][j] += x
				sq[i][j] += x * x
			}
		}
	}
	for i := range k {
		_, v := exactLaws(c, base, base, sigmas[:i+1])
		for j := range d {
			mean := sum[i][j] / float64(n)
			variance := sq[i][j]/float64(n) - mean*mean
			if math.Abs(mean) > 5*math.Sqrt(v[j]/float64(n)) || math.Abs(variance/v[j]-1) > 5*math.Sqrt(2/float64(n)) {
				t.Errorf("request %d, coordinate %d: mean offset %.3g (sd %.3g), variance %.4g against V = %.4g", i+1, j, mean, math.Sqrt(v[j]/float64(n)), variance, v[j])
			}
		}
	}
	// the refusal: laws that are not Gaussian
	box := c
	box.Config.Domain = olu.Box{R: 10}
	if _, err := ExactDivergence(ctx, box, sigmas); err == nil {
		t.Error("a projected domain after the first request was accepted")
	}
}

// A regret finding PASSes only with the power to show a mean of twice its bound: noisy
// draws whose standard error is half the bound's distance past three of them cannot
// (power Φ(bound/SE − 3)), and they say how many draws would.
func TestRegretFindingPower(t *testing.T) {
	for _, c := range []struct {
		regrets []float64
		bound   float64
		want    verdict.Verdict
	}{
		{[]float64{5, 5, 5}, 10, verdict.Pass},              // no noise: full power
		{[]float64{1, 9, 1, 9}, 10, verdict.Pass},           // SE 2.31: power Φ(10/2.31 − 3) = 0.91
		{[]float64{0, 20, 0, 20}, 10, verdict.Inconclusive}, // SE 5.77: power Φ(1.73 − 3) = 0.10
		{[]float64{30, 31, 29, 30}, 10, verdict.Fail},
	} {
		f := regretFinding("c", "t", c.regrets, c.bound, "")
		mean, se := MeanSE(c.regrets)
		wantPower := 1.0
		if se > 0 {
			wantPower = 0.5 * math.Erfc(-(c.bound/se-3)/math.Sqrt2)
		}
		if math.Abs(f.Power.Power-wantPower) > 1e-12 {
			t.Errorf("%v: power %v, want %v", c.regrets, f.Power.Power, wantPower)
		}
		want := c.want
		if f.Verdict != want || (want == verdict.Inconclusive) != (f.TrialsNeeded > len(c.regrets)) {
			t.Errorf("%v (mean %v, SE %v): %s, %d draws needed; want %s", c.regrets, mean, se, f.Verdict, f.TrialsNeeded, want)
		}
	}
}
