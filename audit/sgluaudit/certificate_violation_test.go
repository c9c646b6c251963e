package sgluaudit

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reports"

	"github.com/unlearnaudit/unlearnaudit/internal/audittest"
)

// A planted violation for every certificate finding SGLU's audit emits (issue 28, item 4):
// sglu/certificate is planted in TestSubjectTooFewEpochs (K = 1 where the target needs
// more) and TestStaleEpochsControl; sglu-table3 here.

// sglu-table3: Table 3's σ recomputed from a wrong declared n (MNIST's 11,264 declared as
// 10,000, which moves λ = m = 1e-6·n, the contraction and δ = 1/n) no longer matches the
// paper's MNIST rows, and the finding FAILs naming the first mismatch; with the paper's n
// every entry matches and it PASSes: the registered experiment, then its table from
// settings with the wrong n.
func TestTable3Violation(t *testing.T) {
	finding := func(rep *reports.Reproduction) verdict.Finding {
		t.Helper()
		for _, f := range rep.Tables[0].Findings {
			if f.Check == "sglu-table3" {
				return verdict.Finding{Check: f.Check, Verdict: verdict.Verdict(f.Verdict), Measured: float64(f.Measured), Bound: float64(f.Bound), Detail: f.Detail}
			}
		}
		t.Fatal("no finding sglu-table3")
		return verdict.Finding{}
	}
	dir := t.TempDir()
	if _, err := audittest.Reproduce(t, "sglu-table3", dir); err != nil {
		t.Fatal(err)
	}
	rep, _ := readTables(t, filepath.Join(dir, "sglu-table3.json"))
	if f := finding(rep); f.Verdict != verdict.Pass || f.Measured != 24 || f.Bound != 24 {
		t.Fatalf("the paper's n: %v (%s); want PASS, 24 of 24", f, f.Detail)
	}
	wrong := []PaperSetting{PaperSettings[0], PaperSettings[1]}
	if wrong[0].Name != "mnist" {
		t.Fatalf("test setup: PaperSettings[0] is %s", wrong[0].Name)
	}
	wrong[0].N = 10000
	wrongRep, err := table3(audit.ExperimentEnv{Version: "test"}, wrong)
	if err != nil {
		t.Fatal(err)
	}
	f := finding(wrongRep)
	if f.Verdict != verdict.Fail || !(f.Measured <= 12) || !strings.Contains(f.Detail, "first mismatch: MNIST") {
		t.Errorf("MNIST's n declared 10,000: %v (%s); want FAIL with the MNIST entries mismatched", f, f.Detail)
	}
}
