package sgluaudit

import (
	"math"
	"testing"
)

// The paper settings derive the constants the spec's golden file states (§4.5), and
// Table3Paper is the golden file's Table 3.
func TestPaperSettings(t *testing.T) {
	g := readGolden(t)
	for _, s := range PaperSettings {
		for _, b := range []int{128, 0} {
			got, want := s.Problem(b), g.problem(s.Name, b)
			if got.N != want.N || got.Batch != want.Batch || math.Abs(got.StepSize-want.StepSize) > 1e-15*want.StepSize ||
				math.Abs(got.Smoothness-want.Smoothness) > 1e-15 || math.Abs(got.StrongConvexity-want.StrongConvexity) > 1e-15 ||
				got.Lipschitz != want.Lipschitz || got.Radius != want.Radius {
				t.Errorf("%s b=%d: %+v, golden %+v", s.Name, b, got, want)
			}
		}
	}
	if len(Table3Paper) != len(g.Table3.Rows) {
		t.Fatalf("%d rows, golden %d", len(Table3Paper), len(g.Table3.Rows))
	}
	for i, row := range g.Table3.Rows {
		p := Table3Paper[i]
		if p.Dataset != row.Dataset || p.Batch != row.B {
			t.Fatalf("row %d: %s b=%d, golden %s b=%d", i, p.Dataset, p.Batch, row.Dataset, row.B)
		}
		for k := range row.Sigma {
			if p.Sigma[k] != row.Sigma[k] || Table3Targets[k] != g.Table3.Targets[k] {
				t.Errorf("row %d col %d: %s at %v, golden %s at %v", i, k, p.Sigma[k], Table3Targets[k], row.Sigma[k], g.Table3.Targets[k])
			}
		}
	}
}
