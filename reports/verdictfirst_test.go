package reports

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

// manyInputs is sample() audited on 80 model files, dated, with a game that FAILed, a
// bound of −∞ and a measurement that does not apply (NaN): what a verify report on models
// alone looks like, with no data set.
func manyInputs() *Report {
	r := sample()
	r.Date = "2025-03-01"
	r.Data = Data{Description: "40 unlearned and 40 retrained models of 31 parameters, trained elsewhere"}
	for i := range 80 {
		r.Inputs = append(r.Inputs, Input{Role: "unlearned model", Path: fmt.Sprintf("models/model_%02d.npy", i),
			SHA256: fmt.Sprintf("%064x", 0xabc000+i), Bytes: 376})
	}
	fs := r.Subjects[0].Findings
	fs[2].Verdict = "FAIL" // the game showed a violation: its power is moot
	fs[2].Power.Summary = "would catch a 2× violation with probability 0.00"
	fs = append(fs, Finding{Check: "x/rank", Title: "rank of the unlearned model", Kind: "empirical", Verdict: "INCONCLUSIVE",
		Measured: table.Number(math.NaN()), Bound: table.Number(math.Inf(-1)), Comparison: "≥", Confidence: 0.95, Required: false})
	r.Subjects[0].Findings = fs
	r.Summarize()
	return r
}

// pdfPages renders the report as PDF and reads back each page's text with pdftotext
// (skipped when it is not installed, failed on CI).
func pdfPages(t *testing.T, r *Report) []string {
	t.Helper()
	var b bytes.Buffer
	if err := r.PDF(&b); err != nil {
		t.Fatal(err)
	}
	out := []byte(readPDFText(t, b.Bytes()))
	pages := strings.Split(strings.TrimSuffix(string(out), "\f"), "\f")
	for i, p := range pages { // words as one line: pdftotext breaks lines where the page does
		pages[i] = strings.Join(strings.Fields(p), " ")
	}
	return pages
}

// inOrder checks that each marker occurs in doc, each after the one before.
func inOrder(t *testing.T, format, doc string, markers ...string) {
	t.Helper()
	at := -1
	for i, m := range markers {
		j := strings.Index(doc, m)
		if j < 0 {
			t.Errorf("%s: lacks %q", format, m)
			return
		}
		if j <= at {
			t.Errorf("%s: %q comes before %q; want the verdict first, then findings, claims, and the inputs last", format, m, markers[i-1])
			return
		}
		at = j
	}
}

// Every rendering reads verdict first: the title, the date and the overall verdict, the
// verdict table, then the findings, then the claims, and the inputs (data, files with
// their SHA-256, command line, tool) in an appendix after the last finding. The HTML
// holds the appendix in a collapsed <details>; the PDF on its last pages, the first
// finding on page 1 however many files were read.
func TestVerdictFirst(t *testing.T) {
	r := manyInputs()
	r.CommandLine = []string{"audit", "verify", "--spec=claim.json"}
	first, last := r.Inputs[0].SHA256, r.Inputs[len(r.Inputs)-1].SHA256

	var md strings.Builder
	if err := r.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	inOrder(t, "Markdown", md.String(), "# Unlearning audit report — FAIL", "Audit date: 2025-03-01", "**Overall verdict: FAIL**",
		"## Verdicts", "| x | **FAIL** |", "ok \\| with a pipe", "rank of the unlearned model",
		"## Claims and derivations", "**Claim.**", "| σ | Δ/… | 0.046 |",
		"## Appendix: inputs", "40 unlearned and 40 retrained models", first, last, "`audit verify --spec=claim.json`", "seed 7")

	var page strings.Builder
	if err := r.HTML(&page); err != nil {
		t.Fatal(err)
	}
	inOrder(t, "HTML", page.String(), "<h1>Unlearning audit report", `<p id="audit-date">Audit date: 2025-03-01`, "<b>Overall verdict: FAIL</b>",
		`<table id="verdicts">`, "<td>ok | with a pipe</td>", "<td>rank of the unlearned model</td>",
		`<h2 id="claims">`, "<b>Claim.</b>", "<td>σ</td>",
		`<details id="appendix">`, "40 unlearned and 40 retrained models", `<table id="provenance">`, first, last, `<code id="command-line">`, "seed 7", "</details>")
	if strings.Contains(page.String(), `<details id="appendix" open`) {
		t.Error("HTML: the appendix is open; want it collapsed")
	}

	pages := pdfPages(t, r)
	all := strings.Join(pages, "\f")
	inOrder(t, "PDF", all, "Unlearning audit report — FAIL", "Audit date: 2025-03-01", "Overall verdict: FAIL", "Verdicts",
		"[PASS] required, certificate — ok | with a pipe", "[INCONCLUSIVE] supporting, empirical — rank of the unlearned model",
		"Claims and derivations", "x — claim:", "σ = Δ/… = 0.046",
		"Appendix: inputs", "40 unlearned and 40 retrained models", first, last, "audit verify --spec=claim.json", "seed 7")
	if !strings.Contains(pages[0], "ok | with a pipe") {
		t.Errorf("PDF: the first finding is not on page 1 of %d:\n%s", len(pages), pages[0])
	}
	lastFinding := -1
	for i, p := range pages {
		if strings.Contains(p, "rank of the unlearned model") {
			lastFinding = i
		}
		if strings.Contains(p, first) && i <= lastFinding {
			t.Errorf("PDF: the inputs start on page %d, the findings end on page %d; want the inputs on the last pages", i+1, lastFinding+1)
		}
	}
}

// Beside a FAIL the power figure gives way to "violation shown", in the verdict table and
// the details of every rendering; an INCONCLUSIVE game keeps its power.
func TestViolationShownReplacesPower(t *testing.T) {
	r := manyInputs()
	var md, page strings.Builder
	if err := r.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := r.HTML(&page); err != nil {
		t.Fatal(err)
	}
	pdf := strings.Join(pdfPages(t, r), " ")
	for format, doc := range map[string]string{"Markdown": md.String(), "HTML": page.String(), "PDF": pdf} {
		if strings.Contains(doc, "power 0.0") || strings.Contains(doc, "probability 0.00") {
			t.Errorf("%s: a power figure stands beside the FAIL", format)
		}
		if n := strings.Count(doc, ViolationShown); n < 2 {
			t.Errorf("%s: %q %d times, want in the verdict table and the game's details", format, ViolationShown, n)
		}
	}
	if got := GamePower(&Finding{Verdict: "INCONCLUSIVE", Power: &Power{Against: 2, Power: 0.01}}); got != "no (power 0.01 against 2×)" {
		t.Errorf("GamePower(INCONCLUSIVE) = %q, want the power", got)
	}
}

// A report without a data set (verify on models alone) says so, and no rendering prints
// "-Inf", "NaN", "0 rows" or "0 features" — a bound of −∞ is "no bound", a value that
// does not apply "—".
func TestNoDataNoInfinities(t *testing.T) {
	r := manyInputs()
	var md, page strings.Builder
	if err := r.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := r.HTML(&page); err != nil {
		t.Fatal(err)
	}
	pdf := strings.Join(pdfPages(t, r), " ")
	bad := regexp.MustCompile(`-Inf|\bNaN\b|\b0 rows|\b0 features|−∞`)
	for format, doc := range map[string]string{"Markdown": md.String(), "HTML": page.String(), "PDF": pdf} {
		if m := bad.FindString(doc); m != "" {
			t.Errorf("%s prints %q", format, m)
		}
		for _, want := range []string{noDataText, noBound} {
			if !strings.Contains(doc, want) {
				t.Errorf("%s lacks %q", format, want)
			}
		}
	}
	if !strings.Contains(md.String(), "| **INCONCLUSIVE** | supporting | empirical | rank of the unlearned model | — | — | no bound | 0.95 | — |") {
		t.Errorf("Markdown: the rank row does not show — and no bound:\n%s", md.String())
	}
}

// A long chart title is wrapped onto lines, every word kept, in SVG and on the PDF page;
// the chart grows to hold them and nothing is cut with an ellipsis.
func TestChartTitlesWrapNotCut(t *testing.T) {
	name := "projection on the fitted mean-difference direction of the published models, fitted on the selection half"
	s := verdict.SummarizeScores(name, []float64{1, 2, 3, 4}, []float64{0, 1, 2, 3})
	c := histogramChart(s)
	lines := c.titleLines()
	if len(lines) < 2 || strings.Join(lines, " ") != c.title {
		t.Fatalf("title lines %q; want the full title %q over several lines", lines, c.title)
	}
	svg := string(c.svg())
	for _, l := range lines {
		if len([]rune(l)) > titleChars {
			t.Errorf("title line %q longer than %d", l, titleChars)
		}
		if !strings.Contains(svg, ">"+l+"</text>") {
			t.Errorf("SVG lacks the title line %q", l)
		}
	}
	if strings.Contains(svg, "…") {
		t.Error("SVG cuts something with an ellipsis")
	}
	if want := fmt.Sprintf(`height="%g"`, plotH+titleLead*float64(len(lines)-1)); !strings.Contains(svg, want) {
		t.Errorf("SVG lacks %s: the chart does not grow with its title", want)
	}
	r := sample()
	r.Subjects[0].Findings[2].Scores = s
	pdf := strings.Join(pdfPages(t, r), " ")
	for _, title := range []string{"histogram: " + name, "ROC (log–log): " + name} {
		if !strings.Contains(pdf, title) {
			t.Errorf("the PDF lacks the full title %q", title)
		}
	}
	// a word longer than a line is split, nothing dropped
	got := Wrap("a "+strings.Repeat("x", 70)+" b", 58)
	if strings.ReplaceAll(strings.Join(got, ""), " ", "") != "a"+strings.Repeat("x", 70)+"b" || len(got) != 3 || len(got[1]) != 58 {
		t.Errorf("Wrap splits an over-long word as %q", got)
	}
}

// Every chart has both axis labels; a histogram labels ticks along its axis, not only
// its ends; a ROC's axes start at 1/N of the side each rate counts, not at 10⁻³.
func TestChartAxes(t *testing.T) {
	unlearned, retrained := make([]float64, 30), make([]float64, 20)
	for i := range unlearned {
		unlearned[i] = 0.3 + float64(i)*0.05
	}
	for i := range retrained {
		retrained[i] = float64(i) * 0.05
	}
	s := verdict.SummarizeScores("projection", unlearned, retrained)
	r := withMembership(t, 40)
	m := r.Subjects[0].Findings[len(r.Subjects[0].Findings)-1].Membership
	charts := map[string]*chart{
		"histogram": histogramChart(s), "roc": rocChart(s), "membership roc": membershipROCChart(m), "exposure": exposureChart(m),
		"trace": traceChart(Trace{Name: "distance", BoundName: "radius", Requests: []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
			Values: []table.Number{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, Bound: []table.Number{11, 11, 11, 11, 11, 11, 11, 11, 11, 11}}),
	}
	for name, c := range charts {
		var x, y bool
		for _, tx := range c.texts {
			x = x || tx.y == axisY && tx.anchor == "middle" && tx.text != ""
			y = y || tx.vertical && tx.text != ""
		}
		if !x || !y {
			t.Errorf("%s: x label %v, y label %v; want both", name, x, y)
		}
	}
	var xs []string
	for _, tx := range charts["histogram"].texts {
		if tx.y == tickY {
			xs = append(xs, tx.text)
		}
	}
	if len(xs) < 4 {
		t.Errorf("histogram x ticks %q; want labels along the axis", xs)
	}
	roc := charts["roc"]
	if got := tickTexts(roc, "middle"); got[0] != "0.05" || strings.Contains(strings.Join(got, " "), "0.001") {
		t.Errorf("ROC x ticks %q; want them from 1/20 = 0.05 (20 retrained)", got)
	}
	if got := tickTexts(roc, "end"); got[0] != rateLabel(1.0/30) {
		t.Errorf("ROC y ticks %q; want them from 1/30 (30 unlearned)", got)
	}
}

// report.json carries the date when there is one (omitted otherwise, as before dates were
// kept), and a date that is not a day as YYYY-MM-DD is refused, naming the field.
func TestReadJSONDate(t *testing.T) {
	r := sample()
	b, err := r.JSON()
	if err != nil || bytes.Contains(b, []byte(`"date"`)) {
		t.Fatalf("an undated report writes a date field (%v):\n%s", err, b)
	}
	r.Date = "2025-03-01"
	b, _ = r.JSON()
	back, err := ReadJSON(bytes.NewReader(b), "r.json")
	if err != nil || back.Date != "2025-03-01" {
		t.Fatalf("date %q, %v; want 2025-03-01", back.Date, err)
	}
	for _, bad := range []string{"2025-02-30", "2025-3-1", "2025-03-01T10:00:00Z", "soon"} {
		b := bytes.Replace(b, []byte(`"date": "2025-03-01"`), []byte(`"date": "`+bad+`"`), 1)
		if _, err := ReadJSON(bytes.NewReader(b), "r.json"); err == nil || !strings.Contains(err.Error(), "r.json: field date") {
			t.Errorf("date %q: %v; want refused, naming r.json and the field", bad, err)
		}
	}
}

// A date set before Render is the only difference it makes: the JSON is the undated one
// with a "date" line, and the Markdown gains the date under its title.
func TestRenderDated(t *testing.T) {
	res, err := testReproduction().Render("out")
	if err != nil {
		t.Fatal(err)
	}
	undated := string(res.Files["x.json"])
	r := testReproduction()
	r.Date = "2025-03-01"
	dated, err := r.Render("out")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Replace(string(dated.Files["x.json"]), "  \"date\": \"2025-03-01\",\n", "", 1)
	if got != undated || string(dated.JSON) != string(dated.Files["x.json"]) {
		t.Errorf("the date changed more than the date line:\n%s\nwant:\n%s", dated.Files["x.json"], undated)
	}
	if md := string(dated.Files["x.md"]); !strings.Contains(md, "# T\n\nAudit date: 2025-03-01\n\n") {
		t.Errorf("the Markdown lacks the date under its title:\n%.200s", md)
	}
}

// Render draws every plot asked for in each of its formats, lists the files in the order
// asked — the reproduction's in Figures, a dataset's in its own — writes them beside the
// JSON and the Markdown, draws nothing twice when rendered again, and refuses a plot of a
// dataset that is not there.
func TestRenderPlots(t *testing.T) {
	fig := Figure{Title: "f", XLabel: "x", YLabel: "y", Series: []Series{{Name: "s", X: []float64{1, 2}, Y: []float64{3, 4}}}}
	r := testReproduction()
	r.Plot("x-b", fig, []string{"svg"})
	r.PlotDataset(0, "x-d", fig, []string{"svg", "png"})
	r.Plot("x-a", fig, []string{"svg"})
	res, err := r.Render("out")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"x-b.svg", "x-a.svg"}; !slices.Equal(r.Figures, want) {
		t.Errorf("Figures %q, want %q (the order asked)", r.Figures, want)
	}
	if want := []string{"x-d.svg", "x-d.png"}; !slices.Equal(r.Datasets[0].Figures, want) {
		t.Errorf("the dataset's Figures %q, want %q", r.Datasets[0].Figures, want)
	}
	for _, name := range []string{"x.json", "x.md", "x-b.svg", "x-a.svg", "x-d.svg", "x-d.png"} {
		if len(res.Files[name]) == 0 {
			t.Errorf("%s not rendered (files %d)", name, len(res.Files))
		}
	}
	if len(res.Files) != 6 {
		t.Errorf("%d files, want 6", len(res.Files))
	}
	if !strings.Contains(string(res.Files["x.json"]), `"x-b.svg"`) {
		t.Errorf("the JSON does not list the figures:\n%s", res.Files["x.json"])
	}
	if _, err := r.Render("out"); err != nil || len(r.Figures) != 2 {
		t.Errorf("rendered again: %v, Figures %q; want the two files once", err, r.Figures)
	}
	bad := testReproduction()
	bad.PlotDataset(1, "x-e", fig, []string{"svg"})
	if _, err := bad.Render("out"); err == nil || !strings.Contains(err.Error(), "figure x-e: dataset 1 of 1") {
		t.Errorf("a plot of a missing dataset: %v; want refused, naming it", err)
	}
}

// GamePowerParts splits GamePower and nothing else: its answer, with the shortfall in
// brackets when there is one, is GamePower's text, on every kind of finding.
func TestGamePowerPartsSplitGamePower(t *testing.T) {
	cases := []*Finding{nil,
		{Verdict: "FAIL", Power: &Power{Against: 2, Power: 0.01}},
		{Verdict: "PASS", Power: &Power{Against: 2, Power: 0.9, SmallestFactor: 1.5}},
		{Verdict: "INCONCLUSIVE", Power: &Power{Against: 2, Power: 0.01}},
		{Verdict: "INCONCLUSIVE", Power: &Power{Against: 2, Power: 0, TrialsNeeded: 651823}},
		{Verdict: "INCONCLUSIVE", Power: &Power{Against: 3, Power: 0.5, TrialsNeeded: 90, Counts: "models per side"}},
		{Verdict: "INCONCLUSIVE"}}
	shortfalls := 0
	for _, f := range cases {
		answer, shortfall := GamePowerParts(f)
		got := answer
		if shortfall != "" {
			got += " (" + shortfall + ")"
			shortfalls++
			if answer != "no" {
				t.Errorf("%+v: answer %q beside a shortfall, want no", f, answer)
			}
		}
		if want := GamePower(f); got != want {
			t.Errorf("%+v: parts %q + %q; GamePower %q", f, answer, shortfall, want)
		}
	}
	if shortfalls != 3 {
		t.Errorf("%d shortfalls split off; want the 3 findings without power", shortfalls)
	}
}
