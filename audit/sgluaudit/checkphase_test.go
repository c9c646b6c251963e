package sgluaudit_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// checkPhaseHashes pin the findings of the decisive spec's subject and its four controls
// at δ = 1e-6 (decisiveAudits) on synthetic trials (syntheticResults), checked as
// BenchmarkCheckPhase and a merge check them (checkPhase): the SHA-256 of the JSON of
// every audit's findings, in order. They were computed by the checks run one after
// another, before the check phase ran them side by side and was made cheaper (commit
// a34d1c3, `go test ./audit/sgluaudit -run TestCheckPhaseFindingsPinned
// -v` printing the hashes), so a speed-up that changes one bit of a report fails here.
// Regenerated on purpose when every game finding began to open with what its trials
// support (Power's smallest and largest ε and μ, the trials to show and to pass, issue 40).
var checkPhaseHashes = map[int]string{
	2_000:  "e87d9f911dba8269d4b76437b0acd3367c754489af4a89a58a7f7a84e3ed1f97",
	20_000: "78a04a865c572da4de121cb8438f5557e6b237b2c1035404b7405b9adbbcc3f7",
}

// findingsHash is the SHA-256 of each audit's findings as a report writes a subject's
// (reports.NewSubject: every field, the numbers as report.json spells them), one per line.
func findingsHash(tb testing.TB, audits []audit.Audited, all [][]audit.Finding) string {
	tb.Helper()
	h := sha256.New()
	for i, fs := range all {
		s := audits[i].Subject
		b, err := json.Marshal(reports.NewSubject(s.Name(), s.Claim(), fs))
		if err != nil {
			tb.Fatal(err)
		}
		h.Write(append(b, '\n'))
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestCheckPhaseFindingsPinned(t *testing.T) {
	all := decisiveAudits(t, 1e-6)
	if len(all) != 5 {
		t.Fatalf("%d audits, want the subject and 4 controls", len(all))
	}
	for _, n := range []int{2_000, 20_000} {
		t.Run(fmt.Sprintf("trials=%d", n), func(t *testing.T) {
			if testing.Short() && n > 2_000 {
				t.Skip("-short: the 2 000-trial pin only")
			}
			results := make([][]audit.TrialResult, len(all))
			for i, a := range all {
				results[i] = syntheticResults(t, a, n, i == 0)
			}
			got, err := checkPhase(all, results) // side by side, first at this count: nothing memoised
			if err != nil {
				t.Fatal(err)
			}
			if h := findingsHash(t, all, got); h != checkPhaseHashes[n] {
				t.Errorf("findings hash %s, pinned %s", h, checkPhaseHashes[n])
			}
		})
	}
}
