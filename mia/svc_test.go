package mia

import (
	"context"
	"math"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
)

type svcGolden struct {
	SVC []struct {
		C, Gamma, Objective float64
		X, Test, Decision   []float64
		Y                   []int
		Dim, Support        int
	}
}

func rowsOf(v []float64, dim int) [][]float64 {
	out := make([][]float64, len(v)/dim)
	for i := range out {
		out[i] = v[i*dim : (i+1)*dim]
	}
	return out
}

// FitSVC against scikit-learn's SVC (LIBSVM) on the same data, both to a KKT tolerance of
// 1e-6: the same γ ("scale"), the same number of support vectors, the dual objective to
// 1e-6 relative and the decision function to 1e-4 — the optimum is unique, and at that
// tolerance each solver's α is within about 1e-6·n of it (measured: objectives agree to
// 3e-13 relative, decisions to 4e-6).
func TestSVCAgainstScikitLearn(t *testing.T) {
	g := testenv.ReadGolden[svcGolden](t)
	for i, c := range g.SVC {
		x := rowsOf(c.X, c.Dim)
		pos := make([]bool, len(c.Y))
		for j, y := range c.Y {
			pos[j] = y == 1
		}
		s, err := FitSVC(context.Background(), x, pos, SVCOptions{C: c.C, Tol: 1e-6})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(s.Gamma-c.Gamma) > 1e-12*c.Gamma {
			t.Errorf("case %d: γ = %v, scikit-learn's %v", i, s.Gamma, c.Gamma)
		}
		if math.Abs(s.Objective-c.Objective) > 1e-6*math.Abs(c.Objective) {
			t.Errorf("case %d: dual objective %v, scikit-learn's %v", i, s.Objective, c.Objective)
		}
		if s.SupportVectors() != c.Support {
			t.Errorf("case %d: %d support vectors, scikit-learn's %d", i, s.SupportVectors(), c.Support)
		}
		worst := 0.0
		for j, row := range rowsOf(c.Test, c.Dim) {
			worst = math.Max(worst, math.Abs(s.Decision(row)-c.Decision[j]))
		}
		if worst > 1e-4 {
			t.Errorf("case %d: decision values differ from scikit-learn's by up to %v", i, worst)
		}
	}
}

// One class only, no rows, or rows and labels of different lengths are refused.
func TestSVCRefuses(t *testing.T) {
	x := [][]float64{{0}, {1}}
	for _, c := range []struct {
		x   [][]float64
		pos []bool
	}{{x, []bool{true, true}}, {nil, nil}, {x, []bool{true}}} {
		if _, err := FitSVC(context.Background(), c.x, c.pos, SVCOptions{}); err == nil {
			t.Errorf("%v / %v accepted", c.x, c.pos)
		}
	}
}
