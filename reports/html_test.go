package reports

import (
	"math"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

// The HTML page holds the verdict table, every subject with its claim, derivation and
// findings, and the power statement; every string from the report is escaped, so a data
// description or a path cannot inject markup; and the same report gives the same bytes.
func TestHTML(t *testing.T) {
	r := sample()
	r.Data.Description = `<script>alert("x")</script> & co`
	r.Inputs = []Input{{Role: "data", Path: `a"b<c>.csv`, SHA256: "00ff", Bytes: 3}}
	var a, b strings.Builder
	if err := r.HTML(&a); err != nil {
		t.Fatal(err)
	}
	if err := r.HTML(&b); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Fatal("two renderings of one report differ")
	}
	page := a.String()
	for _, want := range []string{
		`<table id="verdicts">`, `<span class="v fail">FAIL</span>`, "A violation of the claim was shown at the stated confidence.",
		"no (power 0.01 against 2×; ≈ 4000 trials per side needed)", "<td>σ</td><td>Δ/…</td><td>0.046</td>", "D_α ≤ α·0.0175",
		"ok | with a pipe", "&#43;∞", // html/template writes + as &#43;
		`&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; co`, `a&#34;b&lt;c&gt;.csv`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>") || strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Error("page has a script or a network reference")
	}
}

// Negative controls are rendered in every format, a control not caught said plainly, and
// they do not change the summary.
func TestControlsRendered(t *testing.T) {
	r := sample()
	before := r.Summary
	r.Controls = []Control{{Subject: "x", Name: "weak-noise", Bug: "a tenth of the noise", Verdict: "FAIL", Caught: true, CaughtBy: []string{"x/fail"},
		Checks: []ControlCheck{{Check: "x/fail", Verdict: "FAIL", Trials: 40}, {Check: "x/radius", Verdict: "PASS"}}},
		{Subject: "x", Name: "no-unlearning", Bug: "ignores requests", Verdict: "PASS", Closest: "x/radius measured 0.05 against its bound 0.4 (0.125 of it)",
			Checks: []ControlCheck{{Check: "x/radius", Verdict: "PASS"}, {Check: "x/game", Verdict: "INCONCLUSIVE", Trials: 200}}}}
	r.Summarize()
	if r.Summary != before {
		t.Fatalf("controls changed the summary: %+v → %+v", before, r.Summary)
	}
	var md, page strings.Builder
	if err := r.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := r.HTML(&page); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Negative controls", "| x | weak-noise | a tenth of the noise | FAIL | `x/fail` |", "| x | no-unlearning | ignores requests | PASS | **not caught**; closest: x/radius measured 0.05 against its bound 0.4 (0.125 of it) |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	// the detection matrix: columns in first-seen order, a check not run on a control "—"
	// (checks down, controls across: a method has more checks than controls)
	for _, want := range []string{"| check | weak-noise | no-unlearning |", "| `x/fail` | **FAIL (40)** | — |", "| `x/radius` | pass | pass |", "| `x/game` | — | inconclusive |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks the matrix row %q", want)
		}
	}
	for _, want := range []string{`<table id="controls-table">`, "<b>not caught</b>; closest: x/radius measured 0.05", "<code>x/fail</code>",
		`<table class="detection"><tr><th>check</th><th>weak-noise</th><th>no-unlearning</th></tr>`,
		"<tr><td><code>x/fail</code></td><td>FAIL (40)</td><td>—</td></tr>"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("html lacks %q", want)
		}
	}
}

// A game's scores are drawn as two inline SVG plots (histogram, log–log ROC), their
// labels escaped.
func TestHTMLPlots(t *testing.T) {
	r := sample()
	r.Subjects[0].Findings[2].Scores = verdict.SummarizeScores(`<b>projection</b>`, []float64{1, 2, 3, 4}, []float64{0, 1, 2, 3})
	var b strings.Builder
	if err := r.HTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, "<svg "); n != 2 {
		t.Errorf("%d plots, want 2", n)
	}
	for _, want := range []string{`aria-label="histogram: &lt;b&gt;projection&lt;/b&gt;"`, `ROC (log–log)`, "<polyline points="} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<b>projection</b>") {
		t.Error("a score name was inserted unescaped")
	}
}

// A finding's traces are drawn one plot each against the number of requests, captioned
// with their full names, escaped; Markdown lists their points.
func TestTracePlots(t *testing.T) {
	r := sample()
	r.Subjects[0].Findings[0].Traces = []Trace{{Name: "<i>distance</i>", BoundName: "radius", Requests: []int{1, 2, 3},
		Values: []table.Number{1e-6, 2e-6, 0}, Bound: []table.Number{1e-2, 1e-2, 2e-2}}}
	var b strings.Builder
	if err := r.HTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, "<svg "); n != 1 {
		t.Errorf("%d plots, want 1", n)
	}
	for _, want := range []string{`aria-label="&lt;i&gt;distance&lt;/i&gt;"`, "request by request: &lt;i&gt;distance&lt;/i&gt; (solid) against radius (dashed)", ">1e-6<", ">1e-1<"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<i>distance</i>") {
		t.Error("a trace name was inserted unescaped")
	}
	var md strings.Builder
	if err := r.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	// the name as text in Markdown too: its markup escaped (issue 29)
	if want := "per request, &lt;i&gt;distance&lt;/i&gt; against radius: 1: 1e-06 ≤ 0.01 · 2: 2e-06 ≤ 0.01 · 3: 0 ≤ 0.02"; !strings.Contains(md.String(), want) {
		t.Errorf("Markdown lacks %q", want)
	}
}

// Trace charts stay inside their frame: a log axis when the values span more than a
// decade (zeros on its floor), a linear one otherwise, and a single request drawn as a
// tick of two points rather than a point no one sees.
func TestTraceChartGeometry(t *testing.T) {
	for _, tr := range []Trace{
		{Name: "log", Requests: []int{1, 5, 64}, Values: []table.Number{1e-9, 0, 3e-3}, Bound: []table.Number{1e-2, 1e-2, 1e-2}},
		{Name: "linear", Requests: []int{1, 2}, Values: []table.Number{0.5, 0.7}, Bound: []table.Number{1, 1}},
		{Name: "one", Requests: []int{7}, Values: []table.Number{0.5}, Bound: []table.Number{1}},
		{Name: "past the bound", Requests: []int{1, 2}, Values: []table.Number{3, table.Number(math.NaN())}, Bound: []table.Number{1, 1}},
	} {
		c := traceChart(tr)
		if len(c.lines) != 2 {
			t.Errorf("%s: %d lines, want the bound and the values", tr.Name, len(c.lines))
		}
		for _, l := range c.lines {
			if len(l.pts) < 2 {
				t.Errorf("%s: a line of %d points", tr.Name, len(l.pts))
			}
			for _, p := range l.pts {
				if p[0] < padL-1e-9 || p[0] > plotW-padR+1e-9 || p[1] < padT-1e-9 || p[1] > plotH-padB+1e-9 {
					t.Errorf("%s: point %v outside the frame", tr.Name, p)
				}
			}
		}
	}
}
