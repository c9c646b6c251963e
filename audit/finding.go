package audit

import (
	"fmt"
	"math"
)

// Verdict is the outcome of one check.
type Verdict string

const (
	// Pass: the evidence is consistent with the claim, and the check had the resolution to
	// see a violation of the claimed size.
	Pass Verdict = "PASS"
	// Fail: a violation shown at the stated confidence (an empirical lower bound above the
	// certified upper bound, or a deterministic inequality broken).
	Fail Verdict = "FAIL"
	// Inconclusive: too little evidence to decide; the finding says how many trials would.
	Inconclusive Verdict = "INCONCLUSIVE"
)

// Kind groups checks by the question they answer.
type Kind string

const (
	// Certificate checks recompute the claim's arithmetic and test its assumptions on the data.
	Certificate Kind = "certificate"
	// Implementation checks compare the method's runs with what its proof assumes.
	Implementation Kind = "implementation"
	// Release checks measure how far the published laws are apart.
	Release Kind = "release"
	// Empirical checks attack the published models with no knowledge of the method's
	// internals: the ε lower bound of a distinguishing game.
	Empirical Kind = "empirical"
)

// Interval is a confidence interval.
type Interval struct {
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
}

// A Finding is the result of one check.
type Finding struct {
	Check    string    `json:"check"` // stable identifier, e.g. "d2d/release/renyi"
	Title    string    `json:"title"`
	Kind     Kind      `json:"kind"`
	Verdict  Verdict   `json:"verdict"`
	Measured float64   `json:"measured"`
	Interval *Interval `json:"interval,omitempty"` // confidence interval of Measured
	// Bound is what Measured is compared with; Comparison says how ("≤" or "≥").
	Bound      float64 `json:"bound"`
	Comparison string  `json:"comparison"`
	// Confidence is the probability that a FAIL is not a false alarm; 1 for deterministic
	// checks.
	Confidence   float64 `json:"confidence"`
	Trials       int     `json:"trials,omitempty"`
	TrialsNeeded int     `json:"trials_needed,omitempty"` // set on INCONCLUSIVE
	Detail       string  `json:"detail,omitempty"`
	// Estimates are reported beside the measurement and never decide the verdict.
	Estimates []Estimate `json:"estimates,omitempty"`
}

// An Estimate is a reported quantity that is not a bound: a point estimate, with an
// interval when it has one (a bootstrap interval, itself an estimate).
type Estimate struct {
	Name     string    `json:"name"`
	Value    float64   `json:"value"`
	Interval *Interval `json:"interval,omitempty"`
	Note     string    `json:"note,omitempty"`
}

// DecideUpper applies the verdict rule to a quantity that must not exceed bound, given a
// confidence interval for it: FAIL when the lower end exceeds the bound, PASS when the upper
// end does not, INCONCLUSIVE otherwise.
func DecideUpper(iv Interval, bound float64) Verdict {
	switch {
	case iv.Lower > bound:
		return Fail
	case iv.Upper <= bound:
		return Pass
	}
	return Inconclusive
}

// FloatTolerance is the slack a deterministic inequality lhs ≤ rhs is given for rounding:
// lhs ≤ rhs·(1 + 1e-9) + 1e-12 (spec d2d §4.1).
func FloatTolerance(lhs, rhs float64) bool { return lhs <= rhs*(1+1e-9)+1e-12 }

// Worst combines verdicts: FAIL if any failed, else INCONCLUSIVE if any was, else PASS.
// No findings at all is INCONCLUSIVE: nothing was shown.
func Worst(fs []Finding) Verdict {
	if len(fs) == 0 {
		return Inconclusive
	}
	v := Pass
	for _, f := range fs {
		switch f.Verdict {
		case Fail:
			return Fail
		case Inconclusive:
			v = Inconclusive
		}
	}
	return v
}

// Count tallies verdicts.
func Count(fs []Finding) (pass, fail, inconclusive int) {
	for _, f := range fs {
		switch f.Verdict {
		case Pass:
			pass++
		case Fail:
			fail++
		default:
			inconclusive++
		}
	}
	return pass, fail, inconclusive
}

// Deterministic builds the finding of a deterministic check measured ≤ bound (with the
// rounding slack of FloatTolerance).
func Deterministic(check, title string, kind Kind, measured, bound float64, trials int, detail string) Finding {
	v := Pass
	if !FloatTolerance(measured, bound) || math.IsNaN(measured) {
		v = Fail
	}
	return Finding{Check: check, Title: title, Kind: kind, Verdict: v, Measured: measured, Bound: bound,
		Comparison: "≤", Confidence: 1, Trials: trials, Detail: detail}
}

func (f Finding) String() string {
	return fmt.Sprintf("%-12s %s: %.6g %s %.6g", f.Verdict, f.Title, f.Measured, f.Comparison, f.Bound)
}
