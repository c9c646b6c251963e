package sgluaudit_test

import (
	"context"
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/sgluaudit"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// The first entry of the paper's Table 3: the σ for which one unlearning epoch meets
// ϵ̂ = 0.05 on the MNIST constants with b = 128.
func ExampleTable3Sigma() {
	p := sgluaudit.PaperSettings[0].Problem(128)
	sigma, err := sgluaudit.Table3Sigma(p, 0.05)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("σ = %.8f (Table 3 prints %s)\n", sigma, sgluaudit.Table3Paper[2].Sigma[0])
	// Output: σ = 0.07905598 (Table 3 prints 0.0790)
}

// Audit an SGLU deployment: PNSGD with b = 32 on synthetic data of unit rows, two
// removals, each served with the epochs the certificate needs; then the three findings
// side by side: the certificate recomputed, the exact quadratic oracle and the
// distinguishing game on 200 trials, which shows no violation but could not have caught a
// 2× one: supporting evidence, with the trials that would make it decisive.
func ExampleCheck() {
	ctx := context.Background()
	ds, err := reference.SyntheticClassification(512, 10, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := sgluaudit.New(ctx, sgluaudit.Setup{Loss: reference.Logistic{Lambda: 0.05}, Data: ds.NormalizeRows(),
		Removals: []int64{ds.ID(0), ds.ID(7)}, Batch: 32, Sigma: 0.05, Epochs: 3, Radius: 10, Epsilon: 1, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	trials, err := trials.Engine{}.Run(ctx, s, 1, 200)
	if err != nil {
		fmt.Println(err)
		return
	}
	findings, err := sgluaudit.Check(ctx, s, trials, audit.CheckOptions{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("epochs per removal:", s.UnlearnEpochs())
	for _, f := range findings {
		fmt.Println(f.Verdict, f.Check)
		if f.Power != nil {
			fmt.Println("  power:", f.Power.Summary())
		}
	}
	// the empirical game is supporting evidence: the required findings decide
	fmt.Println("subject:", verdict.Decide(s.Claim(), findings))
	// Output:
	// epochs per removal: [1 1]
	// PASS sglu/certificate
	// PASS sglu/exact-oracle
	// PASS sglu/noise
	//   power: would catch a 2× violation with probability 1.00; catches ≥ 1.25× violations with 80 % power
	// PASS sglu/coupled-replay
	// INCONCLUSIVE sglu/empirical/epsilon-lower-bound
	//   power: would catch a 2× violation with probability 0.00; catches ≥ 6.01× violations with 80 % power; about 6742 trials per side would catch 2× with 80 % power (the question: split game, the better of 2 score families, each test at 97.5 % confidence, a Gaussian leak; `audit plan --trials 200 --delta 0.001953125 --epsilon 1 --power-against 2 --power 0.8 --confidence 0.975` asks it)
	// INCONCLUSIVE sglu/empirical/membership
	//   power: would catch a 2× violation with probability 0.00; catches ≥ 6.01× violations with 80 % power; about 6742 trials per side would catch 2× with 80 % power (the question: split game per deleted record, 2 records, each test at 97.5 % confidence, a Gaussian leak; `audit plan --trials 200 --delta 0.001953125 --epsilon 1 --power-against 2 --power 0.8 --confidence 0.975` asks it)
	// subject: PASS
}
