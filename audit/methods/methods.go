// Package methods registers every method's audit with package audit. A front end imports
// it for its side effect:
//
//	import _ "github.com/unlearnaudit/unlearnaudit/audit/methods"
//
// A new method adds its audit package's import here, and nothing under cmd/.
package methods

import (
	_ "github.com/unlearnaudit/unlearnaudit/audit/d2daudit"  // Descent-to-Delete
	_ "github.com/unlearnaudit/unlearnaudit/audit/hfaudit"   // Hessian-Free online certified unlearning
	_ "github.com/unlearnaudit/unlearnaudit/audit/oluaudit"  // Online Learning and Unlearning
	_ "github.com/unlearnaudit/unlearnaudit/audit/safeaudit" // SAFE streaming forgetting
	_ "github.com/unlearnaudit/unlearnaudit/audit/sgluaudit" // Stochastic Gradient Langevin Unlearning
)
