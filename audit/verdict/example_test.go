package verdict_test

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

// The package comment's finding: an ε estimate's interval held to the bound 1. The
// interval lies below the bound, so no violation is shown; an interval above it would be
// one, and an interval straddling it decides nothing.
func ExampleDecideUpper() {
	iv := verdict.Interval{Lower: 0.2, Upper: 0.7} // an ε estimate's interval
	f := verdict.Finding{Check: "ε lower bound", Kind: verdict.Empirical, Measured: 0.4,
		Interval: &iv, Bound: 1, Comparison: "≤", Verdict: verdict.DecideUpper(iv, 1)}
	fmt.Println(f.Check, f.Comparison, f.Bound, f.Verdict)
	fmt.Println(verdict.DecideUpper(verdict.Interval{Lower: 1.2, Upper: 1.9}, 1))
	fmt.Println(verdict.DecideUpper(verdict.Interval{Lower: 0.8, Upper: 1.3}, 1))
	// Output:
	// ε lower bound ≤ 1 PASS
	// FAIL
	// INCONCLUSIVE
}
