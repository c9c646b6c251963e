package sgluaudit_test

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/sgluaudit"
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
