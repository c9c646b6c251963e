package verdict

import (
	"slices"
)

// A Claim is what a method certifies, with the arithmetic that produced it, so a report can
// show every step and a reader can redo it.
type Claim struct {
	Method    string  `json:"method"`    // e.g. "Descent-to-Delete, perturbed GD, secret state"
	Source    string  `json:"source"`    // paper and theorem
	Guarantee string  `json:"guarantee"` // e.g. "(ε, δ)-unlearning"
	Epsilon   float64 `json:"epsilon"`
	Delta     float64 `json:"delta"`
	// Rho, when positive, is a Rényi curve the derivation also certifies:
	// D_α(unlearned ‖ retrained) ≤ α·Rho for every α > 1 (zCDP).
	Rho         float64  `json:"rho,omitempty"`
	Relation    string   `json:"relation"` // the neighbouring relation the claim is about
	Assumptions []string `json:"assumptions"`
	Constants   []Value  `json:"constants"`
	Derivation  []Step   `json:"derivation"`
	Notes       []string `json:"notes,omitempty"`
	// Required names the kinds of finding that decide the verdict (Decide). An audit that
	// runs the method itself requires certificate, implementation and release checks and
	// reports the empirical game as supporting evidence; a black-box audit of saved
	// models requires the empirical checks. Empty: every finding decides.
	Required []Kind `json:"required,omitempty"`
}

// StateHolding are the kinds an audit that holds the method's state requires.
var StateHolding = []Kind{Certificate, Implementation, Release}

// Requires reports whether findings of kind k decide the claim's verdict.
func (c Claim) Requires(k Kind) bool {
	return len(c.Required) == 0 || slices.Contains(c.Required, k)
}

// A Value is a named number.
type Value struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// A Step is one line of a derivation: a quantity, the formula that gives it, its value.
type Step struct {
	Quantity string  `json:"quantity"`
	Formula  string  `json:"formula"`
	Value    float64 `json:"value"`
}
