package reports_test

import (
	"crypto/ed25519"
	"errors"
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// Build a report from a subject's claim and findings, then render it. The subject's
// verdict comes from the findings its claim requires; the empirical game is supporting
// evidence, shown with its power.
func ExampleNewSubject() {
	claim := verdict.Claim{Method: "my unlearner", Guarantee: "(ε, δ)-unlearning", Epsilon: 1, Delta: 1e-6,
		Required: verdict.StateHolding}
	findings := []verdict.Finding{
		verdict.Deterministic("m/certificate/sigma", "σ the theorem requires", verdict.Certificate, 0.04, 0.05, 0, ""),
		{Check: "m/empirical/game", Title: "distinguishing game", Kind: verdict.Empirical, Verdict: verdict.Inconclusive,
			Comparison: "≤", Bound: 1, Confidence: 0.95, Trials: 200, TrialsNeeded: 446507,
			Power: &verdict.Power{Against: 2, Power: 0.0001, SmallestFactor: 19.9, TrialsNeeded: 446507}},
	}
	r := &reports.Report{Schema: reports.Schema, Command: "example", Subjects: []reports.Subject{reports.NewSubject("mine", claim, findings)}}
	r.Summarize()
	fmt.Println("verdict:", r.Summary.Verdict)
	for _, f := range r.Subjects[0].Findings {
		fmt.Printf("%s %s required=%v\n", f.Verdict, f.Check, f.Required)
	}
	fmt.Println(reports.PowerVerdict(r.Subjects[0].Findings[1].Power))
	if _, err := r.JSON(); err != nil { // the same content, schema unlearnaudit/report/v3
		fmt.Println(err)
	}
	_ = r.Markdown // renders the same for people

	// Output:
	// verdict: PASS
	// PASS m/certificate/sigma required=true
	// INCONCLUSIVE m/empirical/game required=false
	// no (power 0.00 against 2×; ≈ 446507 trials per side needed)
}

// Sign a report's JSON into a DSSE envelope (report.json.dsse) and check it, as
// `audit check-report` does: the signature under the public key, and the bytes given.
func ExampleSign() {
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)) // a real key: evidence.LoadSigningKey
	r := &reports.Report{Schema: reports.Schema, Command: "example", TrialEvidence: reports.TrialsAuthenticated}
	r.Summarize()
	js, _ := r.JSON()
	env, err := reports.Sign(js, priv)
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := reports.CheckSigned(env, priv.Public().(ed25519.PublicKey), js)
	fmt.Println(c.Report.Command, c.Report.TrialEvidence, err)
	_, err = reports.CheckSigned(env, priv.Public().(ed25519.PublicKey), append(js, ' '))
	fmt.Println(errors.Is(err, reports.ErrSignature))
	// Output:
	// example authenticated <nil>
	// true
}
