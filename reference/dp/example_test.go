package dp_test

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/reference/dp"
)

func ExampleGaussianSigma() {
	sens := 0.01
	sigma := dp.GaussianSigma(sens, 1, 1e-6)
	fmt.Printf("σ = %.5f certifies ε = %.3f by Lemma A.3; the exact profile gives ε = %.3f\n",
		sigma, dp.GaussianEpsilon(sens, sigma, 1e-6), dp.GaussianExactEpsilon(sens/sigma, 1e-6))
	// Output: σ = 0.05350 certifies ε = 1.000 by Lemma A.3; the exact profile gives ε = 0.776
}

func ExampleRDPToDP() {
	fmt.Printf("classic %.3f, improved %.3f\n", dp.RDPToDP(dp.Classic, 8, 1.3, 1e-5), dp.RDPToDP(dp.Improved, 8, 1.3, 1e-5))
	// Output: classic 2.945, improved 2.514
}
