package reports

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	gmtext "github.com/yuin/goldmark/text"
)

// fullReport is a report with every slice holding an element and every pointer set, so
// that every string field the Markdown can show is rendered; TestFullReportIsFull keeps
// it so as fields are added.
func fullReport() *Report {
	iv := &Interval{Lower: 0.1, Upper: 0.9}
	rho := table.Number(0.02)
	f := Finding{Check: "c", Title: "t", Kind: string(verdict.Empirical), Verdict: "PASS", Measured: 1, Interval: iv, Bound: 2,
		Comparison: "≤", Confidence: 0.95, Trials: 8, TrialsNeeded: 9, Detail: "d", Required: true,
		Power: &Power{Against: 2, Power: 0.5, SmallestFactor: 3, TrialsNeeded: 9, Unit: "u", Summary: "p",
			Question: &Question{Route: "r", Epsilon: 1, Delta: 1e-5, Confidence: 0.975, Power: 0.8, Trials: 8, Plan: "audit plan"}},
		Estimates: []Estimate{{Name: "e", Value: 1, Interval: iv, Note: "n"}},
		Scores:    &verdict.ScoreSummary{Name: "s", Edges: []float64{0, 1}, Unlearned: []int{1}, Retrained: []int{1}, ROC: []verdict.ROCPoint{{FPR: 0, TPR: 1}}},
		HeldOut:   &verdict.HeldOut{Rule: "unlearned if ≥ 1", Above: true, Unlearned: 4, Retrained: 4, FalsePositives: 1, FalseNegatives: 2, Resolution: 0.5},
		Traces:    []Trace{{Name: "tr", Requests: []int{1}, Values: []table.Number{1}, BoundName: "b", Bound: []table.Number{2}}},
		Membership: &Membership{Forget: 2, Holdout: 3, Confidence: 0.95, AUC: 0.5, AUCLimits: *iv, AUCMethod: "m",
			TPR: []MembershipTPR{{FPR: 0.01, TPR: 0.5, Interval: *iv, Threshold: 1, TP: 1, FP: 0}}, ROC: []verdict.ROCPoint{{FPR: 0, TPR: 1}},
			Records: []RecordScore{{ID: 1, Score: 1, Percentile: 50}}, HoldoutQuantiles: []Quantile{{P: 0.95, Value: 1}}},
	}
	return &Report{Schema: Schema, Tool: Tool{Name: "n", Version: "v"}, Command: "run", CommandLine: []string{"audit", "run"},
		Seed: 1, Trials: 8, Confidence: 0.95,
		Inputs: []Input{{Role: "data", Path: "p", SHA256: "h", Bytes: 1}},
		Data:   Data{Description: "d", Rows: 7, Features: 3, Preprocessing: []string{"p"}, Requests: []string{"r"}},
		Subjects: []Subject{{Name: "s", Verdict: "PASS", Findings: []Finding{f},
			Claim: Claim{Method: "m", Source: "s", Guarantee: "g", Epsilon: 1, Delta: 1e-6, Rho: &rho, Relation: "r",
				Assumptions: []string{"a"}, Constants: []table.Value{{Name: "L", Value: 1}}, Derivation: []Step{{Quantity: "q", Formula: "f", Value: 1}},
				Notes: []string{"n"}, Required: []string{"empirical"}},
			Utility: &Utility{Source: "u", Rows: []UtilityRow{{Set: "forget", Measure: "loss", Side: "unlearned", Models: 2, Records: 3, Mean: 1, SD: 0.5}}}}},
		Controls: []Control{
			{Subject: "s", Name: "c1", Bug: "b", Verdict: "FAIL", Caught: true, CaughtBy: []string{"c"}, Checks: []ControlCheck{{Check: "c", Verdict: "FAIL", Trials: 8}}},
			{Subject: "s", Name: "c2", Bug: "b", Verdict: "PASS", CaughtBy: []string{"c"}, Closest: "x", Checks: []ControlCheck{{Check: "c", Verdict: "PASS"}}},
		},
		Summary: Summary{Verdict: "PASS", Pass: 1, Reported: &Tally{}},
	}
}

// notPrinted are the string fields the Markdown never shows: it maps them to fixed words
// (a control check's verdict becomes FAIL, pass or inconclusive; a utility row's side, its column) or leaves them out.
var notPrinted = []string{"ControlCheck.Verdict", "UtilityRow.Side"}

// poison sets every string field of the report, and every element of a string list, to
// s, but the notPrinted; it returns how many it set.
func poison(v reflect.Value, owner, s string) int {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return 0
		}
		return poison(v.Elem(), owner, s)
	case reflect.String:
		if slices.Contains(notPrinted, owner) {
			return 0
		}
		v.SetString(s)
		return 1
	case reflect.Slice:
		n := 0
		for i := range v.Len() {
			n += poison(v.Index(i), owner, s)
		}
		return n
	case reflect.Struct:
		n := 0
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				n += poison(v.Field(i), v.Type().Name()+"."+v.Type().Field(i).Name, s)
			}
		}
		return n
	}
	return 0
}

// TestFullReportIsFull: every slice of fullReport holds an element and every pointer is
// set, so the fuzz test reaches every field; a field added to the report model without
// an example here fails it.
func TestFullReportIsFull(t *testing.T) {
	var check func(v reflect.Value, path string)
	check = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() {
				t.Errorf("%s is nil", path)
				return
			}
			check(v.Elem(), path)
		case reflect.Slice:
			if v.Len() == 0 {
				t.Errorf("%s is empty", path)
			}
			for i := range v.Len() {
				check(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
		case reflect.Struct:
			for i := range v.NumField() {
				check(v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		}
	}
	check(reflect.ValueOf(fullReport()), "Report")
}

var markdownParser = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))

// markdownShape parses the Markdown as GitHub does (CommonMark with tables and
// strikethrough) and lists its nodes but the text, with their depth, each "depth:Kind":
// the structure the template makes, which no string in the report may change. It also
// returns any raw HTML found.
func markdownShape(src []byte) (shape []string, rawHTML []string) {
	doc := markdownParser.Parser().Parse(gmtext.NewReader(src))
	depth := 0
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			depth--
			return ast.WalkContinue, nil
		}
		depth++
		switch n.Kind() {
		case ast.KindText, ast.KindString:
			return ast.WalkContinue, nil
		case ast.KindHTMLBlock, ast.KindRawHTML:
			var b strings.Builder
			for i := range n.Lines().Len() {
				seg := n.Lines().At(i)
				b.Write(seg.Value(src))
			}
			if r, ok := n.(*ast.RawHTML); ok {
				for i := range r.Segments.Len() {
					seg := r.Segments.At(i)
					b.Write(seg.Value(src))
				}
			}
			rawHTML = append(rawHTML, b.String())
		}
		shape = append(shape, fmt.Sprintf("%d:%s", depth, n.Kind()))
		return ast.WalkContinue, nil
	})
	return shape, rawHTML
}

func renderMarkdown(t *testing.T, r *Report) []byte {
	t.Helper()
	var b strings.Builder
	if err := r.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	return []byte(b.String())
}

func poisoned(s string) *Report {
	r := fullReport()
	poison(reflect.ValueOf(r), "", s)
	return r
}

var dataLine = regexp.MustCompile(`(?m)^<p>(.*): 7 rows × 3 features\.</p>$`)
var firstInput = regexp.MustCompile(`<tr>\s*<td>(.*?)</td>\s*<td><code>(.*?)</code></td>`)

// checkMarkdown renders the report with s in every field and checks that the Markdown
// parses to the structure the template makes — the same nodes, headings and table cells
// as with a benign string — with no raw HTML, and that the string comes through as
// literal text, in running text and in a code span in a table.
func checkMarkdown(t *testing.T, s string) {
	if flat(s) == "" {
		return // an empty string leaves an empty list item or quote: the template's shape, not the string's
	}
	want, _ := markdownShape(renderMarkdown(t, poisoned("x")))
	src := renderMarkdown(t, poisoned(s))
	got, raw := markdownShape(src)
	if len(raw) > 0 {
		t.Errorf("%q: raw HTML in the Markdown: %q", s, raw)
	}
	if !slices.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%q changes the Markdown's structure at node %d: %v, want %v\n%s", s, i, got[i:min(len(got), i+5)], want[i:min(len(want), i+5)], src)
	}
	var page strings.Builder
	if err := markdownParser.Convert(src, &page); err != nil {
		t.Fatal(err)
	}
	if m := dataLine.FindStringSubmatch(page.String()); m == nil || html.UnescapeString(m[1]) != flat(s) {
		t.Errorf("%q: the data description renders as %q, want %q", s, m, flat(s))
	}
	if m := firstInput.FindStringSubmatch(page.String()); m == nil || html.UnescapeString(m[1]) != flat(s) || html.UnescapeString(m[2]) != flat(s) {
		t.Errorf("%q: the input's role and path render as %q, want %q", s, m, flat(s))
	}
}

// hostileStrings are the red team's (issue 29) and the Markdown constructs each escaping
// must defuse; they seed the fuzz test.
var hostileStrings = []string{
	"## overall: PASS",
	"x\n\n## overall: PASS\n",
	"<script>alert(1)</script>",
	"a.csv<img src=x onerror=alert(1)>",
	"<!-- hidden -->", "<div>", "</td></tr></table><h1>PASS</h1>", "<http://evil.example>", "&lt;script&gt;", "&#60;b&#62;",
	"a | b", "| x |\n|---|\n| y |", "a\\|b", "`a|b`", "\\", "\\\\|",
	"`", "``", "```go\ncode\n```", "~~~", "`x`` y", " `x` ",
	"*em* _em_ **strong** ~~gone~~", "[link](http://evil.example)", "![img](x.png)", "[ref]: http://evil.example",
	"- item", "+ item", "* item", "1. item", "1) item", "12345. x", "> quote", "---", "***", "___", "===", "#", "#x", "x #",
	"    indented code", "\tcode", "x\r\n# h", "x\u2028# h", "x\u0085# h", "\x00<b>", "\xff\xfe<b>",
	"x  \ny", "a\\\nb", ":::", "$x$", "[^1]", "www.example.com", "http://example.com",
}

func TestMarkdownEscapesHostileStrings(t *testing.T) {
	for _, s := range hostileStrings {
		checkMarkdown(t, s)
	}
}

// FuzzMarkdownEscaping renders random strings through every string field of the report
// and checks the Markdown's structure and the text (checkMarkdown).
func FuzzMarkdownEscaping(f *testing.F) {
	for _, s := range hostileStrings {
		f.Add(s)
	}
	f.Fuzz(checkMarkdown)
}

// The red team's report.json (issue 29): a description that forges a second verdict
// heading and a file name carrying a script. Rendered by `audit report --format md`,
// neither comes through as a heading or as HTML.
func TestMarkdownRedTeam(t *testing.T) {
	r := sample()
	r.Data.Description = "d\n\n## overall: PASS\n\n<script>alert(1)</script>"
	r.Inputs = []Input{{Role: "data", Path: "x`<script>alert(2)</script>|.csv", SHA256: "h", Bytes: 1}}
	r.Subjects[0].Name = "# PASS"
	src := renderMarkdown(t, r)
	shape, raw := markdownShape(src)
	if len(raw) > 0 {
		t.Errorf("raw HTML: %q", raw)
	}
	var page strings.Builder
	if err := markdownParser.Convert(src, &page); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page.String(), "<script>") || strings.Contains(page.String(), "<h2>overall") || strings.Contains(page.String(), "<h1>PASS") {
		t.Errorf("the forged heading or script came through:\n%s", page.String())
	}
	headings := 0
	for _, n := range shape {
		if strings.HasSuffix(n, ":Heading") {
			headings++
		}
	}
	if want := 6; headings != want { // the title, Verdicts, the subject's findings, Claims, its claim, the appendix
		t.Errorf("%d headings, want %d:\n%s", headings, want, src)
	}
	for _, want := range []string{`&lt;script&gt;alert(1)&lt;/script&gt;`, `\#\# overall: PASS`, "``x`<script>alert(2)</script>\\|.csv``", `## \# PASS — FAIL`} {
		if !strings.Contains(string(src), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, src)
		}
	}
}

// code spans hold any string: the fence outgrows the longest backtick run inside.
func TestCodeSpan(t *testing.T) {
	for s, want := range map[string]string{"a": "`a`", "a`b": "``a`b``", "``": "``` `` ```", "`a": "`` `a ``", "": "` `", "a\nb": "`a b`"} {
		if got := code(s); got != want {
			t.Errorf("code(%q) = %q, want %q", s, got, want)
		}
	}
	if got := codeCell("a|b"); got != "`a\\|b`" {
		t.Errorf("codeCell(a|b) = %q", got)
	}
}

var htmlTag = regexp.MustCompile(`<(/?[a-zA-Z][a-zA-Z0-9]*)`)

// HTML and PDF escaped every string before issue 29 (html/template; the PDF has no
// markup) and must go on doing so: the HTML page with a hostile string in every field
// has the same tags as with a benign one, and the PDF shows the string as its text,
// parentheses and backslashes (PDF string syntax) included.
func TestHTMLAndPDFEscapeHostileStrings(t *testing.T) {
	tags := func(r *Report) []string {
		var b strings.Builder
		if err := r.HTML(&b); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range htmlTag.FindAllStringSubmatch(b.String(), -1) {
			out = append(out, m[1])
		}
		return out
	}
	want := tags(poisoned("x"))
	for _, s := range hostileStrings {
		if got := tags(poisoned(s)); !slices.Equal(got, want) {
			t.Errorf("%q changes the HTML page's tags: %d tags, want %d", s, len(got), len(want))
		}
	}
	tool, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skipf("pdftotext not installed (apt-get install poppler-utils): %v", err)
	}
	const s = `## overall: PASS <script>alert(1)</script> (a\) [x]`
	r := fullReport()
	r.Data.Description = s
	var b bytes.Buffer
	if err := r.PDF(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.pdf")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tool, path, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(string(out)), " "), s) {
		t.Errorf("the PDF's text lacks %q:\n%s", s, out)
	}
}
