package reports

import (
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/internal/atomicfile"
	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// NewReproduction starts the result of "audit reproduce EXPERIMENT" written by the given
// tool version.
func NewReproduction(version, experiment, title string) *Reproduction {
	return &Reproduction{Schema: ReproductionSchema, Tool: Tool{Name: "unlearnaudit", Version: version},
		Command: "reproduce " + experiment, Experiment: experiment, Title: title}
}

// ParseFormats reads a figure-format setting (audit.FormatsParam).
func ParseFormats(list []string) ([]string, error) {
	for _, f := range list {
		if !slices.Contains(Formats, f) {
			return nil, fmt.Errorf("--formats: %s: want some of %s", clip.Quote(f), strings.Join(Formats, ","))
		}
	}
	return list, nil
}

// RenderFigure draws fig in each format into files, as base.FORMAT, and returns the names
// in the order of formats.
func RenderFigure(files map[string][]byte, base string, fig Figure, formats []string) ([]string, error) {
	var names []string
	for _, format := range formats {
		var b strings.Builder
		if _, err := fig.Render(&b, format); err != nil {
			return nil, fmt.Errorf("figure %s: %w", base, err)
		}
		name := base + "." + format
		files[name] = []byte(b.String())
		names = append(names, name)
	}
	return names, nil
}

// HashInputs hashes each input file (HashFile), so that a result names exactly what it
// was computed from.
func HashInputs(in []Input) ([]Input, error) {
	out := make([]Input, 0, len(in))
	for _, i := range in {
		h, err := HashFile(i.Role, i.Path)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}

// Reproduced is an experiment's outcome, rendered.
type Reproduced struct {
	Files map[string][]byte // file name → contents, to write into the output folder
	JSON  []byte            // the result, printed with --json
	Text  string            // the summary printed otherwise
	// Verdict is the overall verdict the front end exits with (PASS 0, FAIL 1,
	// INCONCLUSIVE 3): a judged FAIL fails; a judged INCONCLUSIVE, or no judged finding at
	// all, is INCONCLUSIVE; only judged findings that all pass make a PASS: the rule
	// Reproduction.Render applies, which nothing overrides.
	Verdict verdict.Verdict
}

// Write writes the outcome's files into dir, creating it, each file atomically and in
// order of name.
func (r *Reproduced) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	for _, name := range slices.Sorted(maps.Keys(r.Files)) {
		if err := atomicfile.WriteFileAtomic(filepath.Join(dir, name), r.Files[name]); err != nil {
			return err
		}
	}
	return nil
}

// Render draws the plots asked for (Plots), summarises the reproduction (Summarize) and
// renders it as an experiment's outcome: the files EXPERIMENT.json and EXPERIMENT.md
// beside the figures, the JSON, the plain-text summary naming the files in dir, and the
// overall verdict — the one rule every reproduction's exit follows: FAIL when a judged
// finding failed, else INCONCLUSIVE when one was inconclusive or none was judged, else
// PASS. The front end renders; an experiment returns the values (audit.Experiment).
func (r *Reproduction) Render(dir string) (*Reproduced, error) {
	if err := r.checkPower(); err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, p := range r.Plots {
		names, err := RenderFigure(files, p.Base, p.Figure, p.Formats)
		if err != nil {
			return nil, err
		}
		switch {
		case !p.OfDataset:
			r.Figures = append(r.Figures, names...)
		case p.Dataset >= 0 && p.Dataset < len(r.Datasets):
			r.Datasets[p.Dataset].Figures = append(r.Datasets[p.Dataset].Figures, names...)
		default:
			return nil, fmt.Errorf("figure %s: dataset %d of %d", p.Base, p.Dataset, len(r.Datasets))
		}
	}
	r.Plots = nil // drawn: a second Render lists no file twice
	r.Summarize()
	js, err := r.JSON()
	if err != nil {
		return nil, err
	}
	var md, text strings.Builder
	if err := r.Markdown(&md); err != nil {
		return nil, err
	}
	r.WriteText(&text, dir)
	files[r.Experiment+".json"], files[r.Experiment+".md"] = js, []byte(md.String())
	return &Reproduced{Files: files, JSON: js, Text: text.String(), Verdict: verdict.Verdict(r.Summary.Verdict)}, nil
}

// checkPower refuses a reproduction with an empirical finding (Kind "empirical": an
// attack on the published models) that states no power: judged or reported, it must say
// what it could have caught in a structured Finding.Power, not in prose alone.
func (r *Reproduction) checkPower() error {
	var fs []Finding
	for _, d := range r.Datasets {
		for _, c := range d.Curves {
			fs = append(fs, c.Findings...)
		}
	}
	for _, tb := range r.Tables {
		fs = append(fs, tb.Findings...)
	}
	for _, f := range fs {
		if f.Kind == string(verdict.Empirical) && f.Power == nil {
			return fmt.Errorf("%s: empirical finding %s states no power", r.Experiment, f.Check)
		}
	}
	return nil
}

// WriteText prints the reproduction for a terminal: per dataset a table of its curves and
// the checks that did not pass; each table, with the paper's value beside every cell that
// disagrees and the checks (all of them when few, else those that did not pass); then the
// overall verdict and where the files are in dir.
func (r *Reproduction) WriteText(w io.Writer, dir string) {
	for _, d := range r.Datasets {
		fmt.Fprintf(w, "%s: %d records × %d features, D₀ = %d, %d adds and %d deletes\n", d.Name, d.Rows, d.Features, d.Initial, d.Adds, d.Deletes)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  method\tverdict\tupdates\tσ\texcess@1\texcess@last\tbound\tgrowth\tgradients/update\t/retrain")
		for _, c := range d.Curves {
			first, last := c.Points[min(1, len(c.Points)-1)], c.Points[len(c.Points)-1]
			fmt.Fprintf(tw, "  %s (%s)\t%s\t%d\t%.3g\t%.3g\t%.3g\t%s\t%s\t%.3g\t%.3g\n", c.Method, c.Theorem, c.Verdict, c.Updates, float64(c.Sigma),
				float64(first.ExcessMean), float64(last.ExcessMean), short(c.Bound), short(c.Growth), float64(c.UpdateGradients), float64(c.RetrainGradients))
		}
		tw.Flush()
		for _, c := range d.Curves {
			for _, f := range c.Findings {
				if f.Verdict != string(verdict.Pass) {
					fmt.Fprintf(w, "  %s %s: %s: measured %s, bound %s\n", f.Label(), c.Method, f.Title, table.G10(float64(f.Measured)), table.G10(float64(f.Bound)))
				}
			}
		}
	}
	for _, tb := range r.Tables {
		fmt.Fprintf(w, "%s\n", tb.Name)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "  \t%s\n", strings.Join(tb.Columns, "\t"))
		for _, row := range tb.Rows {
			fmt.Fprintf(tw, "  %s", row.Label)
			for _, c := range row.Cells {
				s := c.String()
				if c.Match != nil && !*c.Match {
					s += " ✗ paper " + c.Paper
				}
				fmt.Fprintf(tw, "\t%s", s)
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
		passed := 0
		for _, f := range tb.Findings {
			if f.Verdict == string(verdict.Pass) && len(tb.Findings) > 3 {
				passed++
				continue
			}
			fmt.Fprintf(w, "  %s %s: %s\n", f.Label(), f.Title, f.Detail)
		}
		if passed > 0 {
			fmt.Fprintf(w, "  PASS: %d more checks (details in the report)\n", passed)
		}
	}
	if r.Summary.Judged() {
		fmt.Fprintf(w, "overall: %s; ", r.Summary.Verdict)
	} else {
		fmt.Fprintf(w, "overall: %s (nothing judged); ", r.Summary.Verdict)
	}
	if r.Summary.Reported != nil {
		fmt.Fprintf(w, "reported, not judged: %s; ", r.Summary.Reported)
	}
	fmt.Fprintf(w, "report: %s, %s\n", filepath.Join(dir, r.Experiment+".json"), filepath.Join(dir, r.Experiment+".md"))
}

// short prints a number to three digits, a dash for NaN (a value that does not apply).
func short(n table.Number) string {
	if math.IsNaN(float64(n)) {
		return "—"
	}
	return fmt.Sprintf("%.3g", float64(n))
}
