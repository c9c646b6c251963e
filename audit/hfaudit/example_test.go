package hfaudit_test

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/hfaudit"
)

// Theorem 4 at the HF paper's own LR settings (η = 0.05, G = C = 5, q = 0.995, 15 epochs of
// 32 batches of 32), beside what the official code computes: the paper's bound is about
// 2 000 times the error the paper measures (about 0.21), the code's a different
// quantity.
func ExampleThm4PerSample() {
	p := hfaudit.Thm4Params{Eta: 0.05, G: 5, Q: 0.995, Rho: 1, T: 480, B: 32, BatchSize: 32}
	c1, c2, err := hfaudit.Thm4PerSample(p, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("Eq. 56: c1 = %.1f, c2 = %.4f\n", c1, c2)
	fmt.Printf("code:   %.7f\n", hfaudit.CodeBound(0.05, 5, 0.995, 1, 1000, 15, 32, 1))
	// Output:
	// Eq. 56: c1 = 412.6, c2 = 0.0959
	// code:   0.0929951
}
