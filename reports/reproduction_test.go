package reports

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func testReproduction() *Reproduction {
	r := &Reproduction{Schema: ReproductionSchema, Tool: Tool{Name: "unlearnaudit", Version: "test"}, Experiment: "x", Title: "T", Seed: 3,
		Settings: []Value{{Name: "ε", Value: 1}},
		Datasets: []ReproducedDataset{{Name: "d", Rows: 10, Features: 2, Initial: 8, Curves: []Curve{{
			Method: "m", Theorem: "Thm 1", Updates: 2, Bound: 1, BoundChecked: true, PaperBound: Number(math.NaN()), Growth: Number(math.Inf(1)),
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
	if diff := cmp.Diff(r, back, cmp.Comparer(func(a, b Number) bool { return a == b || math.IsNaN(float64(a)) && math.IsNaN(float64(b)) })); diff != "" {
		t.Fatalf("round trip differs:\n%s", diff)
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
