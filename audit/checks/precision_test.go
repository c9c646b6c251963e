package checks

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

func TestSpacing(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{1, 0x1p-52}, {-1, 0x1p-52}, {1.5, 0x1p-52}, {2, 0x1p-51}, {0.003, 0x1p-61}, {0, math.SmallestNonzeroFloat64},
	} {
		if got := Spacing(c.x); got != c.want {
			t.Errorf("Spacing(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if !math.IsNaN(Spacing(math.Inf(1))) || !math.IsNaN(Spacing(math.NaN())) {
		t.Error("a non-finite value has a spacing")
	}
}

// The theory the rule stands on: noise of σ added to a coordinate x is rounded away
// (fl(x + z) = x) with probability 2Φ(u/(2σ)) − 1, u = Spacing(x). Far below the
// spacing it is lost in nearly every draw, far above it in few. 20 000 draws from a fixed
// seed; the bounds are the probabilities at ±5 binomial standard deviations (a false
// failure below 1e-6).
func TestNoiseBelowSpacingIsRounded(t *testing.T) {
	x := 0.0048662897573789 // the largest coordinate of the demo's model at --lambda 4
	u := Spacing(x)
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 20_000
	for _, c := range []struct{ sigma, lost float64 }{
		{u / 8, math.Erf(4 / math.Sqrt2)},        // P(|z| < 4σ)
		{8 * u, math.Erf(1 / (16 * math.Sqrt2))}, // P(|z| < σ/16)
	} {
		lost := 0
		for range n {
			if x+c.sigma*rng.NormFloat64() == x {
				lost++
			}
		}
		sd := math.Sqrt(c.lost * (1 - c.lost) / n)
		if got := float64(lost) / n; math.Abs(got-c.lost) > 5*sd+1.0/n {
			t.Errorf("σ = %.3g: %.4f of draws rounded away, theory %.4f", c.sigma, got, c.lost)
		}
	}
}

// The rule is two-sided at the resolution: a constant one float64 above it is
// realisable, one below is not.
func TestUnrealisableAtTheResolution(t *testing.T) {
	theta := []float64{0.0048662897573789, -0.003, 0.0005}
	res := ModelResolution(theta)
	if res.Coordinate != Spacing(0.0048662897573789) {
		t.Fatalf("coordinate resolution %v, want the largest coordinate's spacing %v", res.Coordinate, Spacing(0.0048662897573789))
	}
	wantDist := math.Sqrt(Spacing(theta[0])*Spacing(theta[0]) + Spacing(theta[1])*Spacing(theta[1]) + Spacing(theta[2])*Spacing(theta[2]))
	if res.Distance != wantDist {
		t.Fatalf("distance resolution %v, want %v", res.Distance, wantDist)
	}
	above := func(x float64) float64 { return math.Nextafter(x, math.Inf(1)) }
	below := func(x float64) float64 { return math.Nextafter(x, 0) }
	big := 1.0
	for _, c := range []struct {
		name          string
		sigma, radius float64
		want          string // "" realisable; else a word the reason holds
	}{
		{"σ at the spacing", res.Coordinate, big, ""},
		{"σ just above", above(res.Coordinate), big, ""},
		{"σ just below", below(res.Coordinate), big, "noise is lost in rounding"},
		{"Δ at the resolution", big, res.Distance, ""},
		{"Δ just above", big, above(res.Distance), ""},
		{"Δ just below", big, below(res.Distance), "rounding alone"},
		{"no Δ stated", big, 0, ""},
	} {
		got := Unrealisable(c.sigma, c.radius, res)
		if (got == "") != (c.want == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// AtPrecision turns a PASSing certificate into a FAIL whose figures agree with it (the
// resolution above the constant) and keeps the arithmetic in its detail; above the
// resolution it leaves the finding alone.
func TestAtPrecision(t *testing.T) {
	theta := []float64{0.0048662897573789, -0.003}
	results := []trials.TrialResult{{Unlearned: reference.Release{Secret: theta, Published: theta}, Retrained: reference.Release{Secret: theta, Published: theta}}}
	res := TrialResolution(results)
	cert := verdict.Deterministic("x/certificate/sigma", "σ required", verdict.Certificate, 1e-21, 1e-21, 0, "Theorem 1")
	if got := AtPrecision(cert, res.Coordinate, res.Distance, results); got.Verdict != verdict.Pass || got.Title != cert.Title || got.Detail != cert.Detail {
		t.Errorf("at the resolution: %+v, want the finding unchanged", got)
	}
	got := AtPrecision(cert, 1e-21, 1e-15, results)
	if got.Verdict != verdict.Fail || !(got.Measured > got.Bound) || got.Bound != 1e-21 || got.Comparison != "≤" {
		t.Errorf("σ below: %v %v %s %v; want a FAIL of the spacing above σ = 1e-21", got.Verdict, got.Measured, got.Comparison, got.Bound)
	}
	if !strings.Contains(got.Detail, "cannot be realised at float64 precision") || !strings.Contains(got.Detail, "Theorem 1") {
		t.Errorf("σ below: detail %q names neither the cause nor the arithmetic", got.Detail)
	}
	got = AtPrecision(cert, 1, math.Nextafter(res.Distance, 0), results)
	if got.Verdict != verdict.Fail || got.Measured != res.Distance || got.Bound != math.Nextafter(res.Distance, 0) {
		t.Errorf("Δ below: %v %v ≤ %v; want a FAIL of the distance resolution above Δ", got.Verdict, got.Measured, got.Bound)
	}
}

// A distance check PASSes only when it resolves its bound and its whole interval is
// within it; below its resolution it is INCONCLUSIVE, never PASS; a violation beyond the
// error FAILs.
func TestDistanceCheckResolution(t *testing.T) {
	const res, oracle = 1e-18, 1e-16
	floor := res + oracle
	for _, c := range []struct {
		name             string
		dist, err, bound float64
		want             verdict.Verdict
		detail           string
	}{
		{"resolved, within", 0, oracle, math.Nextafter(floor, 1), verdict.Pass, ""},
		{"bound at the floor", 0, oracle, floor, verdict.Inconclusive, "below what this check resolves"},
		{"bound far below (λ = 8)", 0, oracle, 5.6e-22, verdict.Inconclusive, "below what this check resolves"},
		{"gap to a bound below resolution", 2.4e-18, 0, 9e-19, verdict.Inconclusive, "below what this check resolves"},
		{"straddles", 1e-3, 1e-5, 1e-3, verdict.Inconclusive, "straddles"},
		{"within", 1e-4, 1e-6, 1e-3, verdict.Pass, ""},
		{"violation beyond the error", 1e-2, 1e-6, 1e-3, verdict.Fail, ""},
	} {
		f := DistanceCheck("x/implementation/radius", "distance", verdict.Implementation, c.dist, c.err, res, c.bound, 10, "oracle")
		if f.Verdict != c.want || !strings.Contains(f.Detail, c.detail) || !strings.HasSuffix(f.Detail, "oracle") {
			t.Errorf("%s: %s %q, want %s with %q", c.name, f.Verdict, f.Detail, c.want, c.detail)
		}
		if f.Measured != math.Max(0, c.dist-c.err) {
			t.Errorf("%s: measured %v, want the distance less its error", c.name, f.Measured)
		}
	}
}

// Beyond dp.MaxExactEpsilon the exact ε is bracketed, not +Inf. The bracket's two
// formulas are checked where the profile is still solved (s = 1000, 1400: ε about 5·10⁵
// and 10⁶), and beyond it (s = 10⁵) the bounds are finite and ordered. --epsilon 1e20
// gave +Inf and a FAIL before.
func TestExactEpsilonBeyondTheSearch(t *testing.T) {
	const delta = 1e-6
	for _, s := range []float64{1000, 1400} {
		e, _ := exactEpsBounds(s, 1, delta)
		rho := s * s / 2
		if math.IsInf(e, 1) || e < rho || e > rho+2*math.Sqrt(rho*math.Log(1/delta)) {
			t.Errorf("s = %v: exact ε %v outside [ρ, ρ + 2√(ρ ln(1/δ))] = [%v, %v]", s, e, rho, rho+2*math.Sqrt(rho*math.Log(1/delta)))
		}
	}
	lo, hi := exactEpsBounds(1e5, 1, delta)
	if lo != 5e9 || !(hi > lo) || math.IsInf(hi, 1) {
		t.Errorf("s = 1e5: bounds [%v, %v], want [5e9, finite above it]", lo, hi)
	}
	if lo, hi := exactEpsBounds(1, 0, delta); !math.IsInf(lo, 1) || !math.IsInf(hi, 1) {
		t.Errorf("no noise: [%v, %v], want +Inf", lo, hi)
	}
}

// A release whose noise was lost in rounding (published = secret on both sides) shows
// an infinite divergence, and says why: no noise, and σ below float64's spacing.
func TestInfiniteReleaseSaysWhy(t *testing.T) {
	var results []trials.TrialResult
	for i := range 4 {
		u := []float64{0.003, -0.002 + float64(i)*1e-18}
		r := []float64{0.003 + 1e-17, -0.002}
		results = append(results, trials.TrialResult{Index: i, Unlearned: reference.Release{Secret: u, Published: u}, Retrained: reference.Release{Secret: r, Published: r}})
	}
	fs, err := GaussianRelease{Prefix: "x", Sigma: 1e-21, Rho: 0.01, Epsilon: 1, Delta: 1e-6}.Check(results)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if !math.IsInf(f.Measured, 1) || f.Verdict != verdict.Fail {
			t.Fatalf("%s: %v %v, want a FAIL at +Inf", f.Check, f.Verdict, f.Measured)
		}
		for _, want := range []string{"+Inf because the unlearned and the retrained side's published models equal their secret ones", "noise is lost in rounding"} {
			if !strings.Contains(f.Detail, want) {
				t.Errorf("%s: detail %q lacks %q", f.Check, f.Detail, want)
			}
		}
	}
}
