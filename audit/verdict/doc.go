// Package verdict is the vocabulary every audit speaks: what a check found and what it
// means. It is a leaf — it imports the ε instrument and nothing of the audit pipeline — so
// that reports, method packages and the checks themselves can share it without importing
// each other.
//
// A check ends in a [Finding]: what it measured, the [Interval] around it, the bound it was
// held to, its [Verdict] (PASS, FAIL or INCONCLUSIVE) and, for an empirical check, the
// [Power] it had — the smallest violation it would have caught at the trials it used. A
// PASS means no violation was shown and the check could have shown one; otherwise the
// finding is INCONCLUSIVE and names the trials that would decide.
//
//	iv := verdict.Interval{Lower: 0.2, Upper: 0.7} // an ε estimate's interval
//	f := verdict.Finding{Check: "ε lower bound", Kind: verdict.Empirical, Measured: 0.4,
//		Interval: &iv, Bound: 1, Comparison: "≤", Verdict: verdict.DecideUpper(iv, 1)}
//
// (ExampleDecideUpper runs it.)
//
// [DecideUpper] turns an interval and a bound into a verdict; [Worst] and [Tally]
// summarise many findings and [Decide] gives a subject's verdict from the findings its
// claim requires; [ExcessVerdict] and [VarianceTest] are the two-sided
// rules for quantities claimed equal (a mean excess, a noise variance), each with its
// power. A [Claim] is what a method certifies — (ε, δ) and the derivation [Step]s behind
// it — and [ScoreSummary], [Trace], [HeldOut] and [MembershipSummary] carry what reports
// plot.
package verdict
