package safeaudit

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

func close(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if math.Abs(got-want) > rel*math.Abs(want) {
		t.Errorf("%s = %.17g; want %.17g", what, got, want)
	}
}

// Worked by hand at U = 1, W = 4, K = 2, T = 16, where γ = √4/(2·√16) = 0.25: Theorem 2(i)
// printed 4.5·2·8·4 + 2/8 = 288.25, by the proof's algebra (1/0.5)(144 + 0.0625) = 288.125,
// conservative 2(144 + 0.25) = 288.5, against the trivial 2UW = 8; Theorem 2(ii) with
// V_T = 0: 16·0.125 + 144/0.5 = 290, conservative 8 + 416 = 424, trivial 128. Theorem 1 at
// C = 10, m = 400, |D_t| = 10 000: 0.004. Theorem 2(iii)'s σ at W = 1, ε = 1, δ = 1e-5:
// √(2 ln 125 000) = 4.844805262605389 (Python's math). The exact δ at Δ = 1, σ = 2,
// ε = 0.5: 0.05244032328766951 (SciPy's norm.cdf).
func TestBoundsByHand(t *testing.T) {
	close(t, "γ", Gamma(4, 2, 16), 0.25, 1e-15)
	close(t, "Thm2iBoundPaperPrinted", Thm2iBoundPaperPrinted(1, 4, 2, 16), 288.25, 1e-15)
	close(t, "Thm2iBoundPaperAlgebra", Thm2iBoundPaperAlgebra(1, 4, 2, 16), 288.125, 1e-15)
	close(t, "Thm2iBoundConservative", Thm2iBoundConservative(1, 4, 2, 16), 288.5, 1e-15)
	close(t, "TrivialPerRoundBound", TrivialPerRoundBound(1, 4), 8, 0)
	close(t, "Thm2iiBoundPaper", Thm2iiBoundPaper(1, 4, 2, 0, 16), 290, 1e-15)
	close(t, "Thm2iiBoundConservative", Thm2iiBoundConservative(1, 4, 2, 0, 16), 424, 1e-15)
	close(t, "TrivialRegretBound", TrivialRegretBound(1, 4, 16), 128, 0)
	close(t, "Thm1Bound", Thm1Bound(10, 400, 10000), 0.004, 1e-15)
	close(t, "Thm1BoundConsistent", Thm1BoundConsistent(1000, 1, 10000), 10, 1e-15)
	close(t, "NoiseScalePaper", NoiseScalePaper(1, 1, 1e-5), 4.844805262605389, 1e-15)
	close(t, "GaussEpsClassic", GaussEpsClassic(2, 4.844805262605389, 1e-5), 2, 1e-15)
	close(t, "GaussDeltaAnalytic", GaussDeltaAnalytic(0.5, 1, 2), 0.05244032328766951, 1e-9)
	close(t, "GaussRenyi", GaussRenyi(3, 2, 4), 0.375, 1e-15)
	close(t, "SensitivityNeeded", SensitivityNeeded(3, 0.5), 6.5, 0)
	close(t, "PathLength", PathLength([][]float64{{0, 0}, {3, 4}, {3, 4}, {0, 0}}), 10, 1e-15)
	close(t, "MeanShift", MeanShift([]float64{1, 0}, []float64{2, 0}, []float64{0, 0}, 0.5), 0.5, 1e-15)
	// the spec's vacuity threshold: K = 2.5, W = 10 gives T > 317 (spec safe §3.5):
	// (0.2 + 112.5)²/40 = 317.53225
	close(t, "RegretVacuousBelow", RegretVacuousBelow(10, 2.5), 317.53225, 1e-14)
}

// The identities between the forms, on random settings: the printed Theorem 2(i) exceeds
// the algebra by exactly the lost half, U√W/(2K√T); the conservative form exceeds it by
// (U/(2γ))·3γ²; the paper's regret bound exceeds the trivial one exactly below
// RegretVacuousBelow; per round, the paper's bound exceeds 2UW whenever
// 2.25·K·√(W·T) > 1.
func TestBoundIdentities(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		U := float64(rapid.IntRange(1, 1000).Draw(t, "U·100")) / 100
		W := float64(rapid.IntRange(1, 1000).Draw(t, "W·100")) / 100
		K := float64(rapid.IntRange(1, 1000).Draw(t, "K·100")) / 100
		T := rapid.IntRange(1, 10000).Draw(t, "T")
		g := Gamma(W, K, T)
		if d := Thm2iBoundPaperPrinted(U, W, K, T) - Thm2iBoundPaperAlgebra(U, W, K, T); math.Abs(d-U*math.Sqrt(W)/(2*K*math.Sqrt(float64(T)))) > 1e-9*Thm2iBoundPaperPrinted(U, W, K, T) {
			t.Fatalf("printed − algebra = %v", d)
		}
		if d := Thm2iBoundConservative(U, W, K, T) - Thm2iBoundPaperAlgebra(U, W, K, T); math.Abs(d-1.5*U*g) > 1e-9*Thm2iBoundConservative(U, W, K, T) {
			t.Fatalf("conservative − algebra = %v; want 1.5Uγ = %v", d, 1.5*U*g)
		}
		if 2.25*K*math.Sqrt(W*float64(T)) > 1 && Thm2iBoundPaperPrinted(U, W, K, T) <= TrivialPerRoundBound(U, W) {
			t.Fatalf("Theorem 2(i) %v does not exceed the trivial %v", Thm2iBoundPaperPrinted(U, W, K, T), TrivialPerRoundBound(U, W))
		}
		below := RegretVacuousBelow(W, K)
		paper, trivial := Thm2iiBoundPaper(U, W, K, 0, T), TrivialRegretBound(U, W, T)
		if margin := 1e-9 * trivial; (float64(T) < below*(1-1e-9) && paper < trivial-margin) || (float64(T) > below*(1+1e-9) && paper > trivial+margin) {
			t.Fatalf("T = %d against the horizon %v: the paper's regret %v, the trivial %v", T, below, paper, trivial)
		}
	})
}
