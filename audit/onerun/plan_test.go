package onerun

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// The same seed always gives the same plan, and a longer plan extends a shorter one.
func TestDrawPlanDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		m := rapid.IntRange(0, 500).Draw(t, "m")
		k := rapid.IntRange(0, 100).Draw(t, "k")
		p := DrawPlan(seed, m)
		if len(p) != m {
			t.Fatalf("%d entries for m = %d", len(p), m)
		}
		if !slices.Equal(p, DrawPlan(seed, m)) {
			t.Fatal("the same seed gave two plans")
		}
		if !slices.Equal(p, DrawPlan(seed, m+k)[:m]) {
			t.Fatalf("DrawPlan(seed, %d) is not a prefix of DrawPlan(seed, %d)", m, m+k)
		}
	})
	// Pinned: a change to the draw (stream constant, bit used) changes recorded plans.
	got := DrawPlan(1, 16)
	want := []bool{false, false, true, false, false, false, true, true, false, true, true, true, false, false, false, true}
	if !slices.Equal(got, want) {
		t.Errorf("DrawPlan(1, 16) = %v, recorded %v", got, want)
	}
	if p := DrawPlan(7, -3); len(p) != 0 {
		t.Errorf("DrawPlan(7, -3) = %v, want empty", p)
	}
}

// Each plan includes about half the canaries. For a fair plan, Hoeffding's inequality
// gives P[|included − m/2| ≥ t] ≤ 2·exp(−2t²/m); with t = 2.5·√m that is 2e^(−12.5) ≈
// 7.5e-6 per seed, so the ten seeds below fail by chance with probability below 1e-4
// (and, the seeds being fixed, the test is deterministic).
func TestDrawPlanFraction(t *testing.T) {
	const m = 100_000
	bound := 2.5 * math.Sqrt(m)
	for seed := range uint64(10) {
		n := 0
		for _, in := range DrawPlan(seed, m) {
			if in {
				n++
			}
		}
		if dev := math.Abs(float64(n) - m/2); dev >= bound {
			t.Errorf("seed %d: %d of %d canaries included, %.0f from half (bound %.0f)", seed, n, m, dev, bound)
		}
	}
}

func TestSplitScores(t *testing.T) {
	in, out, err := SplitScores([]bool{true, false, true, false}, []float64{4, 3, 2, 1})
	if err != nil || !slices.Equal(in, []float64{4, 2}) || !slices.Equal(out, []float64{3, 1}) {
		t.Errorf("SplitScores = %v, %v, %v", in, out, err)
	}
	if _, _, err := SplitScores([]bool{true}, []float64{1, 2}); err == nil {
		t.Error("SplitScores accepted a plan shorter than the scores")
	}
	if _, _, err := SplitScores([]bool{true}, []float64{math.NaN()}); err == nil {
		t.Error("SplitScores accepted a NaN score")
	}
}

func TestUnlearningTarget(t *testing.T) {
	e, d := UnlearningTarget(1, 1e-6)
	if e != 2 || math.Abs(d-(1+math.E)*1e-6) > 1e-21 {
		t.Errorf("UnlearningTarget(1, 1e-6) = %v, %v", e, d)
	}
}
