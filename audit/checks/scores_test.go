package checks

import (
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

// The histogram counts every score once on shared bins; the ROC runs from (1, 1) to (0, 0)
// through rates that only fall, and is flipped to the separating direction: its area
// above the diagonal is positive whichever side scores higher.
func TestSummarizeScores(t *testing.T) {
	low := []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5}
	high := []float64{0.5, 0.6, 0.7, 0.8, 0.9, 1}
	for _, c := range []struct {
		name      string
		unl, retr []float64
	}{{"unlearned higher", high, low}, {"unlearned lower", low, high}} {
		s := verdict.SummarizeScores("x", c.unl, c.retr)
		total := 0
		for i := range s.Unlearned {
			total += s.Unlearned[i] + s.Retrained[i]
		}
		if total != 12 || len(s.Edges) != len(s.Unlearned)+1 || s.Edges[0] != 0 || s.Edges[len(s.Edges)-1] != 1 {
			t.Fatalf("%s: %d counted, edges %v…%v", c.name, total, s.Edges[0], s.Edges[len(s.Edges)-1])
		}
		area := 0.0
		for i, p := range s.ROC {
			if i > 0 && (p.FPR > s.ROC[i-1].FPR || p.TPR > s.ROC[i-1].TPR) {
				t.Fatalf("%s: ROC rises at %d: %v after %v", c.name, i, p, s.ROC[i-1])
			}
			area += p.TPR - p.FPR
		}
		if first, last := s.ROC[0], s.ROC[len(s.ROC)-1]; first != (verdict.ROCPoint{FPR: 1, TPR: 1}) || last != (verdict.ROCPoint{}) {
			t.Errorf("%s: ROC from %v to %v", c.name, first, last)
		}
		if area <= 0 {
			t.Errorf("%s: the ROC is not above the diagonal (%v)", c.name, area)
		}
	}
}
