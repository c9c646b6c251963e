package sgluaudit

import (
	"math"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference/sglu"
)

// Spec vectors for the bound functions no check calls (spec sglu §3.3, §3.5, §3.11,
// §3.12), each recomputed by hand from the spec's formula on one problem: L = 2
// (smoothness), M = 1, m = 0.5, η = 0.4, n = 100, b = 10, R = 3, so c = 1 − ηm = 0.8 and
// n/b = 10 steps an epoch.
func TestBoundsSpecVectors(t *testing.T) {
	p := sglu.Problem{Smoothness: 2, Lipschitz: 1, StrongConvexity: 0.5, StepSize: 0.4, N: 100, Batch: 10, Radius: 3}
	rel := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("%s = %.15g; want %.15g", name, got, want)
		}
	}
	// §3.3 (Lemma 3.6): c^{T·n/b}·W0 = 0.8^{20}·6 after T = 2 epochs from W0 = 2R
	rel("W8ToStationary", W8ToStationary(p, 2, 6), math.Pow(0.8, 20)*6)
	// §3.5: min(2M/(b·m), 2R) = min(0.4, 6); at b = 1 and m = 0.1, min(20, 6) = 6; m = 0: 2R
	rel("ZBPerIterationSampling", ZBPerIterationSampling(p), 0.4)
	q := p
	q.Batch, q.StrongConvexity = 1, 0.1
	rel("ZBPerIterationSampling (capped)", ZBPerIterationSampling(q), 6)
	q.StrongConvexity = 0
	rel("ZBPerIterationSampling (m = 0)", ZBPerIterationSampling(q), 6)
	// §3.11 (Thm M.2): 4αS²M²/(mσ²n²)·(1 − e^{−mηT}) at α = 10, σ = 0.5, η = 0.4, T = 50,
	// n = 100, S = 2, M = 1, m = 0.5: 160/(0.5·0.25·1e4)·(1 − e^{−10})
	rel("LULearningRDP", LULearningRDP(10, 0.5, 0.4, 50, 100, 2, 1, 0.5), 160/(0.5*0.25*1e4)*(1-math.Exp(-10)))
	// §3.12: (L − m)/(L + m) = 1.5/2.5
	rel("D2DGamma", D2DGamma(p), 0.6)
}
