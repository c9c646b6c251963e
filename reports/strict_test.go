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
