package multiclass

import (
	"math"
	"math/rand/v2"
	"testing"
)

// LogOdds is log p_y − log Σ_{k≠y} p_k with the probabilities from the model's loss
// (p_k = e^(−(ℓ(w; x, k) − λ‖w‖²/2))), on Softmax and an MLP at ordinary weights, where
// that route is accurate too: to 1e-12 relative (its roundings are a few ulps of values of
// order one). Planted and caught: z_y left in the sum (the log-odds of p_y against every
// class, its own included).
func TestLogOddsFromTheLoss(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, m := range []Network{Softmax{K: 4, P: 3, Lambda: 0.1}, MLP{Sizes: []int{3, 5, 4}, Lambda: 0.1}} {
		for range 50 {
			w := make([]float64, m.Dim())
			for i := range w {
				w[i] = r.NormFloat64()
			}
			x := []float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
			y := r.IntN(m.Classes())
			reg := m.Regularization() / 2 * sqNorm(w)
			var rest float64
			for k := range m.Classes() {
				if k != y {
					rest += math.Exp(-(m.Loss(w, x, k) - reg))
				}
			}
			want := -(m.Loss(w, x, y) - reg) - math.Log(rest)
			got := LogOdds(m, w, x, y, make([]float64, m.Classes()))
			if math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) {
				t.Fatalf("%s, class %d: LogOdds %v, from the loss %v", m.Name(), y, got, want)
			}
		}
	}
}
