package reports

import (
	"fmt"
	"io"
	"strings"
)

// TablesSchema identifies the JSON layout of Tables.
const TablesSchema = "unlearnaudit/tables/v1"

// Tables is a paper experiment whose result is a set of tables rather than curves along
// update sequences: a bound or accountant evaluated over a grid, or measurements per
// method, each cell beside the paper's printed value where the paper gives one. Like
// Report it is a function of the inputs and seed alone.
type Tables struct {
	Schema     string   `json:"schema"`
	Tool       Tool     `json:"tool"`
	Command    string   `json:"command"`
	Experiment string   `json:"experiment"`
	Title      string   `json:"title"`
	Seed       uint64   `json:"seed"`
	Inputs     []Input  `json:"inputs,omitempty"`
	Settings   []Value  `json:"settings"`
	Notes      []string `json:"notes,omitempty"`
	Tables     []Table  `json:"tables"`
	Figures    []string `json:"figures,omitempty"` // files written beside the report
	Summary    Summary  `json:"summary"`
}

// Table is one grid: a row label and a cell per column.
type Table struct {
	Name     string     `json:"name"`
	Caption  string     `json:"caption"`
	Columns  []string   `json:"columns"`
	Rows     []TableRow `json:"rows"`
	Findings []Finding  `json:"findings,omitempty"`
}

// TableRow is a labelled row of cells.
type TableRow struct {
	Label string `json:"label"`
	Cells []Cell `json:"cells"`
}

// Cell is a computed value, shown as Text when set (else the value at full precision),
// with the paper's printed value and whether they agree as the caption says, and a list
// when the value summarises one (e.g. per-request epochs and their sum).
type Cell struct {
	Value Number `json:"value"`
	Text  string `json:"text,omitempty"`
	Paper string `json:"paper,omitempty"`
	Match *bool  `json:"match,omitempty"`
	List  []int  `json:"list,omitempty"`
}

// Summarize sets the summary from every table's findings.
func (t *Tables) Summarize() {
	var all []Finding
	for _, tb := range t.Tables {
		all = append(all, tb.Findings...)
	}
	t.Summary = summarize(all)
}

// JSON encodes the tables, indented, with a final newline.
func (t *Tables) JSON() ([]byte, error) { return encodeJSON(t, "tables") }

// ReadTables decodes tables and checks the schema.
func ReadTables(rd io.Reader, name string) (*Tables, error) {
	return decodeJSON(rd, name, "tables", TablesSchema, func(t *Tables) string { return t.Schema })
}

// String is what the cell shows: its text, else its value.
func (c Cell) String() string {
	if c.Text != "" {
		return c.Text
	}
	return num(c.Value)
}

// Markdown renders the tables with the paper's values beside the computed ones (✓ where
// they agree, ✗ where not), their findings, and the figures.
func (t *Tables) Markdown(w io.Writer) error {
	var b strings.Builder
	judged := t.Summary.Pass+t.Summary.Fail+t.Summary.Inconclusive > 0
	writeHeader(&b, t.Title, t.Tool, t.Schema, t.Command, t.Seed, t.Summary, judged, t.Settings, t.Notes, t.Inputs)
	for _, tb := range t.Tables {
		fmt.Fprintf(&b, "## %s\n\n%s\n\n", tb.Name, tb.Caption)
		fmt.Fprintf(&b, "| |%s|\n|---|%s\n", strings.Join(tb.Columns, "|"), strings.Repeat("---|", len(tb.Columns)))
		for _, r := range tb.Rows {
			fmt.Fprintf(&b, "| %s |", cell(r.Label))
			for _, c := range r.Cells {
				s := cell(c.String())
				if c.Paper != "" {
					mark := ""
					if c.Match != nil {
						mark = map[bool]string{true: " ✓", false: " ✗"}[*c.Match]
					}
					s += fmt.Sprintf(" (paper %s%s)", cell(c.Paper), mark)
				}
				fmt.Fprintf(&b, " %s |", s)
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
		for _, f := range tb.Findings {
			fmt.Fprintf(&b, "- **%s** %s: %s %s %s. %s\n", f.Verdict, cell(f.Title), num(f.Measured), f.Comparison, num(f.Bound), cell(f.Detail))
		}
		if len(tb.Findings) > 0 {
			b.WriteString("\n")
		}
	}
	for _, fig := range t.Figures {
		if strings.HasSuffix(fig, ".svg") {
			fmt.Fprintf(&b, "![%s](%s)\n\n", fig, fig)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
