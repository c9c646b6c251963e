package props_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/estimate"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"github.com/unlearnaudit/unlearnaudit/retrain"
	"gonum.org/v1/gonum/mat"
)

// tight is a configuration where the certificate is nearly tight, so that a weakened
// mechanism is visible (spec d2d §4.5 "suitable small-n configurations"): a 1-D ridge
// problem with x = 1 and labels spread over [−1, 1], a ball just large enough for the
// minimisers (so the Lipschitz supremum is close to the deleted record's real gradient),
// λ = 5 (a small γ), and the exact floor n − 1 instead of n/2. The extreme record is
// deleted.
type tight struct {
	ds    *reference.Dataset
	loss  reference.Ridge
	plan  d2d.Plan
	final *reference.Dataset
}

func tightSetup(t *testing.T) tight {
	t.Helper()
	const n = 10
	x := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	ids := make([]int64, n)
	for i := range n {
		x.Set(i, 0, 1)
		y[i] = -1 + 2*float64(i)/float64(n-1)
		ids[i] = int64(i)
	}
	ds, err := reference.NewDataset(ids, x, y)
	if err != nil {
		t.Fatal(err)
	}
	loss := reference.Ridge{Lambda: 5}
	p := d2d.Params{Constants: loss.TightConstants(ds, 0.1), Radius: 0.1, N: n, NFloor: n - 1, Dim: 1, Budget: 3, Epsilon: 1, Delta: 1e-6}
	plan, err := d2d.NewPlan(d2d.SecretState, p)
	if err != nil {
		t.Fatal(err)
	}
	final, err := ds.Without(n - 1)
	if err != nil {
		t.Fatal(err)
	}
	return tight{ds: ds, loss: loss, plan: plan, final: final}
}

// means returns the pre-noise unlearned and retrained models of the tight setup, the
// unlearner run with the given update iterations (T_i = I normally; 0 for a control).
func (c tight) means(t *testing.T, updateIters int) (unlearned, retrained []float64) {
	t.Helper()
	ctx := context.Background()
	pl := c.plan
	theta := make([]float64, 1)
	g := make([]float64, 1)
	d2d.Descend(c.loss.Objective(c.ds), theta, g, pl.StepSize, pl.Params.Radius, pl.LearnIterations(c.ds.Len()))
	d2d.Descend(c.loss.Objective(c.final), theta, g, pl.StepSize, pl.Params.Radius, updateIters)
	re, err := d2d.Learn(ctx, pl, c.loss, c.final, reference.Stream(1, 0, "retrain"))
	if err != nil {
		t.Fatal(err)
	}
	return theta, re.Secret()
}

// The tight setup really is the reference algorithm: its means agree with d2d.Model.
func TestTightSetupIsTheReference(t *testing.T) {
	c := tightSetup(t)
	m, err := d2d.Learn(context.Background(), c.plan, c.loss, c.ds, reference.Stream(1, 0, "n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Update(context.Background(), reference.DeleteID(9), reference.Stream(1, 1, "n")); err != nil {
		t.Fatal(err)
	}
	u, _ := c.means(t, c.plan.UpdateIterations(1)) // means returns no error: it fails t itself
	if reference.Distance(u, m.Secret()) != 0 {
		t.Fatalf("setup %v, reference %v", u, m.Secret())
	}
}

// §4.5 controls: each weakened mechanism must fail, by the exact Gaussian profile of the
// released pair at the claimed ε (deterministic) and, for the gross ones, by the empirical
// route too (the distinguishing game at 95 % with 200 trials; each game is one seeded draw
// whose correct-mechanism counterpart would fail with probability ≤ 5 %).
func TestControlsMustFail(t *testing.T) {
	c := tightSetup(t)
	p := c.plan.Params
	u, r := c.means(t, c.plan.UpdateIterations(1))
	gap := reference.Distance(u, r)
	// the correct mechanism passes its own profile
	if d := dp.GaussianExactDelta(p.Epsilon, gap/c.plan.Sigma); d > p.Delta {
		t.Fatalf("the reference mechanism violates its profile: δ = %v", d)
	}
	t.Logf("gap/Δ = %.3f on the tight setup", gap/c.plan.Sensitivity())
	u0, _ := c.means(t, 0)
	controls := []struct {
		name      string
		mean      []float64 // published mean of the unlearned side
		sigma     float64   // noise of both sides
		empirical bool      // gross enough for the empirical game to show
	}{
		{"σ = 0", u, 0, true},
		{"σ/10", u, c.plan.Sigma / 10, false},
		// Republishing θ̂_{i−1} without the update has this same marginal law (θ_{i−1} plus
		// noise); it differs only to an observer of both publications, which is
		// TestPairsObserverReport's view.
		{"T_i = 0 (no descent, only the noise refreshed)", u0, c.plan.Sigma, true},
	}
	for _, ctl := range controls {
		s := math.Inf(1)
		if ctl.sigma > 0 {
			s = reference.Distance(ctl.mean, r) / ctl.sigma
		}
		d := dp.GaussianExactDelta(p.Epsilon, s)
		if !(d > p.Delta) {
			t.Errorf("%s: exact δ at ε = %v is %v ≤ %v; the control should violate the profile", ctl.name, p.Epsilon, d, p.Delta)
		}
		if !ctl.empirical {
			continue
		}
		res := make([]trials.TrialResult, 200)
		for i := range res {
			st := reference.Streams{Seed: 7, Trial: i}
			res[i] = trials.TrialResult{Index: i,
				Unlearned: reference.Release{Published: noisy(ctl.mean, ctl.sigma, st, "u")},
				Retrained: reference.Release{Published: noisy(r, ctl.sigma, st, "r")}}
		}
		f, err := checks.EmpiricalRelease{Prefix: "ctl", Epsilon: p.Epsilon, Delta: p.Delta}.Check(context.Background(), res)
		if err != nil {
			t.Fatal(err)
		}
		if f.Verdict != verdict.Fail {
			t.Errorf("%s: the empirical route says %v (ε_LB %.3f)", ctl.name, f.Verdict, f.Measured)
		}
	}
}

func noisy(mean []float64, sigma float64, st reference.Streams, purpose string) []float64 {
	out := make([]float64, len(mean))
	reference.FillNormal(out, sigma, st.Rand(purpose))
	for j := range out {
		out[j] += mean[j]
	}
	return out
}

// §4.5 secret state, estimator validation: with the published laws known exactly
// (N(θ̂, σ²I) and N(A(𝒟), σ²I)), 2·10⁴ samples per arm, the projected Gaussian-fit estimate
// of D_α is within 3 bootstrap standard errors of αs²/2 (false-failure probability ≈ 0.3 %
// per α for a normal estimate), and the threshold attack's ε_LB at confidence 1 − 1e−6 is at
// most ε.
func TestSecretStateEstimatorsOnTheRelease(t *testing.T) {
	c := tightSetup(t)
	p := c.plan.Params
	sigma := c.plan.Sigma / 4 // a larger s, so the estimate is not trivially 0
	u, r := c.means(t, c.plan.UpdateIterations(1))
	s := reference.Distance(u, r) / sigma
	n := 20000
	if testing.Short() {
		n = 5000
	}
	a, b := mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil)
	st := reference.Streams{Seed: 11}
	ra, rb := st.Rand("a"), st.Rand("b")
	for i := range n {
		a.Set(i, 0, u[0]+sigma*ra.NormFloat64())
		b.Set(i, 0, r[0]+sigma*rb.NormFloat64())
	}
	for _, alpha := range []float64{1.5, 2, 5, 10} {
		e, err := estimate.Projected(a, b, estimate.Options{Alpha: alpha, Covariance: estimate.Pooled, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if truth := alpha * s * s / 2; math.Abs(e.Value-truth) > 3*e.SE {
			t.Errorf("α = %v: estimate %v, truth %v, 3 SE = %v", alpha, e.Value, truth, 3*e.SE)
		}
	}
	res, err := epsilon.Game{Delta: p.Delta, Confidence: 1 - 1e-6}.LowerBound(mat.Col(nil, 0, a), mat.Col(nil, 0, b))
	if err != nil {
		t.Fatal(err)
	}
	if truth := dp.GaussianExactEpsilon(s, p.Delta); res.Epsilon > truth {
		t.Errorf("ε_LB = %v exceeds the release's exact ε = %v", res.Epsilon, truth)
	}
}

// §4.5 perfect mode: over 2 000 seeds of the whole pipeline (learn, publish, unlearn from
// the projected published model), every seed satisfies Eq. 13 and the tight Δ (each fails
// with probability ≤ δ/2 = 5e-7 under the theorem); and the threshold attack on the
// mixture of published models, projected on the estimated mean-difference direction, gives
// ε_LB ≤ ε at confidence 1 − 1e−6.
func TestPerfectModeMixture(t *testing.T) {
	seeds := 2000
	if testing.Short() {
		seeds = 400
	}
	ds, err := reference.SyntheticClassification(40, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	loss := reference.Logistic{Lambda: 0.2}
	p := d2d.Params{Constants: loss.Constants(ds, 3), Radius: 3, N: 40, Dim: 2, Epsilon: 1, Delta: 1e-6}
	p.Budget = p.PerfectMinBudget()
	plan, err := d2d.NewPlan(d2d.Perfect, p)
	if err != nil {
		t.Fatal(err)
	}
	updates := []reference.Update{reference.DeleteID(0), reference.DeleteID(1), reference.DeleteID(2)}
	final, err := ds.Without(0, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	star, err := retrain.Minimize(loss.Objective(final), p.Radius, retrain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	re, err := d2d.Learn(context.Background(), plan, loss, final, reference.Stream(0, 0, "x"))
	if err != nil {
		t.Fatal(err)
	}
	tight, _ := p.PerfectSensitivity(plan.Sigma) // the spec's tight reading; the printed one is larger
	unl, ret := mat.NewDense(seeds, 2, nil), mat.NewDense(seeds, 2, nil)
	for seed := range seeds {
		st := reference.Streams{Seed: 5, Trial: seed}
		m, err := d2d.Learn(context.Background(), plan, loss, ds, st.Rand("publish/0"))
		if err != nil {
			t.Fatal(err)
		}
		for i, u := range updates {
			if err := m.Update(context.Background(), u, st.Rand(fmt.Sprint("publish/", i+1))); err != nil {
				t.Fatal(err)
			}
		}
		if d := reference.Distance(m.Secret(), star.Theta); d > plan.RadiusAt(3)*(1+1e-9) {
			t.Fatalf("seed %d: ‖μ'_i − θ*_i‖ = %v > Eq. 13's %v", seed, d, plan.RadiusAt(3))
		}
		if d := reference.Distance(m.Secret(), re.Secret()); d > tight*(1+1e-9) {
			t.Fatalf("seed %d: ‖μ'_i − μ_i‖ = %v > tight Δ = %v", seed, d, tight)
		}
		unl.SetRow(seed, m.Published())
		ret.SetRow(seed, noisy(re.Secret(), plan.Sigma, st, "retrain"))
	}
	pa, pb, err := estimate.Project(unl, ret)
	if err != nil {
		t.Fatal(err)
	}
	res, err := epsilon.Game{Delta: p.Delta, Confidence: 1 - 1e-6}.LowerBound(pa, pb)
	if err != nil {
		t.Fatal(err)
	}
	if res.Epsilon > p.Epsilon {
		t.Fatalf("ε_LB = %v on the perfect-mode mixture exceeds ε = %v", res.Epsilon, p.Epsilon)
	}
}

// §4.5 pairs (the paper's introduction): an observer of the published models before and
// after a deletion. Two neighbouring worlds differ in one record, z or z'; each deletes its
// own differing record, so both end on the same data. The attacker sees the pair (θ̃₀, θ̃₁).
//
// The paper expects ε ≤ 2ε for the pair; that is a remark, not a theorem (the first
// publication is not certified against a replaced record), so it is reported, not failed.
// What is exact: in secret-state mode both secret models are deterministic, so the pair is
// a Gaussian mechanism with sensitivity √(Δ₀² + Δ₁²)/σ measured on the two worlds' secret
// states, and its exact ε at δ is known. The threshold attack's ε_LB at 99.9 % must not
// exceed it (false-failure probability ≤ 0.001). Republishing old noise, or noise shared
// between the two publications, breaks that law and fails the test.
func TestPairsObserverReport(t *testing.T) {
	ctx := context.Background()
	ds, err := reference.SyntheticClassification(30, 2, 9)
	if err != nil {
		t.Fatal(err)
	}
	loss := reference.Logistic{Lambda: 0.2}
	p := d2d.Params{Constants: loss.Constants(ds, 3), Radius: 3, N: 30, Dim: 2, Budget: 5, Epsilon: 1, Delta: 1e-6}
	plan, err := d2d.NewPlan(d2d.SecretState, p)
	if err != nil {
		t.Fatal(err)
	}
	other, err := ds.Without(0)
	if err != nil {
		t.Fatal(err)
	}
	// z' = (−x₀, y₀): a record the loss tells apart from z (the mirror (−x₀, −y₀) has the
	// same logistic loss, which would make the two worlds one)
	if other, err = other.With(reference.Record{ID: 100, X: []float64{-ds.Row(0)[0], -ds.Row(0)[1]}, Y: ds.Label(0)}); err != nil {
		t.Fatal(err)
	}
	n := 4000
	if testing.Short() {
		n = 1000
	}
	// run returns the pair of published models and the pair of secret ones.
	run := func(data *reference.Dataset, z int64, st reference.Streams) (published, secret []float64) {
		m, err := d2d.Learn(ctx, plan, loss, data, st.Rand("0"))
		if err != nil {
			t.Fatal(err)
		}
		published, secret = m.Published(), m.Secret()
		if err := m.Update(ctx, reference.DeleteID(z), st.Rand("1")); err != nil {
			t.Fatal(err)
		}
		return append(published, m.Published()...), append(secret, m.Secret()...)
	}
	pairs := func(data *reference.Dataset, z int64, seed uint64) (*mat.Dense, []float64) {
		out := mat.NewDense(n, 4, nil)
		var secret []float64
		for i := range n {
			pub, sec := run(data, z, reference.Streams{Seed: seed, Trial: i})
			if secret == nil {
				secret = sec
			} else if reference.Distance(sec, secret) != 0 {
				t.Fatalf("trial %d: secret state %v differs from trial 0's %v; secret-state descent is deterministic", i, sec, secret)
			}
			out.SetRow(i, pub)
		}
		return out, secret
	}
	a, secretA := pairs(ds, 0, 1)
	b, secretB := pairs(other, 100, 2)
	s := reference.Distance(secretA, secretB) / plan.Sigma
	if !(s > 0.01) {
		t.Fatalf("the two worlds' secret pairs are %.3g σ apart: the test cannot tell them apart", s)
	}
	exact := dp.GaussianExactEpsilon(s, p.Delta)
	pa, pb, err := estimate.Project(a, b)
	if err != nil {
		t.Fatal(err)
	}
	res, err := epsilon.Game{Delta: p.Delta, Confidence: 0.999}.LowerBound(pa, pb)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("pairs observer: ε_LB = %.3f at 99.9 %%; exact ε of the pair %.4g (Δ/σ = %.4g); the paper's remark expects ≤ 2ε = %v",
		res.Epsilon, exact, s, 2*p.Epsilon)
	if res.Epsilon > exact {
		t.Fatalf("ε_LB %.3f exceeds the exact ε %.3f of the Gaussian pair: the publications are not the secret states plus fresh independent noise", res.Epsilon, exact)
	}
}
