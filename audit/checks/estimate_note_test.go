package checks

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Scores that do not separate give the Gaussian-DP route no lower bound on μ: its note
// says so in words, never "μ ≥ -Inf" (issue 30).
func TestGDPNoteWithoutABound(t *testing.T) {
	proj := []float64{0, 0, 0, 0, 0, 0, 0, 0}
	a := mat.NewDense(len(proj), 1, proj)
	e := EmpiricalRelease{Epsilon: 1, Delta: 1e-5, Confidence: 0.95}
	found := false
	for _, est := range e.estimates(a, a, nil, proj, proj) {
		if !strings.Contains(est.Name, "Gaussian-DP") {
			continue
		}
		found = true
		if strings.Contains(est.Note, "Inf") || !strings.Contains(est.Note, "no lower bound on μ") {
			t.Errorf("note %q; want \"no lower bound on μ\"", est.Note)
		}
	}
	if !found {
		t.Fatal("no Gaussian-DP estimate: the test checks nothing")
	}
}
