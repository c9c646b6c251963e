package hfaudit

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
)

// The membership score is the log-odds of the true class, z_y − log Σ_{k≠y} e^{z_k}, which
// lies between z_y − max_{k≠y} z_k − ln(K−1) and z_y − max_{k≠y} z_k: checked on softmax
// models whose weights run from ordinary to an HF release's (norms in the thousands, where
// the cross-entropy is e^(−1000) and below), on random records, and at ordinary weights it
// agrees with log p − log(1 − p) from the loss to that form's rounding (below), the form a
// model without logits gets, which at large weights is never NaN. Planted and caught: the
// score taken from the loss less its L2 term for every model, as it was (at large weights
// the cancellation leaves rounding: scores near 23 where the bound says thousands); the
// loss form's cross-entropy not kept at 0 or above (NaN).
func TestConfidenceScoreIsTheLogOdds(t *testing.T) {
	type lossOnly struct{ multiclass.Model } // Softmax without its logits: the loss form
	r := rand.New(rand.NewPCG(5, 6))
	for _, k := range []int{2, 3, 10} {
		m := multiclass.Softmax{K: k, P: 4, Lambda: 0.05}
		for _, scale := range []float64{0.1, 1, 100, 3000} {
			for range 50 {
				w := make([]float64, m.Dim())
				var sq float64
				for i := range w {
					w[i] = scale * r.NormFloat64()
					sq += w[i] * w[i]
				}
				x := []float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
				y := r.IntN(k)
				z := make([]float64, k)
				m.Logits(z, w, x)
				top := math.Inf(-1)
				for c, v := range z {
					if c != y {
						top = max(top, v)
					}
				}
				got := confidenceScore(m, w, x, y, make([]float64, k))
				hi := z[y] - top
				lo := hi - math.Log(float64(k-1))
				// the shift's, the log's and the subtractions' rounding: a few ulps of the
				// largest logit involved (16 allowed)
				slack := 16 * 0x1p-52 * max(1, math.Abs(z[y]), math.Abs(top))
				if !(got >= lo-slack && got <= hi+slack) {
					t.Fatalf("K = %d, weights ×%g, class %d: score %v outside [%v, %v]", k, scale, y, got, lo, hi)
				}
				// a model without logits: its loss form agrees at ordinary weights, and at an
				// HF release's it is a number (the cancellation's rounding, not NaN)
				fromLoss := confidenceScore(lossOnly{m}, w, x, y, nil)
				// the loss form's error: the cross-entropy, loss − reg, carries the rounding
				// of both (64 ulps of loss + reg allowed), and log p − log(1 − p) moves by
				// Δce/(1 − p) when ce moves by Δce; add the logits' slack
				loss, reg := m.Loss(w, x, y), m.Regularization()/2*sq
				tol := 64*0x1p-53*(loss+reg)/(-math.Expm1(reg-loss)) + slack
				if scale <= 1 && math.Abs(got-fromLoss) > tol {
					t.Fatalf("K = %d, weights ×%g: score %v, from the loss %v (%g apart, %g allowed)", k, scale, got, fromLoss, math.Abs(got-fromLoss), tol)
				}
				// ‖w‖² an ulp off the loss's own (summed in another order): the cancellation
				// then falls below 0
				off := lossLogOdds(lossOnly{m}, w, math.Nextafter(sq, math.Inf(1)), x, y)
				if math.IsNaN(fromLoss) || math.IsNaN(off) {
					t.Fatalf("K = %d, weights ×%g, class %d: the loss form's score is NaN (%v, %v)", k, scale, y, fromLoss, off)
				}
			}
		}
	}
}
