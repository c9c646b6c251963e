package onerun_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/onerun"
)

// SmallestShift is the bisection of its sample's power curve: at the shift it returns the
// same runs reach the power, and one resolution step below they do not (exact, on the
// sample; planted bug caught: returning the bisection's lower end). With no shift the
// power is the bound's false-alarm rate; a claim no outcome can refute gives +Inf.
func TestSmallestShiftIsTheSamplesCrossing(t *testing.T) {
	const nIn, nOut, reps, seed = 60, 60, 40, 7
	const target, sig, delta, power = 1.0, 0.05, 1e-5, 0.8
	mu, err := onerun.SmallestShift(nIn, nOut, target, sig, delta, power, reps, seed)
	if err != nil {
		t.Fatal(err)
	}
	if math.IsInf(mu, 1) || mu <= 0 {
		t.Fatalf("smallest shift %v; want a finite positive one for 120 canaries against ε = 1", mu)
	}
	at, err := onerun.PowerAt(nIn, nOut, mu, target, sig, delta, reps, seed)
	if err != nil {
		t.Fatal(err)
	}
	step := float64(onerun.MaxShift) / 1024
	below, err := onerun.PowerAt(nIn, nOut, mu-step, target, sig, delta, reps, seed)
	if err != nil {
		t.Fatal(err)
	}
	if at < power || below >= power {
		t.Errorf("power %v at the shift %v and %v one step below; want ≥ %v at it and below it one step down", at, mu, below, power)
	}
	// with no shift the included canaries score as the excluded: the bound exceeds the
	// target only at the audit's own false-alarm rate, at most sig = 0.05 a run, so 9 or
	// more of 40 runs (a share above 0.2) has probability at most 1.3e-4 (the binomial
	// tail); the seed is fixed, so the test fails only on a bug
	if p0, err := onerun.PowerAt(nIn, nOut, 0, target, sig, delta, reps, seed); err != nil || p0 > 0.2 {
		t.Errorf("power %v (%v) with no leak; the bound's false alarms are at most %v a run", p0, err, sig)
	}
	// 10 canaries cannot show ε above 1 at all at this δ and significance
	if inf, err := onerun.SmallestShift(5, 5, target, sig, delta, power, reps, seed); err != nil || !math.IsInf(inf, 1) {
		t.Errorf("10 canaries: smallest shift %v, %v; want +Inf (no outcome of 10 canaries shows ε > 1)", inf, err)
	}
}

// More canaries catch a smaller leak: on every sample the crossing with twice the canaries
// is no larger (checked on three seeds; the two samples differ, so this is the law's
// trend, which at these counts is far wider than the sampling noise of 40 runs).
func TestSmallestShiftFallsWithCanaries(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		small, err := onerun.SmallestShift(40, 40, 1, 0.05, 1e-5, 0.8, 40, seed)
		if err != nil {
			t.Fatal(err)
		}
		large, err := onerun.SmallestShift(400, 400, 1, 0.05, 1e-5, 0.8, 40, seed)
		if err != nil {
			t.Fatal(err)
		}
		if !(large < small) {
			t.Errorf("seed %d: 800 canaries need a shift of %v, 80 need %v; want fewer with more canaries", seed, large, small)
		}
	}
}

// PowerAt is what its doc says, recomputed by brute force: the documented stream (PCG
// seeded with (seed, "onepower")), reps runs of nIn + nOut standard normals, the first nIn
// included and shifted by the shift, each run's Bonferroni one-run bound from Audit compared
// with the target (planted bugs caught: the shift halved, the runs' sides swapped).
func TestPowerAtIsItsDefinition(t *testing.T) {
	const nIn, nOut, reps, seed = 30, 50, 25, 11
	const target, sig, delta = 0.5, 0.05, 1e-5
	for _, shift := range []float64{0.5, 1.5, 3} {
		r := rand.New(rand.NewPCG(seed, 0x6f6e65706f776572))
		hits := 0
		for range reps {
			in, out := make([]float64, nIn), make([]float64, nOut)
			for j := range in {
				in[j] = r.NormFloat64() + shift
			}
			for j := range out {
				out[j] = r.NormFloat64()
			}
			rep, err := onerun.Audit(in, out, sig, delta)
			if err != nil {
				t.Fatal(err)
			}
			if rep.EpsilonOneRun > target {
				hits++
			}
		}
		got, err := onerun.PowerAt(nIn, nOut, shift, target, sig, delta, reps, seed)
		if err != nil {
			t.Fatal(err)
		}
		if want := float64(hits) / reps; got != want {
			t.Errorf("shift %v: PowerAt %v, the definition %v", shift, got, want)
		}
	}
}
