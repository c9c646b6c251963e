package reports

import (
	"fmt"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

// Utility mirrors verdict.Utility: how well a subject's models still work, measured beside
// its verdict. It carries no verdict and is no finding, so no tally counts it and no
// verdict moves with it.
type Utility struct {
	Source string       `json:"source"`
	Rows   []UtilityRow `json:"rows"`
}

// UtilityRow mirrors verdict.UtilityRow.
type UtilityRow struct {
	Set     string       `json:"set"`
	Measure string       `json:"measure"`
	Side    string       `json:"side"`
	Models  int          `json:"models"`
	Records int          `json:"records"`
	Mean    table.Number `json:"mean"`
	SD      table.Number `json:"sd"`
}

// NewUtility converts an audit's utility into the report model; nil gives nil.
func NewUtility(u *verdict.Utility) *Utility {
	if u == nil {
		return nil
	}
	out := &Utility{Source: u.Source}
	for _, r := range u.Rows {
		out.Rows = append(out.Rows, UtilityRow{Set: r.Set, Measure: r.Measure, Side: r.Side, Models: r.Models, Records: r.Records,
			Mean: table.Number(r.Mean), SD: table.Number(r.SD)})
	}
	return out
}

// utilitySides are the utility table's columns of measurements, in order: the sides of an
// audit whose utility is measured (audit.UtilitySides).
var utilitySides = []string{"unlearned", "retrained"}

// utilityCaption says what the utility table is and is not.
func utilityCaption(u *Utility) string {
	return "Utility, measured beside the verdict and no part of it: each cell is the mean over a side's models of each model's mean over the set's records, with the standard deviation of those model means; " +
		"accuracy is the share of records predicted correctly. Forget is the deleted records, retain the records kept, test records no model trained on. From " + strings.TrimSuffix(u.Source, ".") + "."
}

// utilityTable is the utility table's rows, the header first: set, measure, each side's
// mean ± SD (models × records), and the unlearned mean minus the retrained one where both
// sides were measured.
func utilityTable(u *Utility) [][]string {
	rows := [][]string{{"set", "measure", "unlearned", "retrained", "unlearned − retrained"}}
	type key struct{ set, measure string }
	var order []key
	cells := map[key]map[string]UtilityRow{}
	for _, r := range u.Rows {
		k := key{r.Set, r.Measure}
		if cells[k] == nil {
			cells[k] = map[string]UtilityRow{}
			order = append(order, k)
		}
		cells[k][r.Side] = r
	}
	for _, k := range order {
		row := []string{k.set, k.measure}
		for _, side := range utilitySides {
			r, ok := cells[k][side]
			if !ok {
				row = append(row, "—")
				continue
			}
			row = append(row, fmt.Sprintf("%s ± %s (%d × %d)", num(r.Mean), num(r.SD), r.Models, r.Records))
		}
		diff := "—"
		un, okU := cells[k]["unlearned"]
		re, okR := cells[k]["retrained"]
		if okU && okR {
			diff = num(un.Mean - re.Mean)
		}
		rows = append(rows, append(row, diff))
	}
	return rows
}

// Lines are the utility table in lines of text, one a set and measure, for the console and
// the PDF: "forget loss: unlearned 2.5 ± 1.41421 (2 × 2); retrained 3 ± 1.41421 (2 × 2);
// unlearned − retrained -0.5".
func (u *Utility) Lines() []string {
	var out []string
	for _, row := range utilityTable(u)[1:] {
		out = append(out, fmt.Sprintf("%s %s: unlearned %s; retrained %s; unlearned − retrained %s", row[0], row[1], row[2], row[3], row[4]))
	}
	return out
}

// utilityMarkdown writes a subject's utility table.
func utilityMarkdown(b *strings.Builder, u *Utility) {
	b.WriteString("**Utility** (a measurement, no verdict):\n\n")
	t := utilityTable(u)
	for i, row := range t {
		cs := make([]string, len(row))
		for j, c := range row {
			cs[j] = cell(c)
		}
		fmt.Fprintf(b, "| %s |\n", strings.Join(cs, " | "))
		if i == 0 {
			b.WriteString("|" + strings.Repeat("---|", len(row)) + "\n")
		}
	}
	fmt.Fprintf(b, "\n%s\n\n", text(utilityCaption(u)))
}
