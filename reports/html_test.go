package reports

import (
	"github.com/unlearnaudit/unlearnaudit/audit"
	"strings"
	"testing"
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
	r.Controls = []Control{{Subject: "x", Name: "weak-noise", Bug: "a tenth of the noise", Verdict: "FAIL", Caught: true, CaughtBy: []string{"x/fail"}},
		{Subject: "x", Name: "no-unlearning", Bug: "ignores requests", Verdict: "PASS"}}
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
	for _, want := range []string{"## Negative controls", "| x | weak-noise | a tenth of the noise | FAIL | `x/fail` |", "| x | no-unlearning | ignores requests | PASS | **not caught** |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	for _, want := range []string{`<table id="controls-table">`, "<b>not caught</b>", "<code>x/fail</code>"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("html lacks %q", want)
		}
	}
}

// A game's scores are drawn as two inline SVG plots (histogram, log–log ROC), their
// labels escaped.
func TestHTMLPlots(t *testing.T) {
	r := sample()
	r.Subjects[0].Findings[2].Scores = audit.SummarizeScores(`<b>projection</b>`, []float64{1, 2, 3, 4}, []float64{0, 1, 2, 3})
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
