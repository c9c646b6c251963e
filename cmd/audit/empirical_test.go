package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/estimate"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
)

// writeGaussian writes n rows of N(shift·e₁, I_d) as CSV.
func writeGaussian(t *testing.T, dir, name string, n, d int, shift float64, seed uint64) string {
	t.Helper()
	r := reference.Stream(seed, 0, name)
	var b strings.Builder
	row := make([]float64, d)
	for range n {
		reference.FillNormal(row, 1, r)
		row[0] += shift
		for j, v := range row {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%.17g", v)
		}
		b.WriteByte('\n')
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEstimateCommand(t *testing.T) {
	dir := t.TempDir()
	a := writeGaussian(t, dir, "a.csv", 600, 3, 0.6, 1)
	b := writeGaussian(t, dir, "b.csv", 600, 3, 0, 2)
	truth := dp.RenyiGaussianIsotropic(2, 0.6, 3, 1, 1)
	for _, method := range []string{"gauss", "projected"} {
		out, errOut, code := runCLI(t, "estimate", "--a", a, "--b", b, "--method", method, "--covariance", "pooled", "--json")
		if code != exitPass {
			t.Fatalf("%s: exit %d: %s", method, code, errOut)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %v: %s", method, err, out)
		}
		// the command prints what the library computes on the same data and options
		am, _ := reference.LoadMatrixCSV(a, reference.Limits{})
		bm, _ := reference.LoadMatrixCSV(b, reference.Limits{})
		want, err := estimate.ByName(method, am, bm, estimate.Options{Alpha: 2, Seed: 1, Covariance: estimate.Pooled})
		if err != nil {
			t.Fatal(err)
		}
		if got["estimate"].(float64) != want.Value || got["lower"].(float64) != want.Interval.Lower || got["upper"].(float64) != want.Interval.Upper {
			t.Errorf("%s: command printed %s, the library gives %+v", method, out, want)
		}
		// and the estimate is near the truth: within 4 standard errors (false-failure
		// probability below 1e-4 for an unbiased, normal estimate); the intervals' coverage
		// is validated in audit/estimate
		if math.Abs(want.Value-truth) > 4*want.SE {
			t.Errorf("%s: estimate %v, truth %v, standard error %v", method, want.Value, truth, want.SE)
		}
	}
	out, _, code := runCLI(t, "estimate", "--a", a, "--b", b, "--method", "knn", "--alpha", "1.5")
	if code != exitPass || !strings.Contains(out, "D_1.5(A‖B) ≈") || !strings.Contains(out, "not a bound") {
		t.Errorf("text output: exit %d, %q", code, out)
	}
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("1,2,3\n4,5\n"), 0o644)
	if _, errOut, code := runCLI(t, "estimate", "--a", bad, "--b", b); code != exitUsage || !strings.Contains(errOut, bad+":2") {
		t.Errorf("bad CSV: exit %d, %q", code, errOut)
	}
	if _, errOut, code := runCLI(t, "estimate", "--a", a); code != exitUsage || !strings.Contains(errOut, "--b is required") {
		t.Errorf("missing --b: exit %d, %q", code, errOut)
	}
	if _, errOut, code := runCLI(t, "estimate", "--a", a, "--b", b, "--method", "magic"); code != exitUsage || !strings.Contains(errOut, "magic") {
		t.Errorf("unknown method: exit %d, %q", code, errOut)
	}
}

func TestEpsilonCommand(t *testing.T) {
	dir := t.TempDir()
	// 400 models × 2 examples: example 0 separates the kinds by 4 standard deviations,
	// example 1 not at all
	write := func(name string, shift float64, seed uint64) string {
		r := reference.Stream(seed, 0, name)
		var b strings.Builder
		for range 400 {
			fmt.Fprintf(&b, "%.17g,%.17g\n", shift+r.NormFloat64(), r.NormFloat64())
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(b.String()), 0o644)
		return p
	}
	a, b := write("a.csv", 4, 1), write("b.csv", 0, 2)
	out, errOut, code := runCLI(t, "epsilon", "--a", a, "--b", b, "--delta", "1e-5", "--json")
	if code != exitPass {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		EpsilonLowerBound float64 `json:"epsilon_lower_bound"`
		PerExample        []struct {
			Epsilon float64 `json:"epsilon_lower_bound"`
		} `json:"per_example"`
		Competition struct {
			Epsilons        []float64 `json:"epsilons"`
			ForgettingScore float64   `json:"forgetting_score"`
		} `json:"competition"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// μ = 4 at δ = 1e-5 has a true ε of dp.GaussianExactEpsilon(4, 1e-5) ≈ 17; the game with
	// 200 evaluation models per side reaches its resolution on example 0 and ~0 on example 1
	if len(got.PerExample) != 2 || got.PerExample[0].Epsilon < 2 || got.PerExample[1].Epsilon > 0.5 ||
		got.EpsilonLowerBound != got.PerExample[0].Epsilon || len(got.Competition.Epsilons) != 2 {
		t.Fatalf("unexpected output: %s", out)
	}
	if got.PerExample[0].Epsilon > dp.GaussianExactEpsilon(4, 1e-5) {
		t.Fatal("the lower bound exceeds the truth")
	}
	if _, errOut, code := runCLI(t, "epsilon", "--a", a, "--b", b); code != exitUsage || !strings.Contains(errOut, "--delta is required") {
		t.Errorf("missing --delta: exit %d, %q", code, errOut)
	}
	text, _, _ := runCLI(t, "epsilon", "--a", a, "--b", b, "--delta", "1e-5")
	if !strings.Contains(text, "competition forgetting score") || !strings.Contains(text, "ε lower bound:") {
		t.Errorf("text output %q", text)
	}
}

func TestPlanCommand(t *testing.T) {
	out, errOut, code := runCLI(t, "plan", "--trials", "1000", "--delta", "1e-5", "--claim-epsilon", "0.5", "--factor", "3", "--json")
	if code != exitPass {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	// resolution with 500 evaluation trials at 95 %: ln((1 − δ − p)/p), p = 1 − 0.025^(1/500)
	p := 1 - math.Pow(0.025, 1.0/500)
	want := math.Log((1 - 1e-5 - p) / p)
	if v := got["max_certifiable_epsilon"].(float64); math.Abs(v-want) > 1e-9 {
		t.Errorf("max certifiable %v, want %v", v, want)
	}
	if n, ok := got["trials_needed"].(float64); !ok || n < 2 {
		t.Errorf("trials_needed missing: %s", out)
	}
	if _, errOut, code := runCLI(t, "plan", "--delta", "1e-5"); code != exitUsage || !strings.Contains(errOut, "--trials is required") {
		t.Errorf("missing --trials: exit %d, %q", code, errOut)
	}
	// the spec planner's flags are refused without a spec rather than ignored
	for _, extra := range [][]string{{"--shards", "3"}, {"--calibrate", "1s"}, {"--workers", "2"}} {
		args := append([]string{"plan", "--trials", "100", "--delta", "1e-5"}, extra...)
		if _, errOut, code := runCLI(t, args...); code != exitUsage || !strings.Contains(errOut, extra[0]+" plans a spec's run") {
			t.Errorf("%v without --spec: exit %d, %q", extra, code, errOut)
		}
	}
	// a spec's errors name the command typed
	if _, errOut, code := runCLI(t, "plan", "--spec", filepath.Join(t.TempDir(), "nope.json")); code != exitUsage || !strings.Contains(errOut, "plan: load spec") {
		t.Errorf("plan --spec of a missing file: exit %d, %q; want 2 naming plan", code, errOut)
	}
	// the power's flags without a claim to ask about are refused rather than ignored
	for _, extra := range [][]string{{"--power-against", "3"}, {"--factor", "3"}, {"--power", "0.9"}} {
		args := append([]string{"plan", "--trials", "100", "--delta", "1e-5"}, extra...)
		if _, errOut, code := runCLI(t, args...); code != exitUsage || !strings.Contains(errOut, "it needs --epsilon") {
			t.Errorf("%v without --epsilon: exit %d, %q", extra, code, errOut)
		}
	}
	if _, errOut, code := runCLI(t, "plan", "--trials", "100", "--delta", "1e-5", "--claim-epsilon", "1", "--against", "3", "--factor", "2"); code != exitUsage || !strings.Contains(errOut, "give one") {
		t.Errorf("--against with --factor: exit %d, %q", code, errOut)
	}
}
