package reports

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"

	"github.com/google/go-cmp/cmp"
)

// withMembership is sample() with a membership measurement on one model: 40 deleted
// records, scored higher than most of 200 held-out ones, under a check name that carries
// markup (escaping is tested on it).
func withMembership(t *testing.T, forgetN int) *Report {
	t.Helper()
	forget, holdout := make([]float64, forgetN), make([]float64, 200)
	ids := make([]int64, forgetN)
	for i := range forget {
		forget[i] = 0.5 + math.Mod(float64(i)*0.618, 1.7) // deterministic, spread over [0.5, 2.2)
		ids[i] = int64(100 + i)
	}
	for j := range holdout {
		holdout[j] = math.Mod(float64(j)*0.381, 1.9)
	}
	f, err := checks.HoldoutMembership(forget, holdout, ids, 0.95, 1)
	if err != nil {
		t.Fatal(err)
	}
	f.Check = "x/<b>holdout</b>"
	r := sample()
	r.Subjects[0].Findings = append(r.Subjects[0].Findings, NewFinding(f))
	r.Summarize()
	return r
}

// The HTML page draws a membership measurement as two plots — the ROC on log–log axes
// from 1/holdout with a y label, the per-record plot with a dot per deleted record and the
// holdout's 95th and 99th percentiles — and a table of the AUC and the TPRs with their
// intervals; every string is escaped and two renderings are the same bytes.
func TestMembershipHTML(t *testing.T) {
	r := withMembership(t, 40)
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
	if n := strings.Count(page, "<svg "); n != 2 {
		t.Errorf("%d plots, want 2", n)
	}
	for _, want := range []string{
		`aria-label="ROC (log–log): deleted against held-out records"`, "false-positive rate (held-out flagged), from 1/200",
		">0.005<", // the axis starts at 1/200
		`transform="rotate(-90`, "TPR: deleted flagged, from 1/", "● TPR at FPR 0.1 %, 1 %",
		`aria-label="per-record exposure: deleted records against the holdout"`, "holdout 95th percentile", "holdout 99th percentile",
		"score (higher = more member-like)", "deleted records, ranked by percentile among held-out scores",
		`<table class="membership">`, "<td>TPR at FPR 0.1 % (", "(Clopper–Pearson)", "AUC (½ is chance; DeLong)",
		"x/&lt;b&gt;holdout&lt;/b&gt;: the model&#39;s scores on 40 deleted records against 200 held-out records",
		"it becomes an ε bound only through a one-run audit",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(page, "<circle "); n != 40+2 {
		t.Errorf("%d dots, want one per deleted record and the two TPRs", n)
	}
	if strings.Contains(page, "<b>holdout</b>") {
		t.Error("a check name was inserted unescaped")
	}
}

// Markdown gives the AUC and the two TPRs with their intervals in a short table.
func TestMembershipMarkdown(t *testing.T) {
	r := withMembership(t, 40)
	var md strings.Builder
	if err := r.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	f := r.Subjects[0].Findings[len(r.Subjects[0].Findings)-1].Membership
	want := []string{
		"**Membership on one model** (`x/<b>holdout</b>`): 40 deleted records against 200 held-out records; a measurement, not an ε bound.",
		"| measure | value | 0.95 interval |",
		"| AUC (½ is chance; DeLong) | " + num(f.AUC) + " | [" + num(f.AUCLimits.Lower) + ", " + num(f.AUCLimits.Upper) + "] |",
		"| TPR at FPR 0.1 % (", "| TPR at FPR 1 % (" + strconv.Itoa(f.TPR[1].TP) + " of 40 deleted and " + strconv.Itoa(f.TPR[1].FP) + " of 200 held-out records flagged) | " + num(f.TPR[1].TPR) + " | [",
	}
	for _, w := range want {
		if !strings.Contains(md.String(), w) {
			t.Errorf("Markdown lacks %q:\n%s", w, md.String())
		}
	}
}

// The ROC's false-positive axis starts at 1/holdout and its true-positive axis at
// 1/deleted, every point inside the frame (rates of 0 on the
// edges); the per-record plot has a dot per record up to 1000, then an even selection
// keeping the first and the last, inside the frame.
func TestMembershipChartGeometry(t *testing.T) {
	inside := func(name string, x, y float64) {
		if x < padL-1e-9 || x > plotW-padR+1e-9 || y < padT-1e-9 || y > plotH-padB+1e-9 {
			t.Errorf("%s: point (%v, %v) outside the frame", name, x, y)
		}
	}
	for _, n := range []int{40, 3000} {
		r := withMembership(t, n)
		m := r.Subjects[0].Findings[len(r.Subjects[0].Findings)-1].Membership
		roc := membershipROCChart(m)
		// the diagonal starts where both axes have begun: at the larger of 1/holdout (x)
		// and 1/deleted (y), on the bottom edge when that is y's floor, on the left when x's
		start := [2]float64{padL, plotH - padB - frameH*(math.Log10(1.0/200)-math.Log10(1.0/float64(n)))/-math.Log10(1.0/float64(n))}
		if n < 200 {
			start = [2]float64{padL + frameW*(math.Log10(1.0/float64(n))-math.Log10(1.0/200))/-math.Log10(1.0/200), plotH - padB}
		}
		if d := roc.lines[0].pts[0]; math.Abs(d[0]-start[0]) > 1e-9 || math.Abs(d[1]-start[1]) > 1e-9 {
			t.Errorf("%d records: the diagonal starts at %v, want %v", n, d, start)
		}
		// x ticks from 1/200, y ticks from 1/n: each axis from the smallest rate its side shows
		if got := tickTexts(roc, "middle"); got[0] != "0.005" {
			t.Errorf("x ticks %q, want the first at 0.005 = 1/200", got)
		}
		if got, want := tickTexts(roc, "end")[0], rateLabel(1/float64(n)); got != want {
			t.Errorf("%d records: first y tick %q, want %q = 1/%d", n, got, want, n)
		}
		for _, l := range roc.lines {
			for _, p := range l.pts {
				inside("ROC", p[0], p[1])
			}
		}
		ex := exposureChart(m)
		if want := min(n, 1000); len(ex.dots) != want {
			t.Errorf("%d records: %d dots, want %d", n, len(ex.dots), want)
		}
		if ex.dots[0].x != padL+4 || ex.dots[len(ex.dots)-1].x != plotW-padR-4 {
			t.Errorf("%d records: dots from x %v to %v; want the first and the last record drawn", n, ex.dots[0].x, ex.dots[len(ex.dots)-1].x)
		}
		for i, d := range ex.dots {
			inside("exposure", d.x, d.y)
			if i > 0 && d.y > ex.dots[i-1].y+1e-9 {
				t.Fatalf("%d records: dot %d lower than the one before; the records are not sorted by exposure", n, i)
			}
		}
		if len(ex.lines) != 2 {
			t.Errorf("%d lines on the per-record plot, want the 95th and 99th percentiles", len(ex.lines))
		}
	}
	for _, c := range []struct {
		r    float64
		want string
	}{{1, "1"}, {0.01, "0.01"}, {0.005, "0.005"}, {1e-4, "1e-4"}, {1.0 / 30000, "3.3e-5"}} {
		if got := rateLabel(c.r); got != c.want {
			t.Errorf("rateLabel(%v) = %q, want %q", c.r, got, c.want)
		}
	}
}

// The JSON carries the membership measurement and reads back to the same report and the
// same bytes.
func TestMembershipJSONRoundTrip(t *testing.T) {
	r := withMembership(t, 40)
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"membership": {`)) || !bytes.Contains(b, []byte(`"holdout_quantiles": [`)) {
		t.Fatalf("JSON lacks the membership measurement")
	}
	back, err := ReadJSON(bytes.NewReader(b), "r.json")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, back); diff != "" {
		t.Fatalf("round trip changed the report:\n%s", diff)
	}
	again, _ := back.JSON()
	if !bytes.Equal(b, again) {
		t.Fatal("re-encoding a decoded report changed its bytes")
	}
}

// The PDF draws the same two plots and lists the table; two renderings are the same
// bytes; pdftotext reads the labels back when installed.
func TestMembershipPDF(t *testing.T) {
	r := withMembership(t, 40)
	var a, b bytes.Buffer
	if err := r.PDF(&a); err != nil {
		t.Fatal(err)
	}
	if err := r.PDF(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two renderings of one report differ")
	}
	var plain bytes.Buffer
	if err := sample().PDF(&plain); err != nil {
		t.Fatal(err)
	}
	if a.Len() <= plain.Len() {
		t.Fatalf("the PDF with a membership measurement (%d bytes) is no larger than without (%d)", a.Len(), plain.Len())
	}
	out := []byte(readPDFText(t, a.Bytes(), "-layout"))
	text := string(out)
	for _, want := range []string{"Membership on one model: 40 deleted records against 200 held-out records", "ROC (log–log): deleted against held-out records",
		"per-record exposure", "holdout 95th percentile", "holdout 99th percentile", "0.005", "TPR at FPR 0.1 %", "Clopper–Pearson"} {
		if !strings.Contains(text, want) {
			t.Errorf("the PDF's text lacks %q:\n%s", want, text)
		}
	}
}

// tickTexts are a chart's labels of one anchor in order: "middle" the x axis's tick
// labels (and centred captions), "end" the y axis's.
func tickTexts(c *chart, anchor string) []string {
	var out []string
	for _, t := range c.texts {
		if t.anchor == anchor && !t.vertical && t.color == "" {
			out = append(out, t.text)
		}
	}
	return out
}

// Scores near ±MaxFloat64 (a logit-scaled confidence of a saturated model can be huge) are
// drawn inside the frame, every coordinate finite: the scale's differences must not
// overflow to ±Inf and make NaN coordinates.
func TestMembershipChartExtremeScores(t *testing.T) {
	forget := []float64{-1e308, 1e308, 0, 1.7e308}
	holdout := make([]float64, 50)
	for j := range holdout {
		holdout[j] = -1.7e308 * (1 - float64(j)/25)
	}
	f, err := checks.HoldoutMembership(forget, holdout, []int64{1, 2, 3, 4}, 0.95, 1)
	if err != nil {
		t.Fatal(err)
	}
	ex := exposureChart(NewFinding(f).Membership)
	if len(ex.dots) != len(forget) {
		t.Fatalf("%d dots, want %d", len(ex.dots), len(forget))
	}
	for _, d := range ex.dots {
		if !finite(d.x) || !finite(d.y) || d.y < padT-1e-9 || d.y > plotH-padB+1e-9 {
			t.Errorf("dot at (%v, %v): want finite and inside the frame", d.x, d.y)
		}
	}
	for _, l := range ex.lines {
		for _, p := range l.pts {
			if !finite(p[0]) || !finite(p[1]) {
				t.Errorf("percentile line point %v is not finite", p)
			}
		}
	}
	if svg := ex.svg(); strings.Contains(string(svg), "NaN") || strings.Contains(string(svg), "Inf") {
		t.Errorf("the SVG carries a non-finite number:\n%s", svg)
	}
}
