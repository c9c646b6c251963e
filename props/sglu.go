package props

import (
	"math"

	"github.com/unlearnaudit/unlearnaudit/audit/sgluaudit"
	"github.com/unlearnaudit/unlearnaudit/reference/sglu"
	"pgregory.net/rapid"
)

// SGLUProblem draws the constants of an SGLU bound (spec sglu §4 generator): L ∈ [0.05, 10],
// m = u·L with u log-uniform in [1e-4, 1], η = v/L with v ∈ [0.05, 1], M ∈ [0.01, 10],
// n ∈ [1, 4096] with b a random divisor of n, R log-uniform in [0.01, 1e3] or +Inf.
func SGLUProblem(t *rapid.T) sglu.Problem {
	L := scaled(t, 0.05, 10, "L")
	n := rapid.IntRange(1, 4096).Draw(t, "n")
	var divisors []int
	for b := 1; b <= n; b++ {
		if n%b == 0 {
			divisors = append(divisors, b)
		}
	}
	p := sglu.Problem{
		Smoothness:      L,
		StrongConvexity: L * logScaled(t, 1e-4, 1, "u"),
		StepSize:        scaled(t, 0.05, 1, "v") / L,
		Lipschitz:       scaled(t, 0.01, 10, "M"),
		N:               n,
		Batch:           rapid.SampledFrom(divisors).Draw(t, "b"),
		Radius:          math.Inf(1),
	}
	if rapid.Bool().Draw(t, "capped") {
		p.Radius = logScaled(t, 0.01, 1e3, "R")
	}
	return p
}

// QuadraticPNSGD is the exact oracle of spec sglu §4.1 (sgluaudit.QuadraticOracle, which
// the audit also runs on real data).
type QuadraticPNSGD = sgluaudit.QuadraticOracle
