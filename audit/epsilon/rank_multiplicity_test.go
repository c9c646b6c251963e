package epsilon

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// The rank test of k models is a Bonferroni test over the models (RankTest): each model's
// event {p ≤ t} has probability at most e^ε·t + δ under the claim, so the threshold
//
//	t_k = ((1 − confidence)/k − δ)/e^ε
//
// makes the probability that any of the k models fails at most k·(e^ε·t_k + δ) =
// 1 − confidence, whatever the dependence between the models' p-values (they share the
// references). These tests guard that multiplicity over k ≥ 2 models; every other rank
// test uses one model, where t_1 is the same with or without it.

// rankThresholdFormula is t_k written out again, for the tests to hold the code to.
func rankThresholdFormula(k int, eps, delta, conf float64) float64 {
	return ((1-conf)/float64(k) - delta) * math.Exp(-eps)
}

// binomialLimit is the least count q with P(Bin(n, p) > q) ≤ alpha: a count above it has
// probability at most alpha when the true rate is p or less.
func binomialLimit(n int, p, alpha float64) int {
	b := distuv.Binomial{N: float64(n), P: p}
	q := int(float64(n) * p)
	for 1-b.CDF(float64(q)) > alpha {
		q++
	}
	return q
}

// Property: under the null — k models drawn from the references' own law, so the claim
// holds with ε = 0, δ = 0 — the rank test of k = 2..7 models FAILs at most 1 − confidence
// of the time, on the randomised p-values (exactly uniform, so each model alone fails with
// probability exactly t_k and the k together at most k·t_k = 0.05) and on the conservative
// ones. 419 references (N + 1 = 420), 10 000 seeded tests per k; the count of FAILs is held
// below the binomial limit at 0.05 whose tail is 1e-6 (at most 607 of 10 000), so the
// test's false-failure probability is below 1.2e-5 over the 12 counts. Planted bug caught:
// the threshold of one model used for k (t_1 = 0.05): 2 models then fail 995 of the 10 000
// tests, 7 models 2 967.
func TestRankTestFalseFailRateOverKModels(t *testing.T) {
	const n, conf, alpha = 419, 0.95, 1e-6
	tests := 10000
	if testing.Short() {
		tests = 2500
	}
	limit := binomialLimit(tests, 1-conf, alpha)
	refs := make([]float64, n)
	for k := 2; k <= 7; k++ {
		r := rand.New(rand.NewPCG(uint64(k), 41))
		models := make([]float64, k)
		failsR, failsC := 0, 0
		for range tests {
			for i := range refs {
				refs[i] = r.NormFloat64()
			}
			for i := range models {
				models[i] = r.NormFloat64()
			}
			rr, err := Ranks(models, refs, 0, 0, conf, r)
			if err != nil {
				t.Fatal(err)
			}
			rc, err := Ranks(models, refs, 0, 0, conf, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rr.Violated {
				failsR++
			}
			if rc.Violated {
				failsC++
			}
		}
		t.Logf("k = %d: %d randomised and %d conservative FAILs of %d null tests (limit %d)", k, failsR, failsC, tests, limit)
		if failsR > limit || failsC > limit {
			t.Errorf("k = %d models exchangeable with %d references: %d (randomised) and %d (conservative) FAILs of %d tests; at 95 %% confidence at most %d",
				k, n, failsR, failsC, tests, limit)
		}
	}
}

// Property: the threshold of k models is t_k = ((1 − confidence)/k − δ)/e^ε, two-sided: the
// Threshold Ranks states equals it to rounding (1e-14 relative), RanksNeeded is the count
// the formula gives, ⌈1/t_k⌉ − 1, and a model below every reference, beside k − 1 above
// them all, FAILs with exactly that many references and not with one fewer — so the
// threshold applied lies in [1/(N + 1), 1/N) at N = RanksNeeded: not smaller, not larger.
// RanksMaxEpsilon(k, N) is the ε at which 1/(N + 1) meets t_k (within 1e-9 either side).
// Planted bugs caught: k ignored in rankThreshold (t_1 for every k: 38 references FAIL 2
// models at ε = 0, where t_2 = 0.025 needs 39) and in RanksMaxEpsilon (ln 3 = 1.10 stated
// for 2 models among 59 references, where they can show ln 1.5 = 0.41).
func TestRankThresholdIsBonferroniOverK(t *testing.T) {
	for _, c := range []struct{ eps, delta, conf float64 }{{0, 0, 0.95}, {1, 1e-3, 0.95}, {0.5, 1e-5, 0.99}, {2, 0, 0.9}} {
		for k := 1; k <= 7; k++ {
			want := rankThresholdFormula(k, c.eps, c.delta, c.conf)
			if !(want > 0) {
				t.Fatalf("case %+v, k = %d: t_k = %v; the case must let a model fail", c, k, want)
			}
			need := int(math.Ceil(1/want)) - 1
			if got := RanksNeeded(k, c.eps, c.delta, c.conf); got != need {
				t.Errorf("%+v, k = %d: RanksNeeded = %d; t_k = %.6g needs %d", c, k, got, want, need)
			}
			for _, refs := range []int{need - 1, need} {
				models := make([]float64, k)
				models[0] = -1 // below every reference
				for i := 1; i < k; i++ {
					models[i] = 1e6 // above every reference: p = 1
				}
				rt, err := Ranks(models, ascending(refs), c.eps, c.delta, c.conf, nil)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(rt.Threshold-want) > 1e-14*want {
					t.Errorf("%+v, k = %d: threshold %.17g; want t_k = %.17g", c, k, rt.Threshold, want)
				}
				if fail := refs == need; rt.Violated != fail || rt.Worst != 0 || rt.Min != 1/float64(refs+1) {
					t.Errorf("%+v, k = %d, one model below all %d references: violated %t (p = %v, t = %v); want %t",
						c, k, refs, rt.Violated, rt.Min, rt.Threshold, fail)
				}
			}
			e := RanksMaxEpsilon(k, need+20, c.delta, c.conf)
			if want := math.Log(float64(need+21) * ((1-c.conf)/float64(k) - c.delta)); math.Abs(e-want) > 1e-12*math.Max(1, want) {
				t.Errorf("%+v, k = %d: RanksMaxEpsilon = %v; want ln((N + 1)·((1 − conf)/k − δ)) = %v", c, k, e, want)
			}
			models := make([]float64, k)
			models[0] = -1
			for i := 1; i < k; i++ {
				models[i] = 1e6
			}
			in, _ := Ranks(models, ascending(need+20), e*(1-1e-9), c.delta, c.conf, nil)
			out, _ := Ranks(models, ascending(need+20), e*(1+1e-9)+1e-12, c.delta, c.conf, nil)
			if !in.Violated || out.Violated {
				t.Errorf("%+v, k = %d: RanksMaxEpsilon %v: just below shows %t, just above %t; want the edge", c, k, e, in.Violated, out.Violated)
			}
		}
	}
}

// ascending is n references 10, 11, … .
func ascending(n int) []float64 {
	refs := make([]float64, n)
	for i := range refs {
		refs[i] = 10 + float64(i)
	}
	return refs
}

// Property: RankPower's size at μ = 0 is the test's own over k models. With k models
// exchangeable with n references the chance that some model's conservative p-value is at
// most t_k is RankPower(k, n, 0), which the union bound holds to at most k·⌊t_k·(n + 1)⌋/(n + 1)
// ≤ 1 − confidence, and which is at least one model's chance, ⌊t_k·(n + 1)⌋/(n + 1).
// Planted bug caught: k ignored in the threshold (RankPower(2, 419, 0) = 0.0975 > 0.05).
func TestRankPowerSizeOverKModels(t *testing.T) {
	const n, conf = 419, 0.95
	for k := 1; k <= 7; k++ {
		one := math.Floor(rankThresholdFormula(k, 0, 0, conf)*(n+1)*(1+1e-12)) / (n + 1)
		p := RankPower(k, n, 0, 0, 0, conf)
		if p > float64(k)*one+1e-5 || p > 1-conf+1e-5 || p < one-1e-5 {
			t.Errorf("k = %d: size %v; want in [%v, min(%v, %v)] (1e-5: the quadrature's error)", k, p, one, float64(k)*one, 1-conf)
		}
	}
}
