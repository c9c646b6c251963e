package audit

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The two-sided variance test holds its level and its stated power, on exact Gaussian
// draws: 4000 seeded repetitions on 200 degrees of freedom at level 0.05 — the rejection
// rate at the claimed variance at most 0.05, and at ×f and ×1/f for the f it says it
// resolves, and at ×1.1 and ×0.9, equal to its stated power, each within 4 standard
// errors (the false-failure probability of the five assertions is below 1e-3).
func TestVarianceTestLevelAndPower(t *testing.T) {
	const k, level, reps = 200, 0.05, 4000
	test := NewVarianceTest(k, level)
	f := test.Resolves()
	if !(f > 1 && f < 2) {
		t.Fatalf("200 degrees of freedom resolve %v×; want between 1 and 2", f)
	}
	if test.Power(f) < PowerTarget || test.Power(1/f) < PowerTarget {
		t.Fatalf("power at the resolution %v: %v and %v", f, test.Power(f), test.Power(1/f))
	}
	rng := rand.New(rand.NewPCG(5, 6))
	rate := func(r float64) float64 {
		rej := 0
		for range reps {
			var ss float64
			for range k {
				x := math.Sqrt(r) * rng.NormFloat64()
				ss += x * x
			}
			if test.Rejects(ss) {
				rej++
			}
		}
		return float64(rej) / reps
	}
	se := func(p float64) float64 { return math.Sqrt(p * (1 - p) / reps) }
	if got := rate(1); got > level+4*se(level) {
		t.Errorf("rejects %.4f at the claimed variance; level %v", got, level)
	}
	// the stated power is the measured rejection rate, both ways (two-sided: a test whose
	// power were understated would pass a one-sided check)
	for _, r := range []float64{f, 1 / f, 1.1, 0.9} {
		want := test.Power(r)
		if got := rate(r); math.Abs(got-want) > 4*se(want) {
			t.Errorf("rejects %.4f at ×%.3g; its stated power is %.4f", got, r, want)
		}
	}
}
