package reports

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/google/go-cmp/cmp"
)

// Tables round-trip through JSON (with +Inf cells), summarise their findings, refuse a
// wrong schema, and render the paper's values with agreement marks.
func TestTables(t *testing.T) {
	yes, no := true, false
	tb := &Reproduction{Schema: ReproductionSchema, Tool: Tool{Name: "unlearnaudit", Version: "test"}, Experiment: "x", Title: "T",
		Settings: []table.Value{{Name: "ϵ̂", Value: 0.01}},
		Tables: []Table{{Name: "grid", Caption: "c", Columns: []string{"a", "b"}, Rows: []table.Row{
			{Label: "r1", Cells: []table.Cell{{Value: 0.5, Paper: "0.5", Match: &yes}, {Value: 3, Text: "3", List: []int{1, 2}}}},
			{Label: "r2", Cells: []table.Cell{{Value: 0.7, Paper: "0.6", Match: &no}, {Value: table.Number(math.Inf(1)), Text: "unreachable"}}},
		}, Findings: []Finding{{Check: "c", Verdict: "FAIL", Measured: 1, Bound: 2, Comparison: "of"}}}},
	}
	tb.Summarize()
	if tb.Summary.Verdict != "FAIL" || tb.Summary.Fail != 1 {
		t.Fatalf("summary %+v", tb.Summary)
	}
	js, err := tb.JSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadReproduction(bytes.NewReader(js), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tb, back); diff != "" {
		t.Fatalf("round trip differs:\n%s", diff)
	}
	if _, err := ReadReproduction(strings.NewReader(strings.Replace(string(js), ReproductionSchema, "unlearnaudit/tables/v1", 1)), "t.json"); err == nil || !strings.Contains(err.Error(), "schema") {
		t.Errorf("wrong schema: %v", err)
	}
	var md strings.Builder
	if err := tb.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## grid", "| r1 | 0.5 (paper 0.5 ✓) | 3 |", "0.7 (paper 0.6 ✗)", "unreachable", "**FAIL**"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}
