package mia_test

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/mia"
)

func ExampleEvaluate() {
	members := []float64{2.1, 1.8, 0.9, 2.5, 1.2, 3.0, 0.4, 1.9}
	others := []float64{0.2, -0.5, 1.0, 0.1, -1.2, 0.6, 0.3, -0.1}
	m, _ := mia.Evaluate(members, others, 1000, 0.95, 1)
	fmt.Printf("AUC %.3f, balanced accuracy %.3f\n", m.AUC.Value, m.BalancedAccuracy.Value)
	// Output: AUC 0.953, balanced accuracy 0.875
}
