package reports

import (
	"fmt"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/reports/table"
)

// Table is one grid: a row label and a cell per column.
type Table struct {
	Name     string      `json:"name"`
	Caption  string      `json:"caption"`
	Columns  []string    `json:"columns"`
	Rows     []table.Row `json:"rows"`
	Findings []Finding   `json:"findings,omitempty"`
}

// writeTables renders tables with the paper's values beside the computed ones (✓ where
// they agree, ✗ where not), their findings, and the figures.
func writeTables(b *strings.Builder, tables []Table, figures []string) {
	for _, tb := range tables {
		fmt.Fprintf(b, "## %s\n\n%s\n\n", tb.Name, tb.Caption)
		fmt.Fprintf(b, "| |%s|\n|---|%s\n", strings.Join(tb.Columns, "|"), strings.Repeat("---|", len(tb.Columns)))
		for _, r := range tb.Rows {
			fmt.Fprintf(b, "| %s |", cell(r.Label))
			for _, c := range r.Cells {
				s := cell(c.String())
				if c.Paper != "" {
					mark := ""
					if c.Match != nil {
						mark = map[bool]string{true: " ✓", false: " ✗"}[*c.Match]
					}
					s += fmt.Sprintf(" (paper %s%s)", cell(c.Paper), mark)
				}
				fmt.Fprintf(b, " %s |", s)
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
		for _, f := range tb.Findings {
			fmt.Fprintf(b, "- **%s** %s: %s %s %s. %s\n", f.Label(), cell(f.Title), num(f.Measured), f.Comparison, num(f.Bound), cell(f.Detail))
		}
		if len(tb.Findings) > 0 {
			b.WriteString("\n")
		}
	}
	for _, fig := range figures {
		if strings.HasSuffix(fig, ".svg") {
			fmt.Fprintf(b, "![%s](%s)\n\n", fig, fig)
		}
	}
}
