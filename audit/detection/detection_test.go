package detection

import (
	"path/filepath"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/artifact"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// binomialLimit is the largest count of n audits that a false-FAIL rate of at most p
// exceeds with probability below 1e-4.
func binomialLimit(n int, p float64) int {
	b := distuv.Binomial{N: float64(n), P: p}
	k := 0
	for 1-b.CDF(float64(k)) >= 1e-4 {
		k++
	}
	return k
}

// Honest pairs (μ = 0) are FAILed at most at the stated rate, 1 − confidence = 5 %: over
// 200 seeded audits per route (50 under -short) the count stays below the binomial tail
// of probability 1e-4, so each route's check fails falsely with probability < 1e-4. It
// catches a verdict turned round (the rank test failing p above its threshold: 48 of 50);
// subtler miscalibrations are below what 200 audits resolve at these model counts and
// are held where they can be seen: the family's confidence with the bound's threshold at
// 0 (epsilon's TestFamilyKeepsConfidence) and the rank threshold exactly (TestRanks).
func TestHonestPairsFalseFailRate(t *testing.T) {
	audits := 200
	if testing.Short() {
		audits = 50
	}
	for _, c := range []struct {
		route  Route
		models int
	}{{Scores, 1}, {Scores, 32}, {Parameters, 8}} {
		rate, err := Rate(c.route, After, 0, c.models, audits)
		if err != nil {
			t.Fatal(err)
		}
		limit := binomialLimit(audits, 1-Claim.Confidence)
		t.Logf("%s route, %d models: %.3f of %d honest audits FAILed (limit %d)", c.route, c.models, rate, audits, limit)
		if int(rate*float64(audits)+0.5) > limit {
			t.Errorf("%s route, %d models: %.3f of %d honest pairs FAILed; at confidence %.2f at most %d", c.route, c.models, rate, audits, Claim.Confidence, limit)
		}
	}
}

// What the issue asks of the verdicts on models trained elsewhere, on seeded pairs of
// laws μ-GDP apart: μ = 10 FAILs at 32 models on the scores route and at 64 on the
// parameters route without data; μ = 3 at 64 on the scores route; one μ = 10 model
// against 64 retrains on the scores route. Each is asserted on 20 seeded audits (10 under
// -short, the first 10 of the same seeds) to FAIL in at least 90 % of them. The seeds are
// fixed, so the test is deterministic; on 100 audits the rates measured 1.00, 0.95, 1.00
// and 1.00 (bench/detection), and at a true rate of 0.95 a fresh set of 20 seeds would fall
// below 90 % with probability 0.075. The bug this guards against is the previous
// statistics (the Before version, logged beside): the per-record games alone FAIL none of
// the scores audits.
func TestDetection(t *testing.T) {
	audits := 20
	if testing.Short() {
		audits = 10
	}
	for _, c := range []struct {
		route  Route
		mu     float64
		models int
	}{{Scores, 10, 32}, {Scores, 3, 64}, {Scores, 10, 1}, {Parameters, 10, 64}} {
		rate, err := Rate(c.route, After, c.mu, c.models, audits)
		if err != nil {
			t.Fatal(err)
		}
		before, err := Rate(c.route, Before, c.mu, c.models, audits)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s route, μ = %g, %d models: FAILed %.2f (before: %.2f)", c.route, c.mu, c.models, rate, before)
		if rate < 0.9 {
			t.Errorf("%s route, μ = %g, %d models: FAILed %.2f of %d audits; want ≥ 0.9", c.route, c.mu, c.models, rate, audits)
		}
	}
}

// The fixtures scikit-learn and PyTorch wrote (bench/detection): the fake unlearner that
// forgets nothing is FAILed at 64 models a side and the honest one is not, with either
// library — scikit-learn's on its parameters, with or without the data (its output noise
// hides the deleted records' loss from a mean over them), the MLP's on the deleted
// records' losses.
func TestFixtures(t *testing.T) {
	deletes := make([]int64, 50)
	for i := range deletes {
		deletes[i] = int64(i)
	}
	data, err := LoadData(filepath.Join("..", "..", "bench", "detection", "testdata", "sklearn_logreg", "data.csv"), deletes)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir, prefix string
		route       Route
	}{{"sklearn_logreg", "models_", Parameters}, {"sklearn_logreg", "models_", ParametersWithData}, {"torch_mlp", "deleted_", Scores}} {
		load := func(sample string) *mat.Dense {
			m, _, err := artifact.LoadSample(filepath.Join("..", "..", "bench", "detection", "testdata", c.dir, c.prefix+sample+".npy"), reference.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		ret := load("retrained")
		for _, sample := range []string{"fake", "honest"} {
			got, err := AuditSamples(c.route, After, load(sample), ret, data)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s%s (%s): %s", c.dir, c.prefix, sample, c.route, got)
			if (sample == "fake") != (got == verdict.Fail) {
				t.Errorf("%s %s%s: %s; want the fake and only the fake FAILed", c.dir, c.prefix, sample, got)
			}
		}
	}
}
