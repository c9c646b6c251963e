package verdict_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"pgregory.net/rapid"
)

// RoundUp3 is never below v, has three significant figures (printing it with %.3g and
// reading it back gives it again), and is above v by less than one unit of the third:
// so "catches ≥ x×" never claims a smaller violation than the check catches, and claims
// the least three figures can say. A value with three figures is itself (1.55 stays 1.55,
// where a plain ceiling of 1.55·100 = 155.00000000000003 gives 1.56).
func TestRoundUp3(t *testing.T) {
	for v, want := range map[float64]float64{1.55: 1.55, 1.5506: 1.56, 1.834: 1.84, 2: 2, 0.000123: 0.000123, 12345: 12400, 1.999: 2} {
		if got := verdict.RoundUp3(v); got != want {
			t.Errorf("RoundUp3(%v) = %v, want %v", v, got, want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		v := math.Pow(10, rapid.Float64Range(-6, 9).Draw(t, "log10 v"))
		got := verdict.RoundUp3(v)
		// a unit of the third figure; the 1e-9 below covers only this test's own roundings of
		// it and of got − v (a few ulps of got), never a second unit
		unit := math.Pow(10, math.Floor(math.Log10(v))-2)
		back, err := strconv.ParseFloat(strconv.FormatFloat(got, 'g', 3, 64), 64)
		if got < v || got-v >= unit*(1+1e-9) || err != nil || back != got {
			t.Fatalf("RoundUp3(%v) = %v: want ≥ v, within %v, with three figures (reads back as %v)", v, got, unit, back)
		}
	})
	for _, v := range []float64{0, -1, math.Inf(1), math.NaN()} {
		if got := verdict.RoundUp3(v); !(got == v || math.IsNaN(v) && math.IsNaN(got)) {
			t.Errorf("RoundUp3(%v) = %v, want it unchanged", v, got)
		}
	}
}

// The power in words states the smallest violation caught rounded up, as the reports'
// tables do: a red-team reader found "catches ≥ 1.55× violations" in a finding beside
// "catches ≥ 1.56×" in its table for 1.5506.
func TestPowerSummaryRoundsUp(t *testing.T) {
	for _, p := range []verdict.Power{{Against: 2, Power: 0.9, SmallestFactor: 1.5506}, {Against: 0.1, Power: 0.9, SmallestFactor: 1.5506, Unit: "excess"}} {
		if got := p.Summary(); !strings.Contains(got, "≥ 1.56") || strings.Contains(got, "1.55") {
			t.Errorf("%+v: %q; want the smallest caught stated as ≥ 1.56", p, got)
		}
	}
}
