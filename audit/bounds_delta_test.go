package audit_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit"
)

// bounds with δ = 4.9e-324 (inside the range (0, 1)) printed σ, ρ and the certified σ as
// NaN, exit 0: every method's certificate refuses such a δ naming --delta, and its example
// (at an ordinary δ) has no NaN.
func TestBoundsTinyDelta(t *testing.T) {
	for _, m := range audit.Methods() {
		b, _ := audit.BoundsOf(m)
		if !slices.ContainsFunc(b.Params, func(p audit.Param) bool { return p.Name == "delta" }) {
			continue
		}
		example := strings.Fields(b.Example)
		rows, err := b.Run(context.Background(), example)
		if err != nil {
			t.Fatalf("%s: its example %v: %v", m.Name(), example, err)
		}
		for _, r := range rows {
			if f, ok := r.Value.(float64); ok && math.IsNaN(f) {
				t.Errorf("%s: its example gives %s = NaN", m.Name(), r.Key)
			}
		}
		_, err = b.Run(context.Background(), append(example, "--delta", "4.9e-324"))
		if err == nil || !strings.Contains(err.Error(), "--delta") {
			t.Errorf("%s --delta 4.9e-324: %v; want a refusal naming --delta", m.Name(), err)
		}
	}
}
