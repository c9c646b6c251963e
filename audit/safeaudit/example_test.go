package safeaudit_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/safeaudit"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"github.com/unlearnaudit/unlearnaudit/reference/safe"
	"gonum.org/v1/gonum/mat"
)

// Audit SAFE on three-class softmax regression: 240 training records, a stream of four
// rounds of 10 deletions, 40 trials. The certificate, the implementation round by round
// and the release decide; the empirical attacks are left out (audit.Attacks{}: their power
// planning takes time), and the paper's SVC membership attack on the stream, on so few
// records, stays INCONCLUSIVE beside them.
func ExampleCheck() {
	r := rand.New(rand.NewPCG(5, 6))
	build := func(n int) *multiclass.Data {
		x := mat.NewDense(n, 4, nil)
		y := make([]int, n)
		for i := range n {
			y[i] = r.IntN(3)
			for j := range 4 {
				x.Set(i, j, r.NormFloat64()+0.8*float64((y[i]+j)%3))
			}
		}
		d, err := multiclass.NewData(x, y, 3)
		if err != nil {
			panic(err)
		}
		return d
	}
	train, test := build(240), build(120)
	ids := make([]int64, train.Len())
	for i := range ids {
		ids[i] = int64(1000 + i)
	}
	stream, err := safe.RandomStream(train.Len(), 4, 10, rand.New(rand.NewPCG(7, 8)))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	s, err := safeaudit.New(ctx, safeaudit.Setup{Model: multiclass.Softmax{K: 3, P: 4, Lambda: 0.05}, Train: train, Test: test, IDs: ids,
		Stream: stream, Config: safe.Config{Lambda: 100, K: 2.5, Proj: 3}, Epsilon: 1, Delta: 1e-5, Seed: 3})
	if err != nil {
		panic(err)
	}
	trials, err := trials.Engine{}.Run(ctx, s, 2, 40)
	if err != nil {
		panic(err)
	}
	findings, err := safeaudit.Check(ctx, s, trials, audit.CheckOptions{Seed: 2, MIASamples: 20, Attacks: audit.Attacks{}})
	if err != nil {
		panic(err)
	}
	for _, f := range findings {
		fmt.Println(f.Verdict, f.Check)
	}
	fmt.Println("subject:", verdict.Decide(s.Claim(), findings))
	// Output:
	// PASS safe/certificate/sigma
	// PASS safe/certificate/sensitivity
	// PASS safe/implementation/recursion
	// PASS safe/implementation/step
	// PASS safe/implementation/published
	// PASS safe/release/renyi
	// PASS safe/release/exact-epsilon
	// INCONCLUSIVE safe/stream/svc-attack
	// subject: PASS
}
