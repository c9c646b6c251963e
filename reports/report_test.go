package reports

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/google/go-cmp/cmp"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

func sample() *Report {
	claim := verdict.Claim{Method: "m", Source: "s", Guarantee: "(ε, δ)-unlearning", Epsilon: 1, Delta: 1e-6, Rho: 0.0175,
		Relation: "r", Assumptions: []string{"a"}, Constants: []verdict.Value{{Name: "L", Value: 1.5}},
		Derivation: []verdict.Step{{Quantity: "σ", Formula: "Δ/…", Value: 0.046}}}
	fs := []verdict.Finding{
		{Check: "x/pass", Title: "ok | with a pipe", Kind: verdict.Certificate, Verdict: verdict.Pass, Measured: 1, Bound: 2, Comparison: "≤", Confidence: 1},
		{Check: "x/fail", Title: "broken", Kind: verdict.Release, Verdict: verdict.Fail, Measured: math.Inf(1),
			Interval: &verdict.Interval{Lower: math.Inf(1), Upper: math.Inf(1)}, Bound: 0.03, Comparison: "≤", Confidence: 0.95, Trials: 50},
		{Check: "x/game", Title: "game", Kind: verdict.Empirical, Verdict: verdict.Inconclusive, Measured: 0, Bound: 1, Comparison: "≤",
			Confidence: 0.95, Trials: 50, TrialsNeeded: 4000,
			Power: &verdict.Power{Against: 2, Power: 0.01, StdErr: 0.001, SmallestFactor: math.Inf(1), TrialsNeeded: 4000}},
	}
	r := &Report{Schema: Schema, Tool: Tool{Name: "unlearnaudit", Version: "test"}, Command: "demo", Seed: 7, Trials: 50,
		Confidence: 0.95, Data: Data{Description: "d", Rows: 3, Features: 2, Requests: []string{"delete 1"}},
		Subjects: []Subject{NewSubject("x", claim, fs)}}
	r.Summarize()
	return r
}

func TestJSONRoundTripWithInfinity(t *testing.T) {
	r := sample()
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"measured": "+Inf"`)) || !bytes.Contains(b, []byte(`"schema": "unlearnaudit/report/v3"`)) {
		t.Fatalf("unexpected JSON:\n%s", b)
	}
	back, err := ReadJSON(bytes.NewReader(b), "r.json")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, back, cmp.Comparer(func(a, b table.Number) bool {
		return a == b || math.IsNaN(float64(a)) && math.IsNaN(float64(b))
	})); diff != "" {
		t.Fatalf("round trip changed the report:\n%s", diff)
	}
	again, _ := back.JSON()
	if !bytes.Equal(b, again) {
		t.Fatal("re-encoding a decoded report changed its bytes")
	}
	if _, err := ReadJSON(strings.NewReader("# Unlearning audit report"), "report.md"); err == nil || !strings.Contains(err.Error(), "report.md: not JSON") || !strings.Contains(err.Error(), "want the report.json an audit wrote") {
		t.Errorf("a Markdown report read as JSON: %v", err)
	}
	if _, err := ReadJSON(strings.NewReader(`{"schema":"other/v9"}`), "x.json"); err == nil || !strings.Contains(err.Error(), "x.json") {
		t.Fatalf("wrong schema: %v", err)
	}
}

// TestReadsV2Reports: a v2 report (written before a game's power named its question) is
// still read; an older schema is refused, naming the current one.
func TestReadsV2Reports(t *testing.T) {
	r := sample()
	r.Subjects[0].Findings[2].Power.Question = nil
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	v2 := bytes.Replace(b, []byte(Schema), []byte("unlearnaudit/report/v2"), 1)
	back, err := ReadJSON(bytes.NewReader(v2), "old.json")
	if err != nil {
		t.Fatalf("a v2 report is refused: %v", err)
	}
	if back.Schema != "unlearnaudit/report/v2" || back.Subjects[0].Findings[2].Power == nil {
		t.Fatalf("read back %q with power %v", back.Schema, back.Subjects[0].Findings[2].Power)
	}
	v1 := bytes.Replace(b, []byte(Schema), []byte("unlearnaudit/report/v1"), 1)
	if _, err := ReadJSON(bytes.NewReader(v1), "older.json"); err == nil || !strings.Contains(err.Error(), `want "unlearnaudit/report/v3"`) {
		t.Fatalf("a v1 report: %v", err)
	}
}

func TestSummary(t *testing.T) {
	r := sample()
	if r.Summary != (Summary{Verdict: "FAIL", Pass: 1, Fail: 1, Inconclusive: 1}) || r.Subjects[0].Verdict != "FAIL" {
		t.Fatalf("summary %+v, subject verdict %s", r.Summary, r.Subjects[0].Verdict)
	}
}

func TestMarkdown(t *testing.T) {
	var b strings.Builder
	if err := sample().Markdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"**Overall verdict: FAIL**", "| x | **FAIL** | 1 | 1 | 1 | INCONCLUSIVE | no (power 0.01 against 2×; ≈ 4000 trials per side needed) |", `ok \| with a pipe`, "+∞", "| σ | Δ/… | 0.046 |", "D_α ≤ α·0.0175"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// A subject's verdict comes from its required findings; the empirical game, supporting,
// is shown with its power and cannot hold a PASS back.
func TestRequiredFindingsAndPower(t *testing.T) {
	claim := verdict.Claim{Guarantee: "g", Epsilon: 1, Delta: 1e-6, Required: verdict.StateHolding}
	fs := []verdict.Finding{
		{Check: "c", Kind: verdict.Certificate, Verdict: verdict.Pass, Comparison: "≤", Confidence: 1},
		{Check: "e", Kind: verdict.Empirical, Verdict: verdict.Inconclusive, Comparison: "≤", Confidence: 0.95, Trials: 200, TrialsNeeded: 446507,
			Power: &verdict.Power{Against: 2, Power: 0.0001, SmallestFactor: 19.9, TrialsNeeded: 446507}},
	}
	r := &Report{Schema: Schema, Subjects: []Subject{NewSubject("s", claim, fs)}}
	r.Summarize()
	if r.Summary.Verdict != "PASS" || r.Subjects[0].Verdict != "PASS" || r.Summary.Inconclusive != 1 {
		t.Fatalf("summary %+v, subject %s; want PASS from the required finding, the game counted inconclusive", r.Summary, r.Subjects[0].Verdict)
	}
	if f := r.Subjects[0].Findings; !f[0].Required || f[1].Required || f[1].Power == nil || !strings.Contains(f[1].Power.Summary, "about 446507 trials per side") {
		t.Fatalf("findings %+v", f)
	}
	var md bytes.Buffer
	if err := r.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| INCONCLUSIVE (supporting) | no (power 0.00 against 2×; ≈ 446507 trials per side needed) |",
		"| **INCONCLUSIVE** | supporting | empirical |", "  - power: would catch a 2× violation with probability 0.00; catches ≥ 19.9× violations"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	if got := PowerVerdict(&Power{Power: 0.9, SmallestFactor: 1.2345}); got != "yes (catches ≥ 1.24×)" {
		t.Errorf("PowerVerdict = %q; the factor must round up", got)
	}
}

// ShellLine quotes what a POSIX shell would split or expand, so the line pastes back.
func TestShellLine(t *testing.T) {
	got := ShellLine([]string{"audit", "run", "--spec=my spec.json", "--data=a'b", "", "--delete=1,2", "$HOME"})
	want := `audit run '--spec=my spec.json' '--data=a'\''b' '' --delete=1,2 '$HOME'`
	if got != want {
		t.Errorf("ShellLine = %s, want %s", got, want)
	}
	r := sample()
	r.CommandLine = []string{"audit", "demo", "--data=<x>.csv"}
	var md, page strings.Builder
	if err := r.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := r.HTML(&page); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "`audit demo '--data=<x>.csv'`") || !strings.Contains(page.String(), `<code id="command-line">audit demo &#39;--data=&lt;x&gt;.csv&#39;</code>`) {
		t.Errorf("the command line is missing or unescaped:\n%s\n%s", md.String()[:300], page.String())
	}
}

// A control the audit FAILs names the checks that caught it; one it does not names the
// check on its runs that came closest — never a certificate check, which reads declared
// constants only and is the same for the mutant as for the method.
func TestNewControl(t *testing.T) {
	claim := verdict.Claim{Epsilon: 1, Delta: 1e-6}
	fs := []verdict.Finding{
		{Check: "m/certificate/sigma", Kind: verdict.Certificate, Verdict: verdict.Pass, Measured: 4, Bound: 4, Comparison: "≤", Confidence: 1},
		{Check: "m/implementation/radius", Kind: verdict.Implementation, Verdict: verdict.Pass, Measured: 0.05, Bound: 0.4, Comparison: "≤", Confidence: 1},
		{Check: "m/release/renyi", Kind: verdict.Release, Verdict: verdict.Pass, Measured: 0.01, Bound: 0.4, Comparison: "≤", Confidence: 0.95},
		{Check: "m/empirical/game", Kind: verdict.Empirical, Verdict: verdict.Inconclusive, Measured: 0, Bound: math.Inf(1), Comparison: "≤", Confidence: 0.95},
	}
	c := NewControl("m", "no-unlearning", "ignores deletions", claim, fs)
	if c.Caught || c.Verdict != "INCONCLUSIVE" || c.Closest != "m/implementation/radius measured 0.05 against its bound 0.4 (0.125 of it)" {
		t.Errorf("not caught: %+v", c)
	}
	fs[2].Verdict, fs[2].Measured = verdict.Fail, 0.9
	c = NewControl("m", "no-unlearning", "ignores deletions", claim, fs)
	if !c.Caught || c.Closest != "" || len(c.CaughtBy) != 1 || c.CaughtBy[0] != "m/release/renyi" {
		t.Errorf("caught: %+v", c)
	}
}

// The summary's "empirical game" column is the distinguishing game, never an
// implementation check that states a power of its own (SGLU's noise test comes first
// in its findings and PASSes with power): every format names the game's verdict.
func TestGameColumnIsTheEmpiricalGame(t *testing.T) {
	claim := verdict.Claim{Method: "m", Epsilon: 1, Delta: 1e-6}
	fs := []verdict.Finding{
		{Check: "x/noise", Title: "noise", Kind: verdict.Implementation, Verdict: verdict.Pass, Measured: 1, Bound: 1, Comparison: "=", Confidence: 0.99,
			Power: &verdict.Power{Against: 2, Power: 1, SmallestFactor: 1.25}},
		{Check: "x/game", Title: "game", Kind: verdict.Empirical, Verdict: verdict.Inconclusive, Bound: 1, Comparison: "≤", Confidence: 0.95, Trials: 50, TrialsNeeded: 4000,
			Power: &verdict.Power{Against: 2, Power: 0.01, SmallestFactor: math.Inf(1), TrialsNeeded: 4000}},
	}
	r := &Report{Schema: Schema, Tool: Tool{Name: "unlearnaudit", Version: "test"}, Command: "demo", Seed: 7, Trials: 50, Confidence: 0.95,
		Subjects: []Subject{NewSubject("x", claim, fs)}}
	r.Summarize()
	if g := GameFinding(r.Subjects[0].Findings); g == nil || g.Check != "x/game" {
		t.Fatalf("game finding %+v; want x/game", g)
	}
	var md strings.Builder
	if err := r.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| INCONCLUSIVE | no (power 0.01") {
		t.Errorf("markdown summary does not show the game's verdict:\n%s", md.String())
	}
}

// The header counts trials in words that agree with the count: "1 trial per subject";
// and a verify report, whose samples are models trained elsewhere, counts models.
func TestTrialsPerSubject(t *testing.T) {
	r := sample()
	for _, c := range []struct {
		command string
		n       int
		want    string
	}{{"demo", 1, "1 trial per subject"}, {"run", 50, "50 trials per subject"}, {"verify", 64, "64 unlearned models"}, {"verify", 1, "1 unlearned model ·"}} {
		r.Command, r.Trials = c.command, c.n
		var md bytes.Buffer
		if err := r.Markdown(&md); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(md.String(), c.want) {
			t.Errorf("%d trials: the Markdown lacks %q", c.n, c.want)
		}
		if c.command == "verify" && strings.Contains(md.String(), "per subject") {
			t.Errorf("verify of %d models: the Markdown counts trials per subject", c.n)
		}
		var html bytes.Buffer
		if err := r.HTML(&html); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(html.String(), c.want) {
			t.Errorf("%d trials: the HTML lacks %q", c.n, c.want)
		}
	}
}
