package reports

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

// report --in took "trials": -8 and text after the object. A report read back is one JSON
// object, nothing but white space after it, and no negative count anywhere, named by its
// path; the report as written reads back.
func TestReadJSONStrict(t *testing.T) {
	r := &Report{Schema: Schema, Tool: Tool{Name: "unlearnaudit", Version: "test"}, Command: "run", Trials: 8,
		Data: Data{Rows: 3, Features: 2},
		Subjects: []Subject{{Name: "s", Verdict: "PASS", Findings: []Finding{{Check: "c", Verdict: "PASS", Trials: 8,
			Scores: &verdict.ScoreSummary{Name: "x", Edges: []float64{0, 1}, Unlearned: []int{4}, Retrained: []int{4}}}}}}}
	r.Summarize()
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadJSON(bytes.NewReader(append(b, " \n\t"...)), "r.json"); err != nil {
		t.Fatalf("the report as written, with white space after: %v", err)
	}
	for _, c := range []struct {
		name, body, want string
	}{
		{"text after", string(b) + "## overall: PASS\n", "text after the JSON object"},
		{"a second object", string(b) + "{}", "text after the JSON object"},
		{"trials -8", strings.Replace(string(b), `"trials": 8`, `"trials": -8`, 1), "trials is -8"},
		{"a negative bin count", regexp.MustCompile(`("unlearned": \[\s*)4`).ReplaceAllString(string(b), "${1}-4"), "subjects[0].findings[0].scores.unlearned[0] is -4"},
		{"negative rows", strings.Replace(string(b), `"rows": 3`, `"rows": -3`, 1), "data.rows is -3"},
	} {
		if c.body == string(b) {
			t.Fatalf("%s: the edit did not apply", c.name)
		}
		_, err := ReadJSON(strings.NewReader(c.body), "r.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "r.json") {
			t.Errorf("%s: %v; want a refusal naming r.json: %s", c.name, err, c.want)
		}
	}
}

// A report whose verdicts are not the ones its findings give is refused when read, naming
// the field: a red-team reader edited a report.json's subject to FAIL under a PASS
// summary, a verdict to MAYBE, and its subjects away under an "18 pass" summary, and
// audit report rendered each as if an audit had written it.
func TestReadJSONRefusesVerdictsItsFindingsDoNotGive(t *testing.T) {
	base := func() *Report {
		r := &Report{Schema: Schema, Tool: Tool{Name: "unlearnaudit", Version: "test"}, Command: "run", Trials: 8,
			Subjects: []Subject{
				{Name: "ok", Verdict: "PASS", Findings: []Finding{{Check: "a", Verdict: "PASS", Required: true}, {Check: "b", Verdict: "INCONCLUSIVE"}}},
				{Name: "leaky", Verdict: "FAIL", Findings: []Finding{{Check: "a", Verdict: "PASS", Required: true}, {Check: "b", Verdict: "FAIL"}}},
				{Name: "unsure", Verdict: "INCONCLUSIVE", Findings: []Finding{{Check: "a", Verdict: "INCONCLUSIVE", Required: true}}},
				{Name: "old", Verdict: "PASS", Findings: []Finding{{Check: "a", Verdict: "PASS"}}}, // none marked required: all decide
				{Name: "measured", Verdict: MeasurementVerdict, Findings: []Finding{{Check: "m", Verdict: "INCONCLUSIVE", Kind: "measurement"}}},
			}}
		r.Summarize()
		return r
	}
	read := func(r *Report) error {
		b, err := r.JSON()
		if err != nil {
			t.Fatal(err)
		}
		_, err = ReadJSON(bytes.NewReader(b), "r.json")
		return err
	}
	if err := read(base()); err != nil {
		t.Fatalf("a consistent report: %v", err)
	}
	for _, c := range []struct {
		name string
		edit func(r *Report)
		want string
	}{
		{"a subject's verdict raised", func(r *Report) { r.Subjects[1].Verdict = "PASS" }, "subjects[1].verdict PASS, but its findings give FAIL"},
		{"a subject's verdict lowered", func(r *Report) { r.Subjects[0].Verdict = "FAIL" }, "subjects[0].verdict FAIL, but its findings give PASS"},
		{"a required finding's verdict changed", func(r *Report) { r.Subjects[2].Findings[0].Verdict = "PASS" }, "subjects[2].verdict INCONCLUSIVE, but its findings give PASS"},
		{"a word that is no verdict", func(r *Report) { r.Subjects[0].Verdict = "MAYBE" }, `subjects[0].verdict "MAYBE": want PASS`},
		{"a finding's word that is no verdict", func(r *Report) { r.Subjects[0].Findings[1].Verdict = "MAYBE" }, `subjects[0].findings[1].verdict "MAYBE"`},
		{"the summary's verdict", func(r *Report) { r.Summary.Verdict = "PASS" }, "summary PASS"},
		{"the summary's counts", func(r *Report) { r.Summary.Pass += 10 }, "but its subjects give FAIL"},
		{"the subjects removed", func(r *Report) { r.Subjects = nil }, "but its subjects give INCONCLUSIVE (0, 0, 0)"},
	} {
		r := base()
		c.edit(r)
		if err := read(r); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "not the report an audit wrote") {
			t.Errorf("%s: %v; want a refusal containing %q", c.name, err, c.want)
		}
	}
}

// An empty or cut-short report.json, or a field of the wrong kind, is named in the file's
// terms, not as a bare "EOF" or Go's type names (a red-team reader met both).
func TestReadJSONWordsDecodingErrors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"", "empty: no JSON in it"},
		{`{"schema": "` + Schema + `", "trials": 8`, "ends inside a value"},
		{`{"schema": "` + Schema + `", "trials": "8"}`, "field trials: a JSON string where a whole number is wanted"},
	} {
		_, err := ReadJSON(strings.NewReader(c.body), "r.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "Go struct") {
			t.Errorf("%q: %v; want %q", c.body, err, c.want)
		}
	}
}

// The tool's version stands mid-line in report.md, so it is escaped as inline text: a
// red-team reader found "unlearnaudit 0\.1.0", the escape for a line that opens with "0.".
func TestMarkdownVersionIsInline(t *testing.T) {
	r := &Report{Schema: Schema, Tool: Tool{Name: "unlearnaudit", Version: "0.1.0"}, Command: "run"}
	r.Summarize()
	md, err := r.Render("md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "unlearnaudit 0.1.0 · schema") {
		t.Errorf("report.md's tool line: %q", md)
	}
	r.Tool.Version = "<b>1|2</b>" // still escaped as inline text
	md, _ = r.Render("md")
	if strings.Contains(string(md), "<b>") || !strings.Contains(string(md), "&lt;b&gt;1\\|2&lt;/b&gt;") {
		t.Errorf("a hostile version is not escaped: %q", md)
	}
}
