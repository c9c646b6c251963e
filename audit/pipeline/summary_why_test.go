package pipeline

import (
	"bytes"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reports"
)

// The summary's line for a required INCONCLUSIVE finding that no number of trials decides
// (a deterministic check at float64's resolution) says so: a red-team reader saw the
// game's "≈ 198087 trials per side needed" above it and took it for the way to decide.
// A finding that more trials decide, one with power, or an empirical one (a one-run audit,
// which more canaries may decide) gets no such words.
func TestSummarySaysNoTrialsDecide(t *testing.T) {
	rep := &reports.Report{Schema: reports.Schema, Command: "run", Trials: 50, Subjects: []reports.Subject{{Name: "s", Verdict: "INCONCLUSIVE", Findings: []reports.Finding{
		{Check: "det", Title: "distance at rounding", Verdict: "INCONCLUSIVE", Required: true, Kind: "implementation", Comparison: "≤"},
		{Check: "more", Title: "needs trials", Verdict: "INCONCLUSIVE", Required: true, Kind: "implementation", Comparison: "≤", TrialsNeeded: 400},
		{Check: "game", Title: "the game", Verdict: "INCONCLUSIVE", Required: true, Kind: "empirical", Comparison: "≤", Power: &reports.Power{Against: 2, TrialsNeeded: 900}},
		{Check: "onerun", Title: "one run", Verdict: "INCONCLUSIVE", Required: true, Kind: "empirical", Comparison: "≤"}, // more canaries may decide it
	}}}}
	rep.Summarize()
	var b bytes.Buffer
	WriteSummary(&b, rep, "out", []string{"md"})
	lines := map[string]string{}
	for _, l := range strings.Split(b.String(), "\n") {
		for _, title := range []string{"distance at rounding", "needs trials", "the game", "one run"} {
			if strings.Contains(l, title+":") {
				lines[title] = l
			}
		}
	}
	const why = "no number of trials decides it"
	if !strings.Contains(lines["distance at rounding"], why) || strings.Contains(lines["needs trials"], why) || strings.Contains(lines["the game"], why) || strings.Contains(lines["one run"], why) {
		t.Errorf("summary:\n%s\nwant %q on the deterministic finding's line only", b.String(), why)
	}
}
