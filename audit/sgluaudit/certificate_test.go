package sgluaudit_test

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	_ "github.com/unlearnaudit/unlearnaudit/audit/sgluaudit"
	"github.com/unlearnaudit/unlearnaudit/internal/audittest"
	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
)

var mnistSGLU = []string{"--n", "11264", "--smoothness", "0.261264", "--lipschitz", "1", "--strong-convexity", "0.011264"}

// boundsSGLU is "audit bounds sglu --json" on the MNIST constants and args.
func boundsSGLU(t *testing.T, args ...string) map[string]any {
	t.Helper()
	obj, _, err := audittest.Certificate(t, "sglu", append(mnistSGLU[:len(mnistSGLU):len(mnistSGLU)], args...)...)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// Corollary 3.8 on the MNIST constants reproduces every row of spec sglu §4.5's golden
// table (the file reference/sglu uses), to half a unit of the printed digit.
func TestBoundsSGLUGolden(t *testing.T) {
	b, err := os.ReadFile("../../reference/sglu/testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Rows []struct {
			Dataset    string
			B          int
			ZB         string `json:"zb"`
			EpsAlpha10 string `json:"eps_alpha10"`
			BestEps    string `json:"best_eps"`
			AlphaStar  string `json:"alpha_star"`
			C39        string `json:"cor39_alpha10"`
		}
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	near := func(what string, got any, printed string) {
		t.Helper()
		v, tol, err := testenv.Printed(printed)
		if err != nil {
			t.Fatal(err)
		}
		if x := got.(float64); math.Abs(x-v) > tol {
			t.Errorf("%s = %.10g, golden %s", what, x, printed)
		}
	}
	rows := 0
	for _, r := range g.Rows {
		if r.Dataset != "mnist" {
			continue
		}
		rows++
		batch := []string{"--sigma", "0.03", "--alpha", "10"}
		if r.B > 0 {
			batch = append(batch, "--batch", strconv.Itoa(r.B))
		}
		got := boundsSGLU(t, batch...)
		near("Z_B", got["z"], r.ZB)
		near("ε(α=10)", got["renyi_epsilon"], r.EpsAlpha10)
		near("best ϵ", got["epsilon"], r.BestEps)
		near("α*", got["alpha_star"], r.AlphaStar)
		rc := boundsSGLU(t, append(batch, "--variant", "random-batches")...)
		if r.B != 32 { // the b = 32 golden carries the spec's cancellation (see sgluaudit's test)
			near("Cor 3.9 ε(α=10)", rc["renyi_epsilon"], r.C39)
		}
	}
	if rows != 4 {
		t.Fatalf("read %d MNIST rows, want 4", rows)
	}
	// Table 3, MNIST b = 128, ϵ̂ = 0.05: σ = 0.0790 to four decimals (truncated).
	got := boundsSGLU(t, "--variant", "finite", "--epochs", "1", "--init-radius", "0", "--batch", "128", "--target-epsilon", "0.05")
	if s := got["sigma"].(float64); math.Trunc(s*1e4)/1e4 != 0.0790 || got["epsilon"].(float64) > 0.05 {
		t.Errorf("Table 3 MNIST b=128 ϵ̂=0.05: σ = %v (ϵ %v), paper 0.0790", s, got["epsilon"])
	}
}

// The searches answer the question asked: the least K meets the target and K−1 does not;
// the sequential run meets the target at every request and sums its epochs.
func TestBoundsSGLUSearches(t *testing.T) {
	got := boundsSGLU(t, "--batch", "128", "--sigma", "0.03", "--target-epsilon", "0.01")
	K := int(got["unlearn_epochs"].(float64))
	if got["epsilon"].(float64) > 0.01 {
		t.Fatalf("K = %d certifies %v > 0.01", K, got["epsilon"])
	}
	fewer := boundsSGLU(t, "--batch", "128", "--sigma", "0.03", "--unlearn-epochs", strconv.Itoa(K-1))
	if fewer["epsilon"].(float64) <= 0.01 {
		t.Fatalf("K − 1 = %d already certifies %v", K-1, fewer["epsilon"])
	}
	// α unbounded: the closed forms are printed and agree with the searches.
	got = boundsSGLU(t, "--batch", "128", "--sigma", "0.03", "--target-epsilon", "0.01", "--alpha-range", "unbounded")
	if got["unlearn_epochs"] != got["unlearn_epochs_closed_form"] {
		t.Errorf("least K %v, closed form %v", got["unlearn_epochs"], got["unlearn_epochs_closed_form"])
	}
	got = boundsSGLU(t, "--batch", "128", "--target-epsilon", "0.5", "--unlearn-epochs", "3", "--alpha-range", "unbounded")
	if s, cf := got["sigma"].(float64), got["sigma_closed_form"].(float64); math.Abs(s-cf) > 2e-8 {
		t.Errorf("σ search %v, closed form %v (search tolerance 1e-8)", s, cf)
	}
	seq := boundsSGLU(t, "--variant", "sequential", "--mixed", "--batch", "128", "--sigma", "0.1", "--requests", "100", "--target-epsilon", "0.01")
	var sum float64
	for _, k := range seq["unlearn_epochs"].([]any) {
		sum += k.(float64)
	}
	if len(seq["unlearn_epochs"].([]any)) != 100 || sum != seq["total_unlearn_epochs"].(float64) || seq["epsilon_max"].(float64) > 0.01 {
		t.Errorf("sequential: %v", seq)
	}
	if !(seq["z_next"].(float64) > seq["z_printed_loop"].(float64)) {
		t.Errorf("the recursion's Z %v should exceed the printed loop's Z_B %v after 100 requests", seq["z_next"], seq["z_printed_loop"])
	}
	_, text, _ := audittest.Certificate(t, "sglu", append(mnistSGLU[:len(mnistSGLU):len(mnistSGLU)], "--variant", "sequential", "--mixed", "--batch", "128", "--sigma", "0.1", "--requests", "100", "--target-epsilon", "0.01")...)
	if !strings.Contains(text, "1×") {
		t.Errorf("the text form should run-length encode the K list:\n%s", text)
	}
}

func TestBoundsSGLUUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"--lipschitz", "1"}, []string{"--n is required", "--smoothness is required", "--sigma is required"}},
		{append(mnistSGLU[:len(mnistSGLU):len(mnistSGLU)], "--sigma", "0.1", "--batch", "100"), []string{"batch", "dividing n"}},
		{append(mnistSGLU[:len(mnistSGLU):len(mnistSGLU)], "--sigma", "0.1", "--pabi", "nope"), []string{"--pabi"}},
		{append(mnistSGLU[:len(mnistSGLU):len(mnistSGLU)], "--sigma", "0.1", "--variant", "finite"), []string{"--epochs is required"}},
		{append(mnistSGLU[:len(mnistSGLU):len(mnistSGLU)], "--sigma", "0.1", "--variant", "finite", "--epochs", "3"), []string{"--init-radius"}},
		{append(mnistSGLU[:len(mnistSGLU):len(mnistSGLU)], "--sigma", "0.1", "--variant", "sequential"), []string{"--target-epsilon is required"}},
		{append(mnistSGLU[:len(mnistSGLU):len(mnistSGLU)], "--sigma", "0.1", "--alpha-range", "0.5:2"), []string{"--alpha-range"}},
		{append(mnistSGLU[:len(mnistSGLU):len(mnistSGLU)], "--sigma", "0.1", "--eta", "100"), []string{"eta", "1/L"}},
		{append(mnistSGLU[:len(mnistSGLU):len(mnistSGLU)], "--sigma", "0.1", "--variant", "convex", "--epochs", "2"), []string{"convex", "m = 0"}},
	}
	for _, c := range cases {
		_, _, err := audittest.Certificate(t, "sglu", c.args...)
		if err == nil {
			t.Errorf("%v: accepted", c.args)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error lacks %q: %v", c.args, w, err)
			}
		}
	}
}

// Each --variance reading's output shows the other beside it (docs/reproducing-the-papers.md):
// epsilon_other_variance under one convention is the epsilon the other computes, for every
// variant with a closed-form curve (a red-team reader found --variance true leaving no
// trace in the output).
func TestBoundsSGLUShowsTheOtherVariance(t *testing.T) {
	for _, variant := range [][]string{
		{"--variant", "convergent"},
		{"--variant", "random-batches", "--batch", "128"},
		{"--variant", "convex", "--epochs", "10", "--strong-convexity", "0"},
		{"--variant", "finite", "--epochs", "10", "--init-radius", "1"},
		{"--variant", "batch", "--removed", "10"},
	} {
		args := append(variant[:len(variant):len(variant)], "--sigma", "0.03", "--unlearn-epochs", "1")
		paper := boundsSGLU(t, append(args, "--variance", "paper")...)
		trueV := boundsSGLU(t, append(args, "--variance", "true")...)
		if paper["epsilon_other_variance"] != trueV["epsilon"] || trueV["epsilon_other_variance"] != paper["epsilon"] || paper["epsilon"] == trueV["epsilon"] {
			t.Errorf("%v: paper ε %v (other %v), true ε %v (other %v); want each other's the other's own", variant, paper["epsilon"], paper["epsilon_other_variance"], trueV["epsilon"], trueV["epsilon_other_variance"])
		}
	}
}
