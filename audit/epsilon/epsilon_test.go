package epsilon

import (
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"pgregory.net/rapid"
)

type golden struct {
	CP struct {
		Cases []struct {
			K, N         int
			Lower, Upper float64
		}
	} `json:"clopper_pearson"`
	TF struct {
		TP, FP   []int
		NPos     int `json:"n_pos"`
		NNeg     int `json:"n_neg"`
		Alpha    float64
		BaileyV  []float64 `json:"bailey"`
		KatzLogV []float64 `json:"katz_log"`
	} `json:"tf_privacy_ratio"`
}

func loadGolden(t *testing.T) golden { return testenv.ReadGolden[golden](t) }

func TestGoldenClopperPearson(t *testing.T) {
	for _, c := range loadGolden(t).CP.Cases {
		lo, hi := ClopperPearson(c.K, c.N, 0.95)
		// R prints 7 significant digits: half a unit in the 7th digit
		if math.Abs(lo-c.Lower) > 5e-7*math.Max(c.Lower, 1e-300)+1e-12 || math.Abs(hi-c.Upper) > 5e-7*c.Upper {
			t.Errorf("CP(%d/%d) = [%.9g, %.9g], R gives [%.7g, %.7g]", c.K, c.N, lo, hi, c.Lower, c.Upper)
		}
	}
}

func TestGoldenTFPrivacyRatioBounds(t *testing.T) {
	g := loadGolden(t).TF
	for i := range g.TP {
		bailey := RatioLowerBound(Bailey, g.TP[i], g.NPos, g.FP[i], g.NNeg, g.Alpha)
		katz := RatioLowerBound(KatzLog, g.TP[i], g.NPos, g.FP[i], g.NNeg, g.Alpha)
		// the docstring prints 4 decimals: tolerance half a unit in the last place
		if math.Abs(bailey-g.BaileyV[i]) > 5e-5 || math.Abs(katz-g.KatzLogV[i]) > 5e-5 {
			t.Errorf("tp=%d fp=%d: Bailey %.5f (TF Privacy %.4f), Katz-log %.5f (TF Privacy %.4f)",
				g.TP[i], g.FP[i], bailey, g.BaileyV[i], katz, g.KatzLogV[i])
		}
	}
}

// gaussianScores draws n scores of the unit-variance Gaussian pair N(μ, 1) (the side the
// rule should flag) and N(0, 1): the likelihood-ratio score of a Gaussian mechanism with
// normalised sensitivity μ, whose exact (ε, δ) is dp.GaussianExactEpsilon(μ, δ).
func gaussianScores(n int, mu float64, seed uint64) (pos, neg []float64) {
	r := reference.Stream(seed, 0, "gauss-scores")
	pos, neg = make([]float64, n), make([]float64, n)
	for i := range n {
		pos[i] = mu + r.NormFloat64()
		neg[i] = r.NormFloat64()
	}
	return pos, neg
}

// The ε lower bound never exceeds the true ε of a Gaussian mechanism. At confidence
// 1 − 1e-4 each repetition exceeds it with probability at most 1e-4, so over the
// repetitions below the test fails falsely with probability at most 0.02 (union bound);
// both strategies, several (μ, δ), 200 repetitions (40 under -short).
func TestLowerBoundNeverExceedsTruth(t *testing.T) {
	reps := 200
	if testing.Short() {
		reps = 40
	}
	cases := []struct{ mu, delta float64 }{{0.5, 1e-5}, {1, 0.1269}, {2, 1e-3}, {4, 1e-6}}
	runs := reps / len(cases) / 2 // split and Bonferroni share the repetitions
	for _, c := range cases {
		truth := dp.GaussianExactEpsilon(c.mu, c.delta)
		for _, s := range []Strategy{Split, Bonferroni} {
			g := Game{Delta: c.delta, Confidence: 1 - 1e-4, Strategy: s}
			for rep := range runs {
				pos, neg := gaussianScores(1000, c.mu, uint64(rep))
				res, err := g.LowerBound(pos, neg)
				if err != nil {
					t.Fatal(err)
				}
				if res.Epsilon > truth {
					t.Fatalf("μ=%v δ=%v %s rep %d: ε_LB = %v exceeds the true ε = %v (rule %+v, counts %+v)",
						c.mu, c.delta, s, rep, res.Epsilon, truth, res.Rule, res.Counts)
				}
				gdp, err := g.GDP(pos, neg)
				if err != nil {
					t.Fatal(err)
				}
				if gdp.Mu > c.mu {
					t.Fatalf("μ=%v %s rep %d: GDP lower bound on μ is %v", c.mu, s, rep, gdp.Mu)
				}
			}
		}
	}
}

// With 5 000 trials per side, a Gaussian mechanism of ε = 1 (μ = 1, for which ε = 1
// exactly at δ = δ(1) ≈ 0.127) is bounded within a factor 2: ε_LB ≥ 0.5. The split bound
// at 95 % sits near 0.8 with a standard deviation near 0.05 over seeds, so 0.5 is six
// deviations away; ten seeds are checked.
func TestLowerBoundWithinFactorTwo(t *testing.T) {
	delta := dp.GaussianExactDelta(1, 1)
	if math.Abs(dp.GaussianExactEpsilon(1, delta)-1) > 1e-9 {
		t.Fatal("the setup does not have ε = 1")
	}
	for seed := range 10 {
		pos, neg := gaussianScores(5000, 1, uint64(seed))
		res, err := Game{Delta: delta, Strategy: Split}.LowerBound(pos, neg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Epsilon < 0.5 || res.Epsilon > 1 {
			t.Errorf("seed %d: ε_LB = %v, want within [0.5, 1] (truth 1)", seed, res.Epsilon)
		}
		if seed == 0 {
			t.Logf("ε_LB = %.3f at %+v (point estimate %.3f)", res.Epsilon, res.Rule, res.Point)
		}
	}
}

func TestCompetitionHandComputed(t *testing.T) {
	// medians 1.5 and 4: the retrained sample is the positive class. Every single threshold
	// has one zero error rate (discarded); the best double threshold around the unlearned
	// sample, e.g. [0, 2.6], has FPR = FNR = 1/4: ε = ln((1 − 1e−5 − 1/4)/(1/4)).
	u := []float64{0, 1, 2, 3}
	r := []float64{2.5, 3.5, 4.5, 5.5}
	want := math.Log((1 - 1e-5 - 0.25) / 0.25)
	if got := CompetitionEpsilon(u, r); math.Abs(got-want) > 1e-12 {
		t.Fatalf("ε = %.15g, hand computation %.15g", got, want)
	}
	// N = 4: E_max = ⌈ln 3⌉ = 2; ε ≈ 1.099 lies in [1, 1.5): 2^(−2) points
	res, err := Competition([][]float64{{0}, {1}, {2}, {3}}, [][]float64{{2.5}, {3.5}, {4.5}, {5.5}})
	if err != nil || res.EMax != 2 || res.Score != 0.25 {
		t.Fatalf("result %+v, %v; want E_max 2 and F = 0.25", res, err)
	}
	// perfect separation: both rates 0 for some rule, ε = +∞, clipped to 50, no points
	if e := CompetitionEpsilon([]float64{0, 1, 2}, []float64{10, 11, 12}); e != CompetitionCap {
		t.Fatalf("separated samples: ε = %v, want the cap 50", e)
	}
	// peaky guard: a range below 1 % of the other's gives 50
	if e := CompetitionEpsilon([]float64{1, 1.001, 1.002}, []float64{0, 5, 10}); e != CompetitionCap {
		t.Fatalf("peaky sample: ε = %v, want 50", e)
	}
	if p := CompetitionPoints(0.49, 7); p != 1 {
		t.Fatalf("ε in [0, 0.5) earns 1 point, got %v", p)
	}
	if p := CompetitionPoints(7, 7); p != 0 {
		t.Fatalf("ε ≥ E_max earns 0, got %v", p)
	}
	if s := CompetitionFinalScore(0.5, 0.9, 1, 0.8, 1); math.Abs(s-0.36) > 1e-12 {
		t.Fatalf("final score %v", s)
	}
}

// The scorer evaluates one grid point per interval between sample values; the maximum must
// equal a brute-force scan of every grid point.
func TestCompetitionMatchesFullGridScan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(3, 12).Draw(t, "n")
		draw := func(label string) []float64 {
			s := make([]float64, n)
			for i := range s {
				s[i] = float64(rapid.IntRange(-150, 150).Draw(t, label)) / 100 // values on and off the grid
				if rapid.Bool().Draw(t, label+"off") {
					s[i] += 0.003
				}
			}
			return s
		}
		u, r := draw("u"), draw("r")
		got := CompetitionEpsilon(u, r)
		if want := bruteCompetition(u, r); got != want {
			t.Fatalf("fast scan %v, full grid %v", got, want)
		}
	})
}

// bruteCompetition is CompetitionEpsilon with every grid point enumerated.
func bruteCompetition(unlearned, retrained []float64) float64 {
	u, r := slices.Clone(unlearned), slices.Clone(retrained)
	sort.Float64s(u)
	sort.Float64s(r)
	pos, neg := u, r
	if median(r) > median(u) {
		pos, neg = r, u
	}
	narrow, wide := u, r
	if span(r) < span(u) {
		narrow, wide = r, u
	}
	if span(narrow) < 0.01*span(wide) {
		return CompetitionCap
	}
	lo := math.Min(u[0], r[0])
	hi := math.Max(u[len(u)-1], r[len(r)-1])
	g := grid{lo: lo, step: competitionGrid}
	best := 0.0
	consider := func(fpr, fnr float64) {
		switch {
		case fpr == 0 && fnr == 0:
			best = math.Inf(1)
		case fpr == 0 || fnr == 0:
		default:
			best = math.Max(best, epsFromRates(fpr, fnr, CompetitionDelta))
		}
	}
	for k := 0; g.at(k) <= hi+1e-12; k++ {
		t := g.at(k)
		consider(float64(countIn(neg, t, math.Inf(1)))/float64(len(neg)), 1-float64(countIn(pos, t, math.Inf(1)))/float64(len(pos)))
	}
	m := median(narrow)
	for kl := 0; g.at(kl) <= m+1e-12; kl++ {
		l := g.at(kl)
		if l < narrow[0]-1e-12 {
			continue
		}
		for kr := kl; g.at(kr) <= narrow[len(narrow)-1]+1e-12; kr++ {
			rr := g.at(kr)
			if rr < m-1e-12 {
				continue
			}
			consider(float64(countIn(wide, l, rr))/float64(len(wide)), 1-float64(countIn(narrow, l, rr))/float64(len(narrow)))
		}
	}
	return math.Min(CompetitionCap, math.Max(0, best))
}

func TestPlannerResolution(t *testing.T) {
	prev := 0.0
	for _, n := range []int{20, 100, 1000, 10000, 100000} { // below ~20, no rule can show ε > 0
		m := MaxCertifiable(n, 1e-5, 0.95, Split)
		if !(m > prev) || m > math.Log(float64(n)) {
			t.Fatalf("N=%d: max certifiable %v (previous %v); want increasing and below ln N = %v", n, m, prev, math.Log(float64(n)))
		}
		prev = m
		need, err := TrialsForResolution(m*0.999, 1e-5, 0.95, Split)
		if err != nil || need > n || MaxCertifiable(need, 1e-5, 0.95, Split) <= m*0.999 {
			t.Fatalf("N=%d: TrialsForResolution gives %d (%v)", n, need, err)
		}
	}
}

// The planner's trial count is checked by simulation: at the count it returns, a Gaussian
// pair with twice the claimed ε must be caught (ε_LB > claim) in at least the promised
// 80 % of seeded games. The planner's power is conservative, so the simulated rate sits
// above it; with 200 games the test falsely fails with probability below 1e-4 even if the
// true power were exactly 0.8 (binomial tail at 0.8 − 4.2σ).
func TestPlannerTrialsAchievePower(t *testing.T) {
	spec := PowerSpec{Claim: 0.5, Factor: 2, Power: 0.8, Delta: 0.05, Conf: 0.95}
	n, mu, err := TrialsToDetect(spec)
	if err != nil {
		t.Fatal(err)
	}
	games := 200
	if testing.Short() {
		games = 60
	}
	caught := 0
	for seed := range games {
		pos, neg := gaussianScores(n, mu, uint64(seed))
		res, _ := Game{Delta: spec.Delta, Confidence: spec.Conf, Strategy: Split}.LowerBound(pos, neg)
		if res.Epsilon > spec.Claim {
			caught++
		}
	}
	rate := float64(caught) / float64(games)
	t.Logf("planner: %d trials per side (μ = %.3f); caught %d of %d", n, mu, caught, games)
	if rate < 0.8-4.2*math.Sqrt(0.16/float64(games)) {
		t.Fatalf("caught %d of %d games at the planned %d trials; promised 80 %%", caught, games, n)
	}
}
