package checks

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/internal/gausstest"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"gonum.org/v1/gonum/stat/distuv"
	"pgregory.net/rapid"
)

func checkGauss(t *testing.T, g gausstest.Subject, seed uint64, n int) []verdict.Finding {
	t.Helper()
	res, err := trials.Engine{}.Run(context.Background(), g, seed, n)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := GaussianRelease{Prefix: "t", Sigma: g.SigmaCalib, Rho: g.Rho, Epsilon: 1, Delta: 1e-6}.Check(res)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// Each case is one seeded run. For the correct release the false-FAIL probability is at
// most 1 − confidence = 0.05 (the noise tests share it by Bonferroni, and the
// divergence interval holds under them); the violating cases are far beyond the
// resolution of 200 trials × 10 coordinates, so they fail with probability ≈ 1.
func TestGaussianReleaseKnownAnswers(t *testing.T) {
	const d, sigma = 10, 0.5
	// exact D_2 at gap g is 2·g²/(2σ²); the claim is 2ρ* ≈ 0.0349, so a gap of 0.05
	// (D_2 = 0.01) passes and a gap of 0.2 (D_2 = 0.16) fails.
	cases := []struct {
		name     string
		mutate   func(*gausstest.Subject)
		verdict  verdict.Verdict
		infinite bool
	}{
		{"correct", func(*gausstest.Subject) {}, verdict.Pass, false},
		{"no noise on the unlearned side", func(g *gausstest.Subject) { g.SigmaU = 0 }, verdict.Fail, true},
		{"noise half the calibrated σ", func(g *gausstest.Subject) { g.SigmaU, g.SigmaR = sigma/2, sigma/2 }, verdict.Fail, false},
		// D_2 is infinite here: α·σ_r² + (1−α)·σ_u² = 2·0.25 − 1 < 0
		{"twice the noise on one side", func(g *gausstest.Subject) { g.SigmaU = 2 * sigma }, verdict.Fail, true},
		// a claimed-equal quantity is tested two-sided: √2σ on both sides lowers the
		// divergence, but the release is not the mechanism certified
		{"twice the noise variance on both sides", func(g *gausstest.Subject) { g.SigmaU, g.SigmaR = math.Sqrt2*sigma, math.Sqrt2*sigma }, verdict.Fail, false},
		{"published off the secret model", func(g *gausstest.Subject) { g.ShiftU = 0.3 }, verdict.Fail, false},
		{"means too far apart", func(g *gausstest.Subject) { g.MuU[0] = 0.2 }, verdict.Fail, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := gausstest.New(d, 0.05, sigma)
			c.mutate(&g)
			fs := checkGauss(t, g, 1, 200)
			renyi := fs[0]
			if renyi.Verdict != c.verdict {
				t.Fatalf("verdict %s, want %s: %v %+v %s", renyi.Verdict, c.verdict, renyi, renyi.Interval, renyi.Detail)
			}
			if c.infinite != math.IsInf(renyi.Measured, 1) {
				t.Fatalf("measured %v; want +Inf: %v", renyi.Measured, c.infinite)
			}
			// the scale test states its power: 200 trials × 10 coordinates resolve far
			// less than half or double the variance
			if !strings.Contains(renyi.Detail, "catches a variance off by 1.") {
				t.Errorf("detail does not state the noise test's power below 2×: %s", renyi.Detail)
			}
			if c.verdict == verdict.Pass {
				want := dp.RenyiGaussianIsotropic(2, 0.05, d, sigma, sigma)
				if !(renyi.Interval.Lower <= want && want <= renyi.Interval.Upper) {
					t.Fatalf("interval %+v misses the exact D_2 = %v", renyi.Interval, want)
				}
			}
		})
	}
}

// Over 200 seeds of a correct release the FAIL rate must stay at or below the stated 5 %.
// The count of FAILs is then at most Bin(200, 0.05), which exceeds 20 with probability
// 0.0012: that is this test's false-failure probability.
func TestGaussianReleaseFalseFailRate(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 60
	}
	// least k with P(Bin(seeds, 0.05) > k) ≤ 0.0012
	bin := distuv.Binomial{N: float64(seeds), P: 0.05}
	limit := 0
	for bin.Survival(float64(limit)) > 0.0012 {
		limit++
	}
	fails := 0
	for seed := range seeds {
		if fs := checkGauss(t, gausstest.New(10, 0.05, 0.5), uint64(seed+1), 40); fs[0].Verdict == verdict.Fail {
			fails++
		}
	}
	if fails > limit {
		t.Fatalf("%d of %d correct releases FAILed; the 5%% level allows at most %d here", fails, seeds, limit)
	}
}

func TestRenyiBoxContainsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		alpha := 1.1 + float64(rapid.IntRange(0, 100).Draw(t, "alpha"))/10
		d := rapid.IntRange(1, 50).Draw(t, "d")
		dist := float64(rapid.IntRange(0, 100).Draw(t, "dist")) / 50
		lo := func(label string) float64 { return 0.1 + float64(rapid.IntRange(0, 100).Draw(t, label))/50 }
		aLo, bLo := lo("aLo"), lo("bLo")
		A := verdict.Interval{Lower: aLo, Upper: aLo * (1 + float64(rapid.IntRange(0, 50).Draw(t, "aw"))/100)}
		B := verdict.Interval{Lower: bLo, Upper: bLo * (1 + float64(rapid.IntRange(0, 50).Draw(t, "bw"))/100)}
		box := renyiBox(alpha, dist, d, A, B)
		for range 20 {
			a := A.Lower + (A.Upper-A.Lower)*float64(rapid.IntRange(0, 100).Draw(t, "a"))/100
			b := B.Lower + (B.Upper-B.Lower)*float64(rapid.IntRange(0, 100).Draw(t, "b"))/100
			exact := dp.RenyiGaussianIsotropic(alpha, dist, d, math.Sqrt(a), math.Sqrt(b))
			if exact < box.Lower*(1-1e-12)-1e-12 || exact > box.Upper*(1+1e-12)+1e-12 {
				t.Fatalf("D_%v(a=%v, b=%v) = %v outside the box bound [%v, %v]", alpha, a, b, exact, box.Lower, box.Upper)
			}
		}
	})
}

func TestDecideUpper(t *testing.T) {
	for _, c := range []struct {
		iv   verdict.Interval
		want verdict.Verdict
	}{{verdict.Interval{Lower: 0.1, Upper: 0.4}, verdict.Pass}, {verdict.Interval{Lower: 0.6, Upper: 0.9}, verdict.Fail}, {verdict.Interval{Lower: 0.4, Upper: 0.6}, verdict.Inconclusive}, {verdict.Interval{Lower: 0.5, Upper: 0.5}, verdict.Pass}} {
		if got := verdict.DecideUpper(c.iv, 0.5); got != c.want {
			t.Errorf("DecideUpper(%v, 0.5) = %s, want %s", c.iv, got, c.want)
		}
	}
	if verdict.Worst(nil) != verdict.Inconclusive || verdict.Worst([]verdict.Finding{{Verdict: verdict.Pass}, {Verdict: verdict.Inconclusive}}) != verdict.Inconclusive ||
		verdict.Worst([]verdict.Finding{{Verdict: verdict.Inconclusive}, {Verdict: verdict.Fail}}) != verdict.Fail || verdict.Worst([]verdict.Finding{{Verdict: verdict.Pass}}) != verdict.Pass {
		t.Error("Worst combines verdicts wrongly")
	}
}
