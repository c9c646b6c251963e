package d2daudit_test

import (
	"context"
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/d2daudit"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
)

// Audit Descent-to-Delete in its secret-state mode on synthetic data, two deletions, 50
// trials: the certificate, implementation and release findings decide; the empirical game
// on so few trials is supporting evidence, INCONCLUSIVE with the trials it would need.
func ExampleCheck() {
	ds, _ := reference.SyntheticClassification(300, 5, 1)
	loss := reference.Logistic{Lambda: 0.05}
	p := d2d.Params{Constants: loss.Constants(ds, 10), Radius: 10, Budget: 10, Epsilon: 1, Delta: 1e-6}
	s, err := d2daudit.New(context.Background(), d2daudit.Setup{Mode: d2d.SecretState, Loss: loss, Data: ds,
		Updates: []reference.Update{reference.DeleteID(3), reference.DeleteID(8)}, Params: p})
	if err != nil {
		panic(err)
	}
	trials, _ := trials.Engine{}.Run(context.Background(), s, 1, 50)
	findings, _ := d2daudit.Check(context.Background(), s, trials, audit.CheckOptions{})
	for _, f := range findings {
		fmt.Println(f.Verdict, f.Check)
		if f.Power != nil {
			fmt.Println("  power:", f.Power.Summary())
		}
	}
	// the empirical game is supporting evidence: the required findings decide
	fmt.Println("subject:", verdict.Decide(s.Claim(), findings))
	// Output:
	// PASS d2d/certificate/sigma
	// PASS d2d/certificate/lipschitz
	// PASS d2d/certificate/smoothness
	// PASS d2d/certificate/strong-convexity
	// PASS d2d/implementation/radius
	// PASS d2d/implementation/retrain-gap
	// PASS d2d/implementation/learner-radius
	// PASS d2d/release/renyi
	// PASS d2d/release/exact-epsilon
	// INCONCLUSIVE d2d/empirical/epsilon-lower-bound
	//   power: would catch a 2× violation with probability 0.00; catches ≥ 19.8× violations with 80 % power; about 198087 trials per side would catch 2× with 80 % power (the question: split game, the better of 2 score families, each test at 97.5 % confidence, a Gaussian leak; `audit plan --trials 50 --delta 1e-06 --epsilon 1 --power-against 2 --power 0.8 --confidence 0.975` asks it)
	// INCONCLUSIVE d2d/empirical/membership
	//   power: would catch a 2× violation with probability 0.00; catches ≥ 19.8× violations with 80 % power; about 198087 trials per side would catch 2× with 80 % power (the question: split game per deleted record, 2 records, each test at 97.5 % confidence, a Gaussian leak; `audit plan --trials 50 --delta 1e-06 --epsilon 1 --power-against 2 --power 0.8 --confidence 0.975` asks it)
	// subject: PASS
}
