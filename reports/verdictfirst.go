package reports

import (
	"math"

	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

// Every rendering of a report — Markdown, HTML, PDF — reads in the same order, the
// verdict first: the title, the audit date and the overall verdict, the table of the
// subjects' verdicts; then the findings with their plots; the negative controls; each
// claim with its derivation; and last an appendix of the inputs (the data, every file
// with its SHA-256 and size, the command line, the tool and seed) — what a reader checks
// after the verdict, not before it. The helpers below word what the three share.

// ViolationShown stands in the power column beside a FAIL: the power is the chance that
// a check catches a violation, moot once it has shown one.
const ViolationShown = "violation shown"

// GamePower is an empirical finding's power column: ViolationShown beside a FAIL, else
// whether it had the power a PASS needs (PowerVerdict).
func GamePower(f *Finding) string {
	if f == nil {
		return PowerVerdict(nil)
	}
	if f.Verdict == string(verdict.Fail) {
		return ViolationShown
	}
	return PowerVerdict(f.Power)
}

// GamePowerParts is GamePower for a table with many rows: the answer ("yes (catches ≥
// F×)", "no", ViolationShown or "—") and, beside a "no", the shortfall (the power and the
// trials that would decide) that GamePower puts in brackets after it, which many rows
// share and a table states once, under it. GamePower is answer + " (" + shortfall + ")"
// when there is a shortfall, else the answer.
func GamePowerParts(f *Finding) (answer, shortfall string) {
	if f == nil || f.Verdict == string(verdict.Fail) || f.Power == nil || float64(f.Power.Power) >= 0.8 {
		return GamePower(f), ""
	}
	return "no", powerShortfall(f.Power)
}

// powerDetail is a finding's power statement for its details: the power's summary, or
// beside a FAIL that a violation was shown, which the power no longer bears on.
func powerDetail(f Finding) string {
	if f.Verdict == string(verdict.Fail) {
		return ViolationShown + ": the power (the chance of catching a violation) is moot once one is shown"
	}
	return f.Power.Summary
}

// noBound is how a bound that bounds nothing (±∞, or NaN where none applies) is shown.
const noBound = "no bound"

// boundText is a finding's comparison and bound, "no bound" when the bound is not a
// number a measurement could cross.
func boundText(comparison string, b table.Number) string {
	if f := float64(b); math.IsInf(f, 0) || math.IsNaN(f) {
		return noBound
	}
	return comparison + " " + num(b)
}

// hasData says whether the report's subjects ran on a data set; a verify of models or
// scores alone has none, and says so rather than "0 rows × 0 features".
func (d Data) hasData() bool { return d.Rows > 0 || d.Features > 0 }

// noDataText is the data section of a report without a data set.
const noDataText = "No data set given: the audit read only the files listed below."

// dateText is the audit date line.
func dateText(date string) string {
	if date == "" {
		return "Audit date: not recorded (the report predates dated reports; audit report --date can add one)"
	}
	return "Audit date: " + date
}
