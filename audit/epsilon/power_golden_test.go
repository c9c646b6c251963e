package epsilon

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// The planner's numbers are quoted in reports (power to the last bit in report.json,
// trials needed in every INCONCLUSIVE finding), so a faster planner must give the same
// numbers. testdata/power_golden.json holds what the implementation before the speedup
// (the one that tabulated every Clopper–Pearson bound and sorted every selection half)
// computed on a grid; `go test ./audit/epsilon -run TestPowerGolden -update-power` rewrites
// it from the code at hand — run it only from that reference implementation.
var (
	updatePowerGolden = flag.Bool("update-power", false, "rewrite testdata/power_golden.json from this implementation")
	fullPowerGolden   = flag.Bool("power-golden-full", false, "compare the heavy cases of testdata/power_golden.json too (a minute of CPU)")
)

// heavyPower is the size past which a golden case is compared only with -power-golden-full:
// plans whose search reaches more trials, powers at more than a fifth of it, smallest
// factors at more than 1000 (a dozen powers each). The cases left take seconds; the heavy ones include the
// product's own plans (δ = 1e-6, ≈ 680 000 trials), which BenchmarkPlan runs.
const heavyPower = 250_000

const powerGoldenFile = "testdata/power_golden.json"

// exactFloat is a float64 in JSON as its shortest round-tripping decimal string, so that
// ±Inf survive and a comparison is to the bit.
type exactFloat float64

func (f exactFloat) MarshalJSON() ([]byte, error) {
	return json.Marshal(strconv.FormatFloat(float64(f), 'g', -1, 64))
}

func (f *exactFloat) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := strconv.ParseFloat(s, 64)
	*f = exactFloat(v)
	return err
}

type goldenSpec struct {
	Claim, Factor, Power, Delta, Conf exactFloat
}

func (g goldenSpec) spec() PowerSpec {
	return PowerSpec{Claim: float64(g.Claim), Factor: float64(g.Factor), Power: float64(g.Power), Delta: float64(g.Delta), Conf: float64(g.Conf)}
}

type powerGolden struct {
	Plans  []goldenPlan
	Powers []goldenPower
}

type goldenPlan struct {
	Spec     goldenSpec
	Trials   int        // TrialsToDetect
	Mu       exactFloat // its μ
	Err      string     `json:",omitempty"`
	Estimate int        // EstimateTrialsToDetect
	EstErr   string     `json:",omitempty"`
}

type goldenPower struct {
	Spec           goldenSpec
	Trials         int
	Power, StdErr  exactFloat // SplitGamePower
	Mu             exactFloat
	SmallestFactor *exactFloat `json:",omitempty"` // SmallestDetectableFactor, where computed
}

// powerGoldenGrid is the grid the golden file covers: claims and δ around the product's
// (the demo's δ = 1e-6, `audit plan`'s 1e-5), the game's per-family confidence
// (audit.GamePowerSpec: 0.975) and `audit plan`'s 0.95, the default violation 2× and a 3×.
func powerGoldenGrid() (plans []PowerSpec, powers []PowerSpec, trials []int, factorTrials map[int]bool) {
	for _, eps := range []float64{0.5, 1, 2} {
		for _, delta := range []float64{1e-3, 1e-5, 1e-6} {
			plans = append(plans, PowerSpec{Claim: eps, Factor: 2, Power: 0.8, Delta: delta, Conf: 0.975})
		}
	}
	plans = append(plans,
		PowerSpec{Claim: 1, Factor: 2, Power: 0.8, Delta: 1e-5, Conf: 0.95},
		PowerSpec{Claim: 1, Factor: 2, Power: 0.8, Delta: 1e-6, Conf: 0.95},
		PowerSpec{Claim: 1, Factor: 3, Power: 0.9, Delta: 1e-5, Conf: 0.975},
		PowerSpec{Claim: 1, Factor: 2, Power: 0.8, Delta: 4.9e-324, Conf: 0.95}, // past MaxPlanTrials
	)
	powers = append(powers, plans[:9]...)
	powers = append(powers, PowerSpec{Claim: 1, Factor: 3, Power: 0.9, Delta: 1e-5, Conf: 0.95})
	trials = []int{4, 7, 101, 1000, 30001, 200000}
	factorTrials = map[int]bool{101: true, 1000: true, 30001: true}
	return plans, powers, trials, factorTrials
}

func toGolden(p PowerSpec) goldenSpec {
	return goldenSpec{exactFloat(p.Claim), exactFloat(p.Factor), exactFloat(p.Power), exactFloat(p.Delta), exactFloat(p.Conf)}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// writePowerGolden computes the grid with the code at hand.
func writePowerGolden(t *testing.T) {
	ctx := context.Background()
	plans, powers, trials, factorTrials := powerGoldenGrid()
	var g powerGolden
	for _, p := range plans {
		n, mu, err := TrialsToDetect(ctx, p)
		est, estErr := EstimateTrialsToDetect(ctx, p)
		g.Plans = append(g.Plans, goldenPlan{toGolden(p), n, exactFloat(mu), errString(err), est, errString(estErr)})
		t.Logf("plan %+v: %d (%v), estimate %d (%v)", p, n, err, est, estErr)
	}
	for _, p := range powers {
		for _, n := range trials {
			res, err := SplitGamePower(ctx, n, p)
			if err != nil {
				t.Fatalf("SplitGamePower(%d, %+v): %v", n, p, err)
			}
			var smallest *exactFloat
			if factorTrials[n] {
				f, err := SmallestDetectableFactor(ctx, n, p)
				if err != nil {
					t.Fatalf("SmallestDetectableFactor(%d, %+v): %v", n, p, err)
				}
				smallest = new(exactFloat(f))
			}
			g.Powers = append(g.Powers, goldenPower{toGolden(p), n, exactFloat(res.Power), exactFloat(res.StdErr), exactFloat(res.Mu), smallest})
			t.Logf("power %+v at %d: %v", p, n, res)
		}
	}
	b, err := json.MarshalIndent(g, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.FromSlash(powerGoldenFile), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPowerGolden: every plan, power and smallest factor on the grid is the reference
// implementation's, to the bit (trial counts and error messages exactly).
func TestPowerGolden(t *testing.T) {
	if *updatePowerGolden {
		writePowerGolden(t)
	}
	b, err := os.ReadFile(filepath.FromSlash(powerGoldenFile))
	if err != nil {
		t.Fatal(err)
	}
	var g powerGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("%s: %v", powerGoldenFile, err)
	}
	if len(g.Plans) == 0 || len(g.Powers) == 0 {
		t.Fatalf("%s: %d plans and %d powers; want cases of both", powerGoldenFile, len(g.Plans), len(g.Powers))
	}
	ctx := context.Background()
	same := func(a float64, b exactFloat) bool {
		return math.Float64bits(a) == math.Float64bits(float64(b))
	}
	factors, plans, powers, skipped := 0, 0, 0, 0
	for _, c := range g.Plans {
		p := c.Spec.spec()
		if !*fullPowerGolden && (c.Trials > heavyPower || c.Estimate > heavyPower || c.Err != "" && p.Claim < 1) {
			skipped++
			continue
		}
		plans++
		// the searches, not the memo: a cached answer would compare nothing
		n, mu, err := searchTrials(ctx, p, true)
		if n != c.Trials || !same(mu, c.Mu) || errString(err) != c.Err {
			t.Errorf("TrialsToDetect(%+v) = %d, μ %v, %v; reference %d, μ %v, %q", p, n, mu, err, c.Trials, float64(c.Mu), c.Err)
		}
		est, _, err := searchTrials(ctx, p, false)
		if est != c.Estimate || errString(err) != c.EstErr {
			t.Errorf("EstimateTrialsToDetect(%+v) = %d, %v; reference %d, %q", p, est, err, c.Estimate, c.EstErr)
		}
	}
	for _, c := range g.Powers {
		p := c.Spec.spec()
		if !*fullPowerGolden && c.Trials > heavyPower/5 {
			skipped++
			continue
		}
		powers++
		res, err := SplitGamePower(ctx, c.Trials, p)
		if err != nil || !same(res.Power, c.Power) || !same(res.StdErr, c.StdErr) || !same(res.Mu, c.Mu) {
			t.Errorf("SplitGamePower(%d, %+v) = %+v, %v; reference power %v ± %v, μ %v", c.Trials, p, res, err, float64(c.Power), float64(c.StdErr), float64(c.Mu))
		}
		if c.SmallestFactor == nil || !*fullPowerGolden && c.Trials > 1000 {
			continue
		}
		factors++
		f, err := SmallestDetectableFactor(ctx, c.Trials, p)
		if err != nil || !same(f, *c.SmallestFactor) {
			t.Errorf("SmallestDetectableFactor(%d, %+v) = %v, %v; reference %v", c.Trials, p, f, err, float64(*c.SmallestFactor))
		}
	}
	if plans == 0 || powers == 0 || factors == 0 {
		t.Fatalf("%s: %d plans, %d powers and %d smallest factors compared; want some of each", powerGoldenFile, plans, powers, factors)
	}
	t.Logf("%d plans, %d powers, %d smallest factors as the reference computed them (%d heavy cases left to -power-golden-full)", plans, powers, factors, skipped)
}
