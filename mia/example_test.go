package mia_test

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/mia"
	"gonum.org/v1/gonum/mat"
)

func ExampleEvaluate() {
	members := []float64{2.1, 1.8, 0.9, 2.5, 1.2, 3.0, 0.4, 1.9}
	others := []float64{0.2, -0.5, 1.0, 0.1, -1.2, 0.6, 0.3, -0.1}
	m, _ := mia.Evaluate(members, others, 1000, 0.95, 1)
	fmt.Printf("AUC %.3f, balanced accuracy %.3f\n", m.AUC.Value, m.BalancedAccuracy.Value)
	// Output: AUC 0.953, balanced accuracy 0.875
}

func ExampleFitLiRA() {
	// scores of 3 examples under 6 shadow models; in[i][k]: example k trained shadow i
	scores := mat.NewDense(6, 3, []float64{
		2.1, 0.3, 1.0,
		1.9, 0.2, 0.4,
		2.3, 0.9, 1.1,
		0.5, 1.0, 0.3,
		0.7, 0.8, 1.2,
		0.4, 0.1, 0.5,
	})
	in := [][]bool{{true, false, true}, {true, false, false}, {true, true, true}, {false, true, false}, {false, true, true}, {false, false, false}}
	l, _ := mia.FitLiRA(scores, in, mia.LiRAOptions{})
	stat := make([]float64, 3)
	l.Statistic(stat, []float64{2.0, 0.2, 0.8}) // a target model's scores
	fmt.Printf("membership statistics: %.2f %.2f %.2f\n", stat[0], stat[1], stat[2])
	// Output: membership statistics: 45.70 -24.50 3.50
}
