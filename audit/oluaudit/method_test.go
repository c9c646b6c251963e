package oluaudit

import (
	"math"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/audittest"
)

// "audit bounds olu" at its defaults is the spec's erratum-1 instance: σ = √3/2 with the
// valid contraction 4/20, 6.607·10⁻⁵ with the paper's γ; with constant steps on Theorem
// 5's violated instance it prints the stated 198 789.9 and Table 1's step; the active
// variant prints I₁ per request, and bad schedules are refused naming the flag.
func TestBoundsCommand(t *testing.T) {
	obj, text, err := audittest.Certificate(t, "olu")
	if err != nil {
		t.Fatal(err)
	}
	first := func(key string) float64 {
		v, ok := obj[key].([]any)
		if !ok || len(v) == 0 {
			t.Fatalf("%s: %v", key, obj[key])
		}
		return v[0].(float64)
	}
	if s, p, g := first("sigma"), first("sigma_paper"), first("contraction"); !near(s, math.Sqrt(3)/2, 1e-12) || !near(p, math.Sqrt(3)*math.Pow(0.5, 16)*2.5, 1e-12) || !near(g, 0.2, 1e-12) {
		t.Errorf("σ %v, paper σ %v, Γ %v", s, p, g)
	}
	if !strings.Contains(text, "theorem2_hypothesis_holds    true") {
		t.Errorf("table:\n%s", text)
	}
	obj, _, err = audittest.Certificate(t, "olu", "--steps", "constant", "--mu", "0", "--beta", "1", "--lipschitz", "20", "--diameter", "20",
		"--epsilon", "4e-4", "--u", "4000", "--tau", "5000", "--t", "10000")
	if err != nil {
		t.Fatal(err)
	}
	if v := obj["theorem5_stated"].(float64); !near(v, 1400*math.Sqrt(20000)+800, 1e-12) || !near(obj["eta"].(float64), Thm5EtaTable(20, 20, 10000, 1, 1, 4e-4), 1e-12) {
		t.Errorf("Theorem 5 %v, η %v", v, obj["eta"])
	}
	obj, _, err = audittest.Certificate(t, "olu", "--variant", "active", "--mu", "0.05", "--beta", "0.3", "--lipschitz", "1.5", "--diameter", "20",
		"--u", "250,500", "--tau", "350,600", "--t", "1000")
	if err != nil {
		t.Fatal(err)
	}
	if i1 := obj["i1"].([]any); len(i1) != 2 || i1[0].(float64) < 1 {
		t.Errorf("I₁ %v", obj["i1"])
	}
	for _, bad := range [][]string{
		{"--u", "4,5", "--tau", "20"},
		{"--u", "x", "--tau", "20"},
		{"--u", "30", "--tau", "20"},
		{"--variant", "active", "--u", "4,10", "--tau", "20,30"},
		{"--variant", "active", "--mu", "0"},
	} {
		if _, _, err := audittest.Certificate(t, "olu", bad...); err == nil || !strings.Contains(err.Error(), "--") {
			t.Errorf("%v: %v; want an error naming the flag", bad, err)
		}
	}
}
