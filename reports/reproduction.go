package reports

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

// ReproductionSchema identifies the JSON layout of a Reproduction. v5: a power states what
// its counts count and, for a game, the question it answers (reports.Power). v4: a run that judged
// nothing is INCONCLUSIVE (v3 wrote "—" and passed it), and a passing "≤" finding states
// its slack (Finding.Slack). v3: a finding may be
// reported, not judged (a paper's claim), and the summary counts those apart from the
// verdict; v2 counted every finding in the verdict and left it to the run to override. v2
// brought one schema for every reproduction, curves (Datasets) and tables (Tables) alike;
// v1 had curves only, and the table-shaped experiments wrote a schema of their own
// (tables/v1).
const ReproductionSchema = "unlearnaudit/reproduction/v5"

// reproductionV4 is the previous format, still read: v5 adds a power's counts and
// question (reports.Power), which v4 files lack.
const reproductionV4 = "unlearnaudit/reproduction/v4"

// A Reproduction is a paper experiment re-run, in one of two shapes or both: measured
// curves along update sequences with the theorems' bounds beside them, per dataset
// (Datasets); or tables — a bound or accountant over a grid, measurements per method —
// each cell beside the paper's printed value where the paper gives one (Tables). Either
// carries the checks made on it. Like Report it is a function of the inputs and seed
// alone.
type Reproduction struct {
	Schema     string              `json:"schema"`
	Tool       Tool                `json:"tool"`
	Command    string              `json:"command"`
	Date       string              `json:"date,omitempty"` // the day it ran, set by the front end before Render; empty before dates were kept
	Experiment string              `json:"experiment"`
	Title      string              `json:"title"`
	Seed       uint64              `json:"seed"`
	Inputs     []Input             `json:"inputs,omitempty"`
	Settings   []table.Value       `json:"settings"`
	Notes      []string            `json:"notes,omitempty"`
	Datasets   []ReproducedDataset `json:"datasets,omitempty"`
	Tables     []Table             `json:"tables,omitempty"`
	Figures    []string            `json:"figures,omitempty"` // files written beside it (a dataset's own figures are listed with it)
	Summary    Summary             `json:"summary"`

	// Plots are the figures the experiment asks for (Plot, PlotDataset): values, drawn
	// by the front end when it renders the reproduction (Render), which lists their files
	// in Figures or in their dataset's.
	Plots []Plot `json:"-"`
}

// A Plot is a figure a reproduction asks for: Render draws it in each of Formats as
// Base.FORMAT and lists the files, in that order, in the reproduction's Figures, or in
// Datasets[Dataset].Figures when OfDataset.
type Plot struct {
	Base      string
	Figure    Figure
	Formats   []string
	OfDataset bool
	Dataset   int
}

// Plot asks for fig to be drawn beside the reproduction in each of formats, as
// base.FORMAT, its files listed in Figures after those asked for before it.
func (r *Reproduction) Plot(base string, fig Figure, formats []string) {
	r.Plots = append(r.Plots, Plot{Base: base, Figure: fig, Formats: formats})
}

// PlotDataset is Plot for a figure of Datasets[i]: its files are listed in that
// dataset's Figures.
func (r *Reproduction) PlotDataset(i int, base string, fig Figure, formats []string) {
	r.Plots = append(r.Plots, Plot{Base: base, Figure: fig, Formats: formats, OfDataset: true, Dataset: i})
}

// ReproducedDataset is the experiment on one dataset.
type ReproducedDataset struct {
	Name          string   `json:"name"`
	Description   string   `json:"description"`
	Preprocessing []string `json:"preprocessing,omitempty"`
	Rows          int      `json:"rows"`     // records available
	Features      int      `json:"features"` // d
	Initial       int      `json:"initial"`  // |D_0|
	Adds          int      `json:"adds"`
	Deletes       int      `json:"deletes"`
	// References are values drawn as horizontal lines, e.g. the zero model's excess risk.
	References []table.Value `json:"references,omitempty"`
	Curves     []Curve       `json:"curves"`
	Figures    []string      `json:"figures,omitempty"` // files written beside the report
}

// Curve is one method's measurements along its sequence.
type Curve struct {
	Method     string       `json:"method"`
	Theorem    string       `json:"theorem"`
	Loss       string       `json:"loss"`
	Iterations string       `json:"iterations"`
	Updates    int          `json:"updates"`
	Sigma      table.Number `json:"sigma"`
	// Bound is the value the checks compare with, in the form BoundForm names; PaperBound
	// is the paper's own form when it differs (NaN when it does not apply).
	Bound        table.Number `json:"bound"`
	BoundChecked bool         `json:"bound_checked"` // false: a rate drawn for reference only
	BoundForm    string       `json:"bound_form"`
	PaperBound   table.Number `json:"paper_bound"`
	BoundRadius  table.Number `json:"bound_radius"`
	Growth       table.Number `json:"growth"`
	// Gradient evaluations per update, and per retraining from scratch.
	UpdateGradients  table.Number `json:"update_gradients"`
	RetrainGradients table.Number `json:"retrain_gradients"`
	Points           []CurvePoint `json:"points"`
	Verdict          string       `json:"verdict"`
	Findings         []Finding    `json:"findings"`
}

// CurvePoint is one checkpoint of a curve.
type CurvePoint struct {
	Round        int          `json:"round"`
	N            int          `json:"n"`
	Excess       table.Number `json:"excess"`
	ExcessMean   table.Number `json:"excess_mean"`
	ExcessSD     table.Number `json:"excess_sd"` // spread of the draws behind ExcessMean
	SecretExcess table.Number `json:"secret_excess"`
	Distance     table.Number `json:"distance"`
	OnBoundary   bool         `json:"on_boundary"`
	Gradients    int64        `json:"gradients"`
}

// Summarize sets each curve's verdict and the overall summary from the findings of the
// curves and the tables. A curve with no findings (nothing it could be checked against) is
// reported, not judged. The overall verdict is the worst judged finding's, and
// INCONCLUSIVE when nothing was judged — no finding at all, or every one reported: a run
// that judged nothing has shown nothing, so it never passes (Render exits with it).
func (r *Reproduction) Summarize() {
	var all []Finding
	for i := range r.Datasets {
		for j := range r.Datasets[i].Curves {
			c := &r.Datasets[i].Curves[j]
			c.Verdict = NotJudged
			if len(c.Findings) > 0 {
				c.Verdict = summarize(c.Findings).Verdict
			}
			all = append(all, c.Findings...)
		}
	}
	for i := range r.Tables {
		all = append(all, r.Tables[i].Findings...)
	}
	r.eachFinding(func(f *Finding) { f.Slack = table.Number(slack(*f)) })
	r.Summary = summarize(all)
	if !r.Summary.Judged() {
		r.Summary.Verdict = string(verdict.Inconclusive)
	}
}

// ReportClaims marks every finding of the tables as reported, not judged, except those
// whose check judged names (nil: none): a reproduction measures a paper's claims and
// reports them, while its own implementation checks decide whether the run passed. Call
// it before Summarize.
func (r *Reproduction) ReportClaims(judged func(check string) bool) {
	for i := range r.Tables {
		for j := range r.Tables[i].Findings {
			f := &r.Tables[i].Findings[j]
			f.Reported = judged == nil || !judged(f.Check)
		}
	}
}

// eachFinding calls fn on every finding of the curves and the tables.
func (r *Reproduction) eachFinding(fn func(*Finding)) {
	for i := range r.Datasets {
		for j := range r.Datasets[i].Curves {
			for k := range r.Datasets[i].Curves[j].Findings {
				fn(&r.Datasets[i].Curves[j].Findings[k])
			}
		}
	}
	for i := range r.Tables {
		for j := range r.Tables[i].Findings {
			fn(&r.Tables[i].Findings[j])
		}
	}
}

// SlackLimit is the slack (Finding.Slack) from which a loose upper bound is no evidence on
// its own: a bound 100 times the value measured catches only a violation 100 times as
// large as what was seen.
const SlackLimit = 100

// slack is Bound ÷ Measured for a "≤" finding that holds with a positive, finite
// measurement and a finite bound; 0 otherwise.
func slack(f Finding) float64 {
	m, b := float64(f.Measured), float64(f.Bound)
	if f.Comparison != "≤" || !(m > 0) || math.IsInf(m, 0) || math.IsInf(b, 0) || math.IsNaN(b) || b < m {
		return 0
	}
	return b / m
}

// ReportSlack states the slack of every finding whose check loose names — an upper bound
// on a utility (an excess risk, a regret) that a correct implementation meets with room
// to spare and only a gross error breaks — in its detail, as the ratio measured/bound and
// as Bound ÷ Measured; and it marks such a finding reported, not judged, when its slack is
// SlackLimit or more: it could catch only a violation that many times the value measured,
// so it is shown with its verdict but does not decide the run. Exact checks (a divergence
// computed in closed form, a rounding bound) are not loose in this sense: leave them out
// of loose. Call it before Summarize; a finding already reported stays so.
func (r *Reproduction) ReportSlack(loose func(check string) bool) {
	r.eachFinding(func(f *Finding) {
		s := slack(*f)
		if s == 0 || !loose(f.Check) {
			return
		}
		f.Detail += fmt.Sprintf("; measured/bound = %.3g (slack %.3g×)", 1/s, s)
		if s >= SlackLimit && !f.Reported {
			f.Reported = true
			f.Detail += fmt.Sprintf(": it could catch only a violation ≥ %.3g× the value measured, so it is reported, not judged (slack ≥ %d×)", s, SlackLimit)
		}
	})
}

// summarize tallies findings: the judged decide the verdict, the reported count apart.
// Measurements never decide, nor count.
func summarize(fs []Finding) Summary {
	var judged, reported verdict.Tally
	for _, f := range fs {
		switch {
		case f.Kind == string(verdict.Measurement):
		case f.Reported:
			reported.Add(verdict.Verdict(f.Verdict))
		default:
			judged.Add(verdict.Verdict(f.Verdict))
		}
	}
	s := Summary{Verdict: string(worst(judged)), Pass: judged.Pass, Fail: judged.Fail, Inconclusive: judged.Inconclusive}
	if total(reported) > 0 {
		s.Reported = &Tally{Pass: reported.Pass, Fail: reported.Fail, Inconclusive: reported.Inconclusive}
		if total(judged) == 0 {
			s.Verdict = NotJudged
		}
	}
	return s
}

// worst is the worst verdict counted, as verdict.Worst gives it for the findings counted:
// FAIL when one failed, else INCONCLUSIVE when one was inconclusive or none was counted,
// else PASS.
func worst(t verdict.Tally) verdict.Verdict {
	switch {
	case t.Fail > 0:
		return verdict.Fail
	case t.Inconclusive > 0 || t.Pass == 0:
		return verdict.Inconclusive
	}
	return verdict.Pass
}

// total is the number of verdicts counted.
func total(t verdict.Tally) int { return t.Pass + t.Fail + t.Inconclusive }

// JSON encodes the reproduction, indented, with a final newline.
func (r *Reproduction) JSON() ([]byte, error) { return encodeJSON(r, "reproduction") }

// ReadReproduction decodes a reproduction and checks its schema.
func ReadReproduction(rd io.Reader, name string) (*Reproduction, error) {
	return decodeJSON(rd, name, "reproduction", []string{ReproductionSchema, reproductionV4}, func(r *Reproduction) string { return r.Schema })
}

// Figure draws a dataset's curves against the update index on log–log axes: the mean
// excess risk of fresh publications per method (solid, with points) and each method's
// bound (dashed, same colour), plus the reference lines. Update 0, the learner, has no
// place on a log axis; the tables hold it.
func (d ReproducedDataset) Figure(title string) Figure {
	f := Figure{Title: title + " — " + d.Name, XLabel: "update i", YLabel: "excess empirical risk", LogX: true, LogY: true}
	longest := 0
	for _, c := range d.Curves {
		longest = max(longest, c.Updates)
	}
	for g, c := range d.Curves {
		s := Series{Name: c.Method + " (" + c.Theorem + ")", Group: g, Points: true}
		for _, p := range c.Points {
			if p.Round > 0 {
				s.X = append(s.X, float64(p.Round))
				s.Y = append(s.Y, float64(p.ExcessMean))
			}
		}
		f.Series = append(f.Series, s)
		if finite(float64(c.Bound)) {
			name := "  its bound"
			if !c.BoundChecked {
				name = "  its rate, constants 1"
			}
			f.Series = append(f.Series, Series{Name: name, Group: g, Dashed: true,
				X: []float64{1, float64(c.Updates)}, Y: []float64{float64(c.Bound), float64(c.Bound)}})
		}
	}
	for k, ref := range d.References {
		f.Series = append(f.Series, Series{Name: ref.Name, Group: -1 - k, Dashed: true,
			X: []float64{1, float64(longest)}, Y: []float64{float64(ref.Value), float64(ref.Value)}})
	}
	return f
}

// Markdown renders the reproduction: settings; its tables, with the paper's values beside
// the computed ones (✓ where they agree, ✗ where not), their findings and the figures; then
// per dataset a summary table of the curves, the figures, the findings and every
// checkpoint.
func (r *Reproduction) Markdown(w io.Writer) error {
	var b strings.Builder
	writeHeader(&b, r.Title, r.Date, r.Tool, r.Schema, r.Command, r.Seed, r.Summary, r.Settings, r.Notes, r.Inputs)
	writeTables(&b, r.Tables, r.Figures)
	for _, d := range r.Datasets {
		fmt.Fprintf(&b, "## %s\n\n%s: %d records × %d features; D₀ holds %d, and the sequence adds %d and deletes %d.\n\n",
			d.Name, d.Description, d.Rows, d.Features, d.Initial, d.Adds, d.Deletes)
		for _, p := range d.Preprocessing {
			fmt.Fprintf(&b, "- %s\n", p)
		}
		if len(d.Preprocessing) > 0 {
			b.WriteString("\n")
		}
		b.WriteString("| method | verdict | updates | σ | excess risk (update 1) | (last) | secret (last) | bound | growth | gradients / update | / retrain |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, c := range d.Curves {
			first, last := c.Points[min(1, len(c.Points)-1)], c.Points[len(c.Points)-1]
			fmt.Fprintf(&b, "| %s (%s) | **%s** | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.Method, c.Theorem, c.Verdict, c.Updates,
				num(c.Sigma), num(first.ExcessMean), num(last.ExcessMean), num(last.SecretExcess), num(c.Bound), num(c.Growth),
				num(c.UpdateGradients), num(c.RetrainGradients))
		}
		b.WriteString("\nExcess risk is f_i(θ) − min_Θ f_i on the current dataset, for fresh publications of the model (mean of the draws); " +
			"\"secret\" is the noise-free model. Growth is the mean over the last 10% of updates ÷ the first 10%.\n\n")
		for _, ref := range d.References {
			fmt.Fprintf(&b, "- reference: %s = %s\n", ref.Name, num(ref.Value))
		}
		if len(d.References) > 0 {
			b.WriteString("\n")
		}
		for _, fig := range d.Figures {
			if strings.HasSuffix(fig, ".svg") {
				fmt.Fprintf(&b, "![%s](%s)\n\n", d.Name, fig)
			}
		}
		for _, c := range d.Curves {
			fmt.Fprintf(&b, "### %s (%s)\n\nLoss %s; iterations per update %s; σ = %s. Bound: %s = %s", c.Method, c.Theorem, c.Loss, c.Iterations, num(c.Sigma), c.BoundForm, num(c.Bound))
			if finite(float64(c.PaperBound)) {
				fmt.Fprintf(&b, " (paper's form: %s)", num(c.PaperBound))
			}
			b.WriteString(".\n\n")
			for _, f := range c.Findings {
				fmt.Fprintf(&b, "- **%s** %s: %s %s %s. %s\n", f.Label(), cell(f.Title), num(f.Measured), f.Comparison, num(f.Bound), cell(f.Detail))
			}
			if len(c.Findings) > 0 {
				b.WriteString("\n")
			}
			b.WriteString("| update | n | excess (published) | excess (mean of draws) | excess (secret) | ‖θ̃ − θ*‖ | θ* on sphere | gradients |\n|---|---|---|---|---|---|---|---|\n")
			for _, p := range c.Points {
				fmt.Fprintf(&b, "| %d | %d | %s | %s | %s | %s | %v | %d |\n", p.Round, p.N, num(p.Excess), num(p.ExcessMean), num(p.SecretExcess), num(p.Distance), p.OnBoundary, p.Gradients)
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeHeader renders what every experiment document opens with: title, provenance, the
// overall verdict (INCONCLUSIVE, said so, when nothing was judged), settings, notes and the
// input files.
func writeHeader(b *strings.Builder, title, date string, tool Tool, schema, command string, seed uint64, sum Summary, settings []table.Value, notes []string, inputs []Input) {
	fmt.Fprintf(b, "# %s\n\n", title)
	if date != "" {
		fmt.Fprintf(b, "%s\n\n", dateText(date))
	}
	fmt.Fprintf(b, "%s %s · schema %s · command %s · seed %d\n\n", text(tool.Name), text(tool.Version), code(schema), code(command), seed)
	if sum.Judged() {
		fmt.Fprintf(b, "**Overall verdict: %s** (%d pass, %d fail, %d inconclusive)", sum.Verdict, sum.Pass, sum.Fail, sum.Inconclusive)
	} else {
		fmt.Fprintf(b, "**Overall verdict: %s** (nothing judged: a run that judges no finding shows nothing)", sum.Verdict)
	}
	if sum.Reported != nil {
		fmt.Fprintf(b, "; besides, reported, not judged: %s", sum.Reported)
	}
	b.WriteString("\n\n")
	var set []string
	for _, v := range settings {
		set = append(set, fmt.Sprintf("%s = %s", v.Name, num(v.Value)))
	}
	if len(set) > 0 {
		fmt.Fprintf(b, "**Settings.** %s.\n\n", strings.Join(set, ", "))
	}
	for _, n := range notes {
		fmt.Fprintf(b, "> %s\n\n", n)
	}
	if len(inputs) > 0 {
		b.WriteString("| input | path | SHA-256 | bytes |\n|---|---|---|---|\n")
		for _, in := range inputs {
			fmt.Fprintf(b, "| %s | %s | %s | %d |\n", cell(in.Role), codeCell(in.Path), codeCell(in.SHA256), in.Bytes)
		}
		b.WriteString("\n")
	}
}
