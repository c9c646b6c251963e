package onerun

import (
	"math"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"
)

// Bad inputs are errors naming the operation, never panics.
func TestBadInputs(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name, op string
		err      func() error
	}{
		{"nCorrect > nGuess", "one-run epsilon", func() error { _, err := Epsilon(100, 10, 11, 0.05, 0); return err }},
		{"nGuess > m", "one-run epsilon", func() error { _, err := Epsilon(10, 11, 5, 0.05, 0); return err }},
		{"negative nCorrect", "one-run epsilon", func() error { _, err := Epsilon(10, 5, -1, 0.05, 0); return err }},
		{"no canaries", "one-run epsilon", func() error { _, err := Epsilon(0, 0, 0, 0.05, 0); return err }},
		{"significance 0", "one-run epsilon", func() error { _, err := Epsilon(100, 10, 9, 0, 0); return err }},
		{"significance 1", "one-run epsilon", func() error { _, err := Epsilon(100, 10, 9, 1, 0); return err }},
		{"significance NaN", "one-run epsilon", func() error { _, err := Epsilon(100, 10, 9, nan, 0); return err }},
		{"delta > 1", "one-run epsilon", func() error { _, err := Epsilon(100, 10, 9, 0.05, 2); return err }},
		{"f-DP at delta 0", "one-run f-DP epsilon", func() error { _, err := EpsilonFDP(100, 10, 9, 0.05, 0); return err }},
		{"f-DP nCorrect > nGuess", "one-run f-DP epsilon", func() error { _, err := EpsilonFDP(100, 10, 11, 0.05, 1e-5); return err }},
		{"f-DP significance 1.5", "one-run f-DP epsilon", func() error { _, err := EpsilonFDP(100, 10, 9, 1.5, 1e-5); return err }},
		{"no included canaries", "canary score auditor", func() error { _, err := NewAuditor(nil, []float64{1}); return err }},
		{"no excluded canaries", "canary score auditor", func() error { _, err := NewAuditor([]float64{1}, []float64{}); return err }},
		{"NaN score", "canary score auditor", func() error { _, err := NewAuditor([]float64{1, nan}, []float64{0}); return err }},
		{"Audit with NaN", "canary score auditor", func() error { _, err := Audit([]float64{1}, []float64{nan}, 0.05, 1e-5); return err }},
	} {
		err := c.err()
		if err == nil {
			t.Errorf("%s: no error", c.name)
		} else if !strings.HasPrefix(err.Error(), c.op+": ") {
			t.Errorf("%s: error %q does not name %q", c.name, err, c.op)
		}
	}
	if p := PValue(10, 5, 6, 1, 0); !math.IsNaN(p) {
		t.Errorf("PValue with nCorrect > nGuess = %v, want NaN", p)
	}

	a, err := NewAuditor([]float64{3, 2, 1}, []float64{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"one-run significance 0":    second(a.EpsilonOneRun(0, 1e-5, threshold.Bonferroni)),
		"one-run significance 1":    second(a.EpsilonOneRun(1, 1e-5, threshold.Bonferroni)),
		"f-DP delta 0":              second(a.EpsilonOneRunFDP(0.05, 0, threshold.Bonferroni)),
		"CP significance 0.5":       second(a.EpsilonClopperPearson(0.5, 0, true, threshold.Bonferroni)),
		"GDP significance 0":        second(a.EpsilonFromGDP(0, 1e-5)),
		"GDP delta 0":               second(a.EpsilonFromGDP(0.05, 0)),
		"TPR at FPR 1.5":            second(a.TPRAtFPR(1.5)),
		"raw counts min -1":         second(a.EpsilonRawCounts(-1, 0, true)),
		"accuracy significance 1":   second(a.MaxAccuracyUpper(1)),
		"report significance 0.7":   second(a.Report(0.7, 1e-5)),
		"report delta 0 (GDP, fDP)": second(a.Report(0.05, 0)),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// A fixed threshold counts the canaries at or above it.
func TestFixedThreshold(t *testing.T) {
	in := []float64{5, 5, 4, 3, 2, 1, 0}
	out := []float64{3, 2, 1, 0, -1, -2, -3}
	a, err := NewAuditor(in, out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.EpsilonOneRun(0.05, 1e-5, threshold.Fixed(3.5))
	if err != nil {
		t.Fatal(err)
	}
	want, err := Epsilon(14, 3, 3, 0.05, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("Fixed(3.5): %v, want Epsilon(14, 3, 3) = %v", got, want)
	}
	if s := threshold.Fixed(3.5).String(); !strings.Contains(s, "3.5") {
		t.Errorf("Fixed(3.5).String() = %q", s)
	}
}

// The split strategy, the threshold family's zero value and the game's default, is not
// the one-run auditor's: every bound refuses it by name rather than run another strategy.
func TestSplitStrategyRefused(t *testing.T) {
	a, err := NewAuditor([]float64{5, 4, 3, 2}, []float64{1, 0, -1, -2})
	if err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"EpsilonOneRun":         second(a.EpsilonOneRun(0.05, 1e-5, threshold.Split)),
		"EpsilonOneRunFDP":      second(a.EpsilonOneRunFDP(0.05, 1e-5, threshold.Split)),
		"EpsilonClopperPearson": second(a.EpsilonClopperPearson(0.05, 1e-5, true, threshold.Strategy{})),
	} {
		if err == nil || !strings.Contains(err.Error(), "threshold strategy split is not offered") {
			t.Errorf("%s with the split strategy: %v; want it refused", name, err)
		}
	}
}
