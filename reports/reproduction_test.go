package reports

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/google/go-cmp/cmp"
)

func testReproduction() *Reproduction {
	r := &Reproduction{Schema: ReproductionSchema, Tool: Tool{Name: "unlearnaudit", Version: "test"}, Experiment: "x", Title: "T", Seed: 3,
		Settings: []table.Value{{Name: "ε", Value: 1}},
		Datasets: []ReproducedDataset{{Name: "d", Rows: 10, Features: 2, Initial: 8, Curves: []Curve{{
			Method: "m", Theorem: "Thm 1", Updates: 2, Bound: 1, BoundChecked: true, PaperBound: table.Number(math.NaN()), Growth: table.Number(math.Inf(1)),
			Points:   []CurvePoint{{Round: 0, ExcessMean: 0.1}, {Round: 1, ExcessMean: 0.2}, {Round: 2, ExcessMean: 0.3}},
			Findings: []Finding{{Check: "c", Verdict: "FAIL", Measured: 2, Bound: 1, Comparison: "≤"}},
		}}}},
	}
	r.Summarize()
	return r
}

// JSON round trip, with non-finite numbers; verdicts summarised from the findings; the
// reader refuses another schema and unknown fields.
func TestReproductionJSON(t *testing.T) {
	r := testReproduction()
	if r.Summary.Verdict != "FAIL" || r.Datasets[0].Curves[0].Verdict != "FAIL" {
		t.Fatalf("summary %+v, curve verdict %s; want FAIL", r.Summary, r.Datasets[0].Curves[0].Verdict)
	}
	js, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadReproduction(bytes.NewReader(js), "r.json")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, back, cmp.Comparer(func(a, b table.Number) bool { return a == b || math.IsNaN(float64(a)) && math.IsNaN(float64(b)) })); diff != "" {
		t.Fatalf("round trip differs:\n%s", diff)
	}
	// a v4 file (no power counts or question) is still read
	if _, err := ReadReproduction(strings.NewReader(strings.Replace(string(js), ReproductionSchema, "unlearnaudit/reproduction/v4", 1)), "v4.json"); err != nil {
		t.Errorf("a v4 reproduction is refused: %v", err)
	}
	wrong := strings.Replace(string(js), ReproductionSchema, "unlearnaudit/reproduction/v0", 1)
	if _, err := ReadReproduction(strings.NewReader(wrong), "r.json"); err == nil || !strings.Contains(err.Error(), "schema") {
		t.Errorf("wrong schema: %v", err)
	}
	extra := strings.Replace(string(js), `"title"`, `"colour": 1, "title"`, 1)
	if _, err := ReadReproduction(strings.NewReader(extra), "r.json"); err == nil || !strings.Contains(err.Error(), "colour") {
		t.Errorf("unknown field: %v", err)
	}
}

// The figure has one measured series per curve (round 0 left out: log axis), its bound
// when finite, and the markdown names the curve and embeds the figure.
func TestReproductionRendering(t *testing.T) {
	r := testReproduction()
	r.Datasets[0].Figures = []string{"f.svg"}
	fig := r.Datasets[0].Figure("T")
	if len(fig.Series) != 2 || len(fig.Series[0].X) != 2 || fig.Series[0].X[0] != 1 || !fig.Series[1].Dashed {
		t.Fatalf("figure series: %+v", fig.Series)
	}
	var md strings.Builder
	if err := r.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# T", "m (Thm 1)", "![d](f.svg)", "**FAIL**"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

// A paper's claims are reported, not judged: ReportClaims marks every table finding but
// the judged ones; the summary's verdict comes from the judged findings alone and the
// reported count apart; Markdown and text say so beside each reported verdict; a run with
// nothing judged is INCONCLUSIVE (never PASS), one with a judged failure fails.
func TestReportedClaims(t *testing.T) {
	build := func(implVerdict string) *Reproduction {
		r := &Reproduction{Schema: ReproductionSchema, Tool: Tool{Name: "unlearnaudit", Version: "test"}, Experiment: "x", Title: "T",
			Tables: []Table{{Name: "grid", Columns: []string{"a"}, Rows: []table.Row{{Label: "r", Cells: []table.Cell{{Value: 1}}}},
				Findings: []Finding{
					{Check: "x/claim", Title: "the paper's claim", Verdict: "FAIL"},
					{Check: "x/other-claim", Title: "another claim", Verdict: "INCONCLUSIVE"},
					{Check: "x/implementation", Title: "our recursion", Verdict: implVerdict},
				}}}}
		r.ReportClaims(func(check string) bool { return check == "x/implementation" })
		r.Summarize()
		return r
	}
	r := build("PASS")
	want := Summary{Verdict: "PASS", Pass: 1, Reported: &Tally{Fail: 1, Inconclusive: 1}}
	if diff := cmp.Diff(want, r.Summary); diff != "" {
		t.Fatalf("summary (-want +got):\n%s", diff)
	}
	if !r.Tables[0].Findings[0].Reported || r.Tables[0].Findings[2].Reported {
		t.Fatalf("reported flags: %+v", r.Tables[0].Findings)
	}
	var md, text strings.Builder
	if err := r.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	r.WriteText(&text, "out")
	for _, want := range []string{"**Overall verdict: PASS** (1 pass, 0 fail, 0 inconclusive); besides, reported, not judged: 0 pass, 1 fail, 1 inconclusive",
		"**FAIL (reported, not judged)** the paper's claim", "**PASS** our recursion"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	for _, want := range []string{"FAIL (reported, not judged) the paper's claim", "PASS our recursion",
		"overall: PASS; reported, not judged: 0 pass, 1 fail, 1 inconclusive; report: "} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if rep, err := r.Render("out"); err != nil || rep.Verdict != "PASS" {
		t.Errorf("reproduced: %v, %v; want PASS", rep.Verdict, err)
	}
	if rep, err := build("FAIL").Render("out"); err != nil || rep.Verdict != "FAIL" {
		t.Errorf("a judged failure: %v, %v; want FAIL", rep.Verdict, err)
	}
	// nothing judged
	r = build("PASS")
	r.ReportClaims(nil)
	r.Summarize()
	if r.Summary.Verdict != "INCONCLUSIVE" || r.Summary.Judged() || *r.Summary.Reported != (Tally{Pass: 1, Fail: 1, Inconclusive: 1}) {
		t.Fatalf("nothing judged: %+v %+v", r.Summary, r.Summary.Reported)
	}
	md.Reset()
	if err := r.Markdown(&md); err != nil || !strings.Contains(md.String(), "**Overall verdict: INCONCLUSIVE** (nothing judged: a run that judges no finding shows nothing); besides, reported, not judged: 1 pass, 1 fail, 1 inconclusive") {
		t.Errorf("nothing judged, markdown:\n%s", md.String())
	}
	if rep, err := r.Render("out"); err != nil || rep.Verdict != "INCONCLUSIVE" || !strings.Contains(rep.Text, "overall: INCONCLUSIVE (nothing judged); reported, not judged: 1 pass, 1 fail, 1 inconclusive") {
		t.Errorf("nothing judged: %v, %v, %q; want INCONCLUSIVE, said so", rep.Verdict, err, rep.Text)
	}
}

// The one rule every reproduction's exit follows (Reproduced): a judged INCONCLUSIVE makes
// the run INCONCLUSIVE even beside passes; no findings at all, only measurements, or only
// reported findings are INCONCLUSIVE, never PASS; a judged FAIL fails. Reproduced
// summarises itself, so a run that never called Summarize cannot pass by omission.
func TestReproductionVerdictRule(t *testing.T) {
	for _, c := range []struct {
		name     string
		findings []Finding
		judged   func(string) bool
		want     string
	}{
		{"no findings", nil, nil, "INCONCLUSIVE"},
		{"only measurements", []Finding{{Check: "m", Kind: "measurement", Verdict: "PASS"}}, nil, "INCONCLUSIVE"},
		{"only reported", []Finding{{Check: "c", Verdict: "PASS"}}, func(string) bool { return false }, "INCONCLUSIVE"},
		{"an inconclusive beside passes", []Finding{{Check: "a", Verdict: "PASS"}, {Check: "b", Verdict: "INCONCLUSIVE"}}, nil, "INCONCLUSIVE"},
		{"passes", []Finding{{Check: "a", Verdict: "PASS"}, {Check: "b", Verdict: "PASS"}}, nil, "PASS"},
		{"a failure", []Finding{{Check: "a", Verdict: "INCONCLUSIVE"}, {Check: "b", Verdict: "FAIL"}}, nil, "FAIL"},
	} {
		r := NewReproduction("test", "x", "T")
		r.Tables = []Table{{Name: "t", Columns: []string{"a"}, Rows: []table.Row{{Label: "r", Cells: []table.Cell{{Value: 1}}}}, Findings: c.findings}}
		if c.judged != nil {
			r.ReportClaims(c.judged)
		}
		rep, err := r.Render("out") // no Summarize: Reproduced must not rely on it
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if string(rep.Verdict) != c.want || r.Summary.Verdict != c.want {
			t.Errorf("%s: verdict %s (summary %s), want %s", c.name, rep.Verdict, r.Summary.Verdict, c.want)
		}
		if c.want != "PASS" && !strings.Contains(rep.Text, "overall: "+c.want) {
			t.Errorf("%s: the text does not say the verdict: %q", c.name, rep.Text)
		}
	}
}

// Every empirical finding of a reproduction states its power in the structured field:
// Reproduced refuses one that does not, in a table or on a curve, judged or reported.
func TestReproductionEmpiricalNeedsPower(t *testing.T) {
	attack := Finding{Check: "x/attack", Kind: "empirical", Verdict: "PASS"}
	for _, c := range []struct {
		name string
		r    *Reproduction
	}{
		{"table", &Reproduction{Experiment: "x", Tables: []Table{{Name: "t", Findings: []Finding{attack}}}}},
		{"curve", &Reproduction{Experiment: "x", Datasets: []ReproducedDataset{{Name: "d", Curves: []Curve{{Method: "m", Points: []CurvePoint{{}}, Findings: []Finding{attack}}}}}}},
	} {
		c.r.Schema, c.r.Tool = ReproductionSchema, Tool{Name: "unlearnaudit", Version: "test"}
		c.r.ReportClaims(nil)
		if _, err := c.r.Render("out"); err == nil || !strings.Contains(err.Error(), "x/attack states no power") {
			t.Errorf("%s: %v; want the powerless attack refused", c.name, err)
		}
	}
	withPower := attack
	withPower.Power = &Power{Against: 2, Power: 0.9, SmallestFactor: 1.5}
	r := &Reproduction{Schema: ReproductionSchema, Experiment: "x", Tables: []Table{{Name: "t", Findings: []Finding{withPower}}}}
	if rep, err := r.Render("out"); err != nil || rep.Verdict != "PASS" {
		t.Errorf("with its power: %v, %v", rep, err)
	}
}

// Every passing "≤" finding states its slack; ReportSlack writes it into the loose
// checks' details and takes those with 100× or more out of the verdict: a run whose only
// judged finding is that loose is INCONCLUSIVE, and a tight check beside it decides.
func TestReportSlack(t *testing.T) {
	build := func() *Reproduction {
		return &Reproduction{Schema: ReproductionSchema, Experiment: "x", Tables: []Table{{Name: "t", Findings: []Finding{
			{Check: "x/loose/regret", Verdict: "PASS", Measured: 2, Bound: 500, Comparison: "≤"},
			{Check: "x/loose/tight-enough", Verdict: "PASS", Measured: 2, Bound: 100, Comparison: "≤"},
			{Check: "x/exact", Verdict: "PASS", Measured: 1e-6, Bound: 1, Comparison: "≤"},
		}}}}
	}
	r := build()
	r.ReportSlack(func(check string) bool { return strings.HasPrefix(check, "x/loose/") })
	r.Summarize()
	fs := r.Tables[0].Findings
	if fs[0].Slack != 250 || fs[1].Slack != 50 || fs[2].Slack != 1e6 {
		t.Errorf("slacks %v, %v, %v; want 250, 50, 1e6", fs[0].Slack, fs[1].Slack, fs[2].Slack)
	}
	if !fs[0].Reported || !strings.Contains(fs[0].Detail, "measured/bound = 0.004 (slack 250×)") || !strings.Contains(fs[0].Detail, "reported, not judged") {
		t.Errorf("the 250× check: reported %v, detail %q", fs[0].Reported, fs[0].Detail)
	}
	if fs[1].Reported || !strings.Contains(fs[1].Detail, "slack 50×") || fs[2].Reported || fs[2].Detail != "" {
		t.Errorf("the 50× check %+v and the exact one %+v stay judged", fs[1], fs[2])
	}
	if r.Summary.Pass != 2 || r.Summary.Reported == nil || r.Summary.Reported.Pass != 1 {
		t.Errorf("summary %+v", r.Summary)
	}
	only := build()
	only.Tables[0].Findings = only.Tables[0].Findings[:1]
	only.ReportSlack(func(string) bool { return true })
	if rep, err := only.Render("out"); err != nil || rep.Verdict != "INCONCLUSIVE" {
		t.Errorf("a run judged only by a 250× bound: %v, %v; want INCONCLUSIVE", rep, err)
	}
	fail := build()
	fail.Tables[0].Findings[0].Verdict, fail.Tables[0].Findings[0].Measured = "FAIL", 600
	fail.ReportSlack(func(string) bool { return true })
	if f := fail.Tables[0].Findings[0]; f.Slack != 0 || f.Reported {
		t.Errorf("a broken bound has no slack and stays judged: %+v", f)
	}
}
