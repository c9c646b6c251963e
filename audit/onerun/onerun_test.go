package onerun

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
)

// golden is testdata/jax_privacy/auditing.json: google-deepmind/jax_privacy
// jax_privacy/auditing.py (commit 8967688c) run as published (its README says how).
type golden struct {
	Core []struct {
		M            int      `json:"m"`
		NGuess       int      `json:"n_guess"`
		NCorrect     int      `json:"n_correct"`
		Significance float64  `json:"significance"`
		Delta        float64  `json:"delta"`
		Epsilon      float64  `json:"epsilon_one_run"`
		EpsilonFDP   *float64 `json:"epsilon_one_run_fdp,omitempty"` // absent at δ = 0
		PValueAt1    float64  `json:"p_value_at_eps_1"`
	} `json:"core"`
	Cases []struct {
		Name             string             `json:"name"`
		In               []float64          `json:"in_scores"`
		Out              []float64          `json:"out_scores"`
		ParetoThresholds int                `json:"pareto_thresholds"`
		EpsOneRun        float64            `json:"epsilon_one_run"`
		EpsOneRunFDP     float64            `json:"epsilon_one_run_fdp"`
		EpsCPOneSided    float64            `json:"epsilon_clopper_pearson_one_sided"`
		EpsCPTwoSided    float64            `json:"epsilon_clopper_pearson_two_sided"`
		EpsGDP           float64            `json:"epsilon_from_gdp"`
		AUROC            float64            `json:"attack_auroc"`
		TPRAtFPR         map[string]float64 `json:"tpr_at_fpr"`
		EpsRawCounts     float64            `json:"epsilon_raw_counts_min10"`
		MaxAccuracy      float64            `json:"max_accuracy"`
		MaxAccuracyUpper float64            `json:"max_accuracy_upper_95"`
	} `json:"cases"`
}

func readGolden(t *testing.T) golden {
	t.Helper()
	path := filepath.Join("testdata", "jax_privacy", "auditing.json")
	var g golden
	b, err := os.ReadFile(path)
	if err == nil {
		err = testenv.DecodeGolden(b, &g)
	}
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(g.Core) == 0 || len(g.Cases) == 0 {
		t.Fatalf("%s: %d core triples and %d cases: a golden test over nothing", path, len(g.Core), len(g.Cases))
	}
	return g
}

// relErr is |got − want| relative to |want|, absolute when want is 0.
func relErr(got, want float64) float64 {
	if got == want {
		return 0
	}
	d := math.Abs(got - want)
	if want == 0 {
		return d
	}
	return d / math.Abs(want)
}

// near reports whether got agrees with want to 1e-6 relative, or to 1e-12 absolute when
// want is 0 (tiny nonzero values, such as p-values of 1e-30, are held to 1e-6 relative).
func near(got, want float64) bool {
	if want == 0 {
		return math.Abs(got) <= 1e-12
	}
	return relErr(got, want) <= 1e-6
}

// stepsTol is far below the searches' tolerance (1e-6 in ε) and far above rounding: a
// search that takes jax_privacy's steps (the same brackets, warm starts and threshold
// order, then Brent's method as scipy runs it) lands within about 1e-12 of jax_privacy's
// value, one that merely converges to the same root lands up to 1e-6 away.
const stepsTol = 1e-9

func checkSameSteps(t *testing.T, worst float64) {
	t.Helper()
	if worst > stepsTol {
		t.Errorf("worst relative error %.3g > %g: within the required 1e-6, but the searches no longer follow jax_privacy's steps", worst, stepsTol)
	}
}

func TestCoreMatchesJaxPrivacy(t *testing.T) {
	g := readGolden(t)
	worst, checked := 0.0, 0
	for _, c := range g.Core {
		check := func(what string, got, want float64) {
			t.Helper()
			checked++
			worst = math.Max(worst, relErr(got, want))
			if !near(got, want) {
				t.Errorf("m=%d guess=%d correct=%d a=%v δ=%v: %s = %.17g, jax_privacy %.17g (rel %.2g)",
					c.M, c.NGuess, c.NCorrect, c.Significance, c.Delta, what, got, want, relErr(got, want))
			}
		}
		check("p-value at ε = 1", PValue(c.M, c.NGuess, c.NCorrect, 1, c.Delta), c.PValueAt1)
		eps, err := Epsilon(c.M, c.NGuess, c.NCorrect, c.Significance, c.Delta)
		if err != nil {
			t.Errorf("Epsilon: %v", err)
		}
		check("one-run ε", eps, c.Epsilon)
		if c.EpsilonFDP != nil {
			eps, err := EpsilonFDP(c.M, c.NGuess, c.NCorrect, c.Significance, c.Delta)
			if err != nil {
				t.Errorf("EpsilonFDP: %v", err)
			}
			check("f-DP one-run ε", eps, *c.EpsilonFDP)
		}
	}
	t.Logf("%d core triples, %d values, worst relative error %.3g", len(g.Core), checked, worst)
	checkSameSteps(t, worst)
}

// The settings of the golden cases: CanaryScoreAuditor at significance 0.05 and δ = 1e-5.
const goldenSignificance, goldenDelta = 0.05, 1e-5

func TestAuditorMatchesJaxPrivacy(t *testing.T) {
	g := readGolden(t)
	worst, checked := 0.0, 0
	for _, c := range g.Cases {
		t.Run(c.Name, func(t *testing.T) {
			check := func(what string, got, want float64) {
				t.Helper()
				checked++
				worst = math.Max(worst, relErr(got, want))
				if !near(got, want) {
					t.Errorf("%s = %.17g, jax_privacy %.17g (rel %.2g)", what, got, want, relErr(got, want))
				}
			}
			r, err := Audit(c.In, c.Out, goldenSignificance, goldenDelta)
			if err != nil {
				t.Fatal(err)
			}
			if r.ParetoThresholds != c.ParetoThresholds {
				t.Errorf("%d Pareto thresholds, jax_privacy %d", r.ParetoThresholds, c.ParetoThresholds)
			}
			check("one-run ε", r.EpsilonOneRun, c.EpsOneRun)
			check("f-DP one-run ε", r.EpsilonOneRunFDP, c.EpsOneRunFDP)
			check("Clopper-Pearson ε one-sided", r.EpsilonCPOneSided, c.EpsCPOneSided)
			check("Clopper-Pearson ε two-sided", r.EpsilonCPTwoSided, c.EpsCPTwoSided)
			check("GDP ε", r.EpsilonGDP, c.EpsGDP)
			check("AUROC", r.AUROC, c.AUROC)
			check("raw-count ε (min 10)", r.EpsilonRawCounts, c.EpsRawCounts)
			check("max accuracy", r.MaxAccuracy, c.MaxAccuracy)
			check("max accuracy 95% bound", r.MaxAccuracyUpper, c.MaxAccuracyUpper)
			if len(c.TPRAtFPR) != len(ReportFPRs()) {
				t.Errorf("golden TPR at %d FPRs, Report gives %d", len(c.TPRAtFPR), len(ReportFPRs()))
			}
			for i, f := range ReportFPRs() {
				want, ok := c.TPRAtFPR[strconv.FormatFloat(f, 'g', -1, 64)]
				if !ok {
					t.Errorf("golden has no TPR at FPR %v", f)
					continue
				}
				check(fmt.Sprintf("TPR at FPR %v", f), r.TPRAtFPR[i], want)
			}
		})
	}
	t.Logf("%d cases, %d values, worst relative error %.3g", len(g.Cases), checked, worst)
	checkSameSteps(t, worst)
}
