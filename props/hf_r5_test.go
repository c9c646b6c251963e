package props_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference/hf"
)

// R5 and A4 (spec hf §4.4–4.5, the report form of the paper's Figs. 10 and 11), on ten
// fixed softmax problems (λ = 0.1, η·M = 0.5, batch 8 of 40, four records removed), so the
// outcome is fixed, not random:
//
//   - the error grows with the epochs and the growth slows (from 8→16 to 16→32 epochs the
//     ratio falls) in every case — Fig. 10's "converges to a constant" for LR, not yet
//     reached at 32 epochs;
//   - decay helps: q = 0.99 gives a smaller error than q = 1 at 8 epochs in at least 8 of
//     10 (Fig. 11);
//   - A4, Corollary 5's trend, is not what a fixed η shows: log‖Δ‖ does not decrease in T;
//     the slope between 16 and 32 epochs is logged and must stay positive, so the test
//     fails if the implementation starts to show the paper's trend.
func TestHFRegimeEpochsAndDecay(t *testing.T) {
	decayHelps := 0
	for seed := range uint64(10) {
		probe := fixedHF(t, "softmax", 40, 1, 1, 0.01, 1, seed)
		eta := 0.5 / probe.Smoothness
		removed := rand.New(rand.NewPCG(seed, 8)).Perm(40)[:4]
		errAt := map[int]float64{}
		for _, e := range []int{4, 8, 16, 32} {
			errAt[e], _ = hfError(t, fixedHF(t, "softmax", 40, e, 8, eta, 0.99, seed), removed, hf.PaperOrder)
		}
		if !(errAt[32] > errAt[16] && errAt[16] > errAt[8] && errAt[8] > errAt[4]) {
			t.Errorf("seed %d: the error does not grow with the epochs: %v", seed, errAt)
		}
		if !(errAt[32]/errAt[16] < errAt[16]/errAt[8]) {
			t.Errorf("seed %d: the growth does not slow: %v", seed, errAt)
		}
		undecayed, _ := hfError(t, fixedHF(t, "softmax", 40, 8, 8, eta, 1, seed), removed, hf.PaperOrder)
		if errAt[8] <= undecayed {
			decayHelps++
		}
		t.Logf("seed %d: error at 4, 8, 16, 32 epochs %.3g %.3g %.3g %.3g; log-slope 16→32 %.2f; q = 1 at 8 epochs %.3g",
			seed, errAt[4], errAt[8], errAt[16], errAt[32], math.Log2(errAt[32]/errAt[16]), undecayed)
	}
	if decayHelps < 8 {
		t.Errorf("q = 0.99 beat q = 1 in %d of 10 cases; want at least 8", decayHelps)
	}
}
