package props_test

// The edge cases of spec d2d §4.9, one named test each. Three live beside the code they
// test: γ = 0 (reference/d2d TestGammaZero), I below I_min (reference/d2d
// TestPerfectBelowMinimumBudget) and the n/2 floor with the paper's form
// (reference/d2d TestAssumption26Floor); Theorem 4.5 at ξ = 4/3 is
// TestEdgeTheorem45DegenerateXi in bounds_test.go.

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/d2daudit"
	"github.com/unlearnaudit/unlearnaudit/props"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"github.com/unlearnaudit/unlearnaudit/retrain"
)

func edgePlan(t *testing.T, mode d2d.Mode, ds *reference.Dataset, loss reference.Loss, radius float64, floor int) d2d.Plan {
	t.Helper()
	p := d2d.Params{Constants: loss.Constants(ds, radius), Radius: radius, N: ds.Len(), NFloor: floor, Dim: ds.Dim(), Budget: 4, Epsilon: 1, Delta: 1e-6}
	if mode == d2d.Perfect {
		p.Budget = p.PerfectMinBudget()
	}
	plan, err := d2d.NewPlan(mode, p)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// Deleting a non-member: the paper makes it a no-op; this toolkit makes it an error (an
// unknown or already-deleted ID in a request is a mistake to report, never to swallow), and
// the model and the bootstrap slots are unchanged.
func TestEdgeDeleteNonMember(t *testing.T) {
	ds, _ := reference.SyntheticClassification(40, 2, 1)
	loss := reference.Logistic{Lambda: 0.1}
	r := reference.Stream(1, 0, "edge")
	m, _ := d2d.Learn(context.Background(), edgePlan(t, d2d.SecretState, ds, loss, 5, 0), loss, ds, r)
	before := m.Secret()
	if err := m.Update(context.Background(), reference.DeleteID(999), r); !errors.Is(err, reference.ErrUnknownID) || !slices.Equal(before, m.Secret()) {
		t.Fatalf("d2d: %v, model changed %v", err, !slices.Equal(before, m.Secret()))
	}
	dp, err := d2d.NewDistPlan(d2d.DistParams{Constants: loss.Constants(ds, 5), Radius: 5, N: 40, Dim: 2, Xi: 1.2, Budget: 1, Epsilon: 1, Delta: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	dm, _ := d2d.LearnDistributed(context.Background(), dp, loss, ds, r)
	slots := dm.SlotIDs(0)
	if err := dm.Update(context.Background(), reference.DeleteID(999), r); !errors.Is(err, reference.ErrUnknownID) || !slices.Equal(slots, dm.SlotIDs(0)) {
		t.Fatalf("distributed: %v, slots changed %v", err, !slices.Equal(slots, dm.SlotIDs(0)))
	}
}

// Add then delete the same record: 𝒟_{i+1} = 𝒟_{i−1}, so the retrain is bitwise the one
// before the pair; the unlearned model need not be, but stays within the radius.
func TestEdgeAddThenDeleteSameRecord(t *testing.T) {
	ds, _ := reference.SyntheticClassification(40, 2, 2)
	loss := reference.Logistic{Lambda: 0.1}
	plan := edgePlan(t, d2d.SecretState, ds, loss, 5, 0)
	z := reference.Record{ID: 77, X: []float64{0.5, -0.5}, Y: 1}
	ups := []reference.Update{reference.DeleteID(3), reference.AddRecord(z), reference.DeleteID(77)}
	props.CheckD2DRun(t, plan, loss, ds, ups)
	d1, _ := ds.Without(3)
	d3, _ := d1.With(z)
	d3, _ = d3.Without(77)
	a, _ := d2d.Learn(context.Background(), plan, loss, d1, reference.Stream(1, 0, "a"))
	b, _ := d2d.Learn(context.Background(), plan, loss, d3, reference.Stream(1, 0, "a"))
	if !slices.Equal(a.Secret(), b.Secret()) {
		t.Fatal("A(𝒟_{i+1}) differs from A(𝒟_{i−1}) although the datasets are equal")
	}
}

// Delete down to one record with n_floor = 1: the bounds with the floor hold all the way;
// deleting the last record is an error.
func TestEdgeDeleteDownToOne(t *testing.T) {
	ds, err := reference.SyntheticClassification(6, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	loss := reference.Logistic{Lambda: 0.2}
	plan := edgePlan(t, d2d.SecretState, ds, loss, 5, 1)
	var ups []reference.Update
	for id := int64(0); id < 5; id++ {
		ups = append(ups, reference.DeleteID(id))
	}
	props.CheckD2DRun(t, plan, loss, ds, ups)
	m, err := d2d.Learn(context.Background(), plan, loss, ds, reference.Stream(1, 0, "e"))
	if err != nil {
		t.Fatal(err)
	}
	for i, u := range ups {
		if err := m.Update(context.Background(), u, reference.Stream(1, 0, "e")); err != nil {
			t.Fatalf("update %d: %v", i+1, err)
		}
	}
	before := m.Published()
	err = m.Update(context.Background(), reference.DeleteID(5), reference.Stream(1, 0, "e"))
	if !errors.Is(err, reference.ErrWouldEmpty) {
		t.Fatalf("deleting the last record: %v; want an error wrapping reference.ErrWouldEmpty", err)
	}
	if after := m.Published(); reference.Distance(before, after) != 0 {
		t.Fatalf("the refused request changed the published model from %v to %v", before, after)
	}
}

// Duplicates: two records with the same values and different IDs. Deleting one is an
// ordinary update for GD, and in distributed descent only the deleted record's slots are
// redrawn, the twin's are kept.
func TestEdgeDuplicates(t *testing.T) {
	base, _ := reference.SyntheticClassification(30, 2, 4)
	twin := base.Record(5)
	twin.ID = 500
	ds, _ := base.With(twin)
	loss := reference.Logistic{Lambda: 0.1}
	props.CheckD2DRun(t, edgePlan(t, d2d.SecretState, ds, loss, 5, 0), loss, ds, []reference.Update{reference.DeleteID(5)})
	dp, err := d2d.NewDistPlan(d2d.DistParams{Constants: loss.Constants(ds, 5), Radius: 5, N: ds.Len(), Dim: 2, Xi: 1.2, Budget: 1, Epsilon: 1, Delta: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	r := reference.Stream(2, 0, "dup")
	dm, _ := d2d.LearnDistributed(context.Background(), dp, loss, ds, r)
	twinSlots := func() []int {
		var s []int
		for i, id := range dm.SlotIDs(0) {
			if id == 500 {
				s = append(s, i)
			}
		}
		return s
	}
	before := twinSlots()
	if err := dm.Update(context.Background(), reference.DeleteID(5), r); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(before, twinSlots()) || slices.Contains(dm.SlotIDs(0), 5) {
		t.Fatalf("twin slots %v → %v; deleted record still present: %v", before, twinSlots(), slices.Contains(dm.SlotIDs(0), 5))
	}
}

// A long adversarial sequence (§4.9, with the steady state of §4.6): 10⁴ updates alternately
// adding and deleting an outlier whose gradient is as large as the ball allows, in
// secret-state and convex-strong modes. At every step the unlearned model stays within the
// certified radius and within Δ of the retrain; the worst distance of the last thousand steps
// is no larger than that of the first thousand (no drift); and the mean excess risk of the
// published model in the last 10 % of rounds is within [0.8, 1.25] of the first 10 %'s. The
// risk ratio is a ratio of means of 1 000 noisy rounds each; its spread is a few percent, so
// the band is many standard deviations wide.
func TestEdgeLongAdversarialSequence(t *testing.T) {
	rounds := 10000
	if testing.Short() {
		rounds = 2000
	}
	ds, _ := reference.SyntheticClassification(24, 2, 6)
	for _, mode := range []d2d.Mode{d2d.SecretState, d2d.ConvexStrong} {
		loss := reference.Loss(reference.Logistic{Lambda: 0.1})
		if mode == d2d.ConvexStrong {
			loss = reference.Logistic{}
		}
		star0, err := retrain.Minimize(reference.Logistic{Lambda: 0.1}.Objective(ds), 5, retrain.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// the outlier: unit norm along the minimiser, labelled against it
		x := slices.Clone(star0.Theta)
		nx := reference.Norm(x)
		for j := range x {
			x[j] /= nx
		}
		outlier := reference.Record{ID: 1000, X: x, Y: -1}
		withOut, _ := ds.With(outlier)
		plan := edgePlan(t, mode, withOut, loss, 5, 0)
		plan.Params.N = ds.Len()
		if plan, err = d2d.NewPlan(mode, plan.Params); err != nil {
			t.Fatal(err)
		}
		obj := plan.Loss(loss)
		stars := map[bool][]float64{}
		retrains := map[bool][]float64{}
		for _, in := range []bool{false, true} {
			data := ds
			if in {
				data = withOut
			}
			res, err := retrain.Minimize(obj.Objective(data), plan.Params.Radius, retrain.Options{})
			if err != nil {
				t.Fatal(err)
			}
			stars[in] = res.Theta
			re, _ := d2d.Learn(context.Background(), plan, loss, data, reference.Stream(0, 0, "x"))
			retrains[in] = re.Secret()
		}
		r := reference.Stream(3, 0, "adversarial")
		m, _ := d2d.Learn(context.Background(), plan, loss, ds, r)
		window := rounds / 10
		var firstMax, lastMax, firstRisk, lastRisk float64
		for i := 1; i <= rounds; i++ {
			u := reference.AddRecord(outlier)
			if i%2 == 0 {
				u = reference.DeleteID(1000)
			}
			if err := m.Update(context.Background(), u, r); err != nil {
				t.Fatal(err)
			}
			in := i%2 == 1
			data := ds
			if in {
				data = withOut
			}
			d := reference.Distance(m.Secret(), stars[in])
			if d > plan.RadiusAt(i)*(1+1e-9)+1e-9 || reference.Distance(m.Secret(), retrains[in]) > plan.Sensitivity()*(1+1e-9)+1e-9 {
				t.Fatalf("%s round %d: distance %v, radius %v", mode, i, d, plan.RadiusAt(i))
			}
			o := obj.Objective(data)
			risk := o.Value(m.Published()) - o.Value(stars[in])
			switch {
			case i <= window:
				firstMax, firstRisk = math.Max(firstMax, d), firstRisk+risk
			case i > rounds-window:
				lastMax, lastRisk = math.Max(lastMax, d), lastRisk+risk
			}
		}
		if lastMax > firstMax*(1+1e-9)+1e-12 {
			t.Errorf("%s: worst distance drifted from %v to %v", mode, firstMax, lastMax)
		}
		if ratio := lastRisk / firstRisk; ratio < 0.8 || ratio > 1.25 {
			t.Errorf("%s: mean excess risk of the last 10%% is %.3f × the first 10%%'s", mode, ratio)
		}
		t.Logf("%s: %d adversarial updates, worst distance %.3g → %.3g (radius %.3g), risk ratio %.3f", mode, rounds, firstMax, lastMax, plan.RadiusAt(1), lastRisk/firstRisk)
	}
}

// Perfect mode whose published model falls outside Θ: the warm start is projected (the
// default), and the proof's radius still holds, as in the interior case.
func TestEdgePerfectStartOutsideBall(t *testing.T) {
	ds, _ := reference.SyntheticClassification(30, 2, 7)
	loss := reference.Logistic{Lambda: 0.1}
	plan := edgePlan(t, d2d.Perfect, ds, loss, 0.3, 0) // a ball the minimiser presses against
	outside := 0
	for seed := range 50 {
		r := reference.Stream(uint64(seed), 0, "outside")
		m, _ := d2d.Learn(context.Background(), plan, loss, ds, r)
		if reference.Norm(m.Published()) > plan.Params.Radius {
			outside++
		}
	}
	if outside == 0 {
		t.Fatal("the setup never publishes outside Θ; it does not test the edge")
	}
	props.CheckD2DRun(t, plan, loss, ds, []reference.Update{reference.DeleteID(0), reference.DeleteID(4)})
}

// §4.6: Theorem 3.1's explicit accuracy radius r = (4L/(mn))γ^I/(1−γ^I) + σ√(2d)·ln(2d/β)
// holds for the published model with frequency ≥ 1 − β over 10⁴ noise draws (at most
// β + 4√(β/N) misses), and the excess risk stays below (M/2)r² as often when the optimum is
// interior (asserted: ‖∇f(θ*)‖ < 1e-10).
func TestAccuracyMonteCarlo(t *testing.T) {
	draws := 10000
	if testing.Short() {
		draws = 2000
	}
	ds, _ := reference.SyntheticClassification(50, 3, 12)
	loss := reference.Logistic{Lambda: 0.2}
	plan := edgePlan(t, d2d.SecretState, ds, loss, 10, 0)
	p := plan.Params
	m, _ := d2d.Learn(context.Background(), plan, loss, ds, reference.Stream(1, 0, "acc"))
	if err := m.Update(context.Background(), reference.DeleteID(3), reference.Stream(1, 1, "acc")); err != nil {
		t.Fatal(err)
	}
	cur := m.Data()
	obj := loss.Objective(cur)
	star, err := retrain.Minimize(obj, p.Radius, retrain.Options{})
	if err != nil || star.OnBoundary || star.Residual >= 1e-10 {
		t.Fatalf("the optimum must be interior: %+v, %v", star, err)
	}
	for _, beta := range []float64{0.05, 0.2} {
		radius, alpha := d2daudit.AccuracySC(p.Lipschitz, p.StrongConvexity, p.Smoothness, p.N, p.Budget, ds.Dim(), p.Epsilon, p.Delta, beta)
		r := reference.Stream(2, 0, "noise")
		far, risky := 0, 0
		theta := make([]float64, ds.Dim())
		for range draws {
			reference.FillNormal(theta, plan.Sigma, r)
			for j := range theta {
				theta[j] += m.Secret()[j]
			}
			if reference.Distance(theta, star.Theta) > radius {
				far++
			}
			if obj.Value(theta)-obj.Value(star.Theta) > alpha {
				risky++
			}
		}
		limit := beta + 4*math.Sqrt(beta/float64(draws))
		if float64(far)/float64(draws) > limit || float64(risky)/float64(draws) > limit {
			t.Errorf("β = %v: radius missed in %d, excess risk in %d of %d draws", beta, far, risky, draws)
		}
	}
}
