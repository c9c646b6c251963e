package verdict

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// ExcessAgainst is the excess a membership test of "excess ≤ 0" must catch to PASS: an
// attack's AUC (or its member rate) 0.1 above the reference's.
const ExcessAgainst = 0.1

// ExcessPower is the structured power of a one-sided normal test of "excess ≤ 0" — an
// attack's AUC, or the rate at which it calls records members, over a reference's — that
// rejects at the normal quantile z and catches an excess of detectable with 80 % power
// with the n records (or evaluations) a side it used. Its standard error is then
// detectable/(z + z₀.₈), so it catches an excess of against with probability
// Φ(against/se − z), and about n·(detectable/against)² a side would reach 80 % (its
// TrialsNeeded, 0 when these already do). unit names the excess, e.g. "excess AUC";
// counts what n counts, e.g. "deleted records" (Power.Counts).
func ExcessPower(unit, counts string, against, detectable, z float64, n int) *Power {
	z80 := distuv.UnitNormal.Quantile(PowerTarget)
	p := &Power{Unit: unit, Counts: counts, Against: against, SmallestFactor: detectable, Power: 1}
	if detectable > 0 {
		se := detectable / (z + z80)
		p.Power = distuv.UnitNormal.CDF(against/se - z)
	}
	if detectable > against {
		p.TrialsNeeded = int(math.Ceil(float64(n) * (detectable / against) * (detectable / against)))
	}
	return p
}

// ExcessVerdict is the one rule for a membership test of "excess ≤ 0" — an attack's AUC,
// or the rate at which it calls records members, over a reference's: FAIL when the test
// shows an excess (shown: its interval lies above the reference, or its p-value is below
// the level); PASS when it does not and catches an excess of ExcessAgainst with 80 % power
// (detectable ≤ ExcessAgainst); INCONCLUSIVE otherwise.
func ExcessVerdict(shown bool, detectable float64) Verdict {
	switch {
	case shown:
		return Fail
	case detectable <= ExcessAgainst:
		return Pass
	}
	return Inconclusive
}
