package d2d_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
)

func distSetup(t *testing.T, copies int, sel d2d.Selection) (d2d.DistPlan, reference.Loss, *reference.Dataset) {
	t.Helper()
	ds, err := reference.SyntheticClassification(120, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	loss := reference.Logistic{Lambda: 0.1}
	plan, err := d2d.NewDistPlan(d2d.DistParams{Constants: loss.Constants(ds, 5), Radius: 5, N: ds.Len(), Dim: 3,
		Xi: 1.2, Budget: 1, Epsilon: 1, Delta: 1e-5, Copies: copies, Selection: sel})
	if err != nil {
		t.Fatal(err)
	}
	return plan, loss, ds
}

func TestDistributedUpdateInvariants(t *testing.T) {
	plan, loss, ds := distSetup(t, 1, d2d.NoiseFreeSelection)
	ctx := context.Background()
	r := reference.Stream(1, 0, "dist")
	m, err := d2d.LearnDistributed(ctx, plan, loss, ds, r)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.GradientEvaluations(), int64(plan.B*plan.T); got != want {
		t.Fatalf("learning cost %d gradients, want B·T = %d", got, want)
	}
	// delete records that are in the sample, add one, delete a fresh one
	slots := m.SlotIDs(0)
	other := slots[len(slots)-1]
	for k := len(slots) - 1; other == slots[0]; k-- { // a second record, distinct from the first
		other = slots[k]
	}
	updates := []reference.Update{reference.DeleteID(slots[0]), reference.AddRecord(reference.Record{ID: 500, X: ds.Row(1), Y: -1}),
		reference.DeleteID(other), reference.DeleteID(500)}
	per := plan.B / plan.K
	for i, u := range updates {
		before := make([][]float64, plan.K)
		for j := range plan.K {
			before[j] = m.PartitionModel(0, j)
		}
		slotsBefore := m.SlotIDs(0)
		evals := m.GradientEvaluations()
		if err := m.Update(ctx, u, r); err != nil {
			t.Fatal(err)
		}
		touched := m.Touched(0)
		// Algorithm 6 re-optimises exactly the partitions whose slots changed, no others
		var changed []int
		slotsAfter := m.SlotIDs(0)
		for j := range plan.K {
			if !slices.Equal(slotsBefore[j*per:(j+1)*per], slotsAfter[j*per:(j+1)*per]) {
				changed = append(changed, j)
			}
		}
		if !slices.Equal(touched, changed) {
			t.Fatalf("update %d touched partitions %v, but the slots of %v changed", i+1, touched, changed)
		}
		for j := range plan.K {
			if !slices.Contains(touched, j) && !slices.Equal(before[j], m.PartitionModel(0, j)) {
				t.Fatalf("update %d: untouched partition %d changed", i+1, j)
			}
		}
		// budget per copy: Σ_{j∈ind} T'·|S_j| ≤ n·⌈T_i⌉ + |ind|·B/K (spec d2d §4.8)
		spent := m.GradientEvaluations() - evals
		if limit := int64(plan.Params.N)*int64(math.Ceil(plan.UpdateBudget(i+1))) + int64(len(touched)*per); spent > limit {
			t.Fatalf("update %d spent %d gradients, budget %d", i+1, spent, limit)
		}
		if len(m.SlotIDs(0)) != plan.B {
			t.Fatalf("update %d: %d slots, want B = %d", i+1, len(m.SlotIDs(0)), plan.B)
		}
		if u.Kind == reference.Delete && slices.Contains(m.SlotIDs(0), u.ID) {
			t.Fatalf("update %d: a slot still holds deleted record %d", i+1, u.ID)
		}
		rel := m.Release()
		if gap, cert := reference.Distance(rel.Secret, m.CoupledRetrain()), m.CertifiedDelta(); gap > cert*(1+1e-9) {
			t.Fatalf("update %d: ‖unlearned − coupled retrain‖ = %v exceeds the certified %v", i+1, gap, cert)
		}
		if reference.Distance(rel.Published, rel.Secret) == 0 {
			t.Fatal("published without noise")
		}
	}
	if err := m.Update(ctx, reference.DeleteID(500), r); !errors.Is(err, reference.ErrUnknownID) || !strings.Contains(err.Error(), "already deleted") {
		t.Fatalf("deleting 500 twice: %v", err)
	}
	if err := m.Update(ctx, reference.DeleteID(12345), r); !errors.Is(err, reference.ErrUnknownID) {
		t.Fatalf("unknown ID: %v", err)
	}
}

func TestDistributedFloor(t *testing.T) {
	plan, loss, ds := distSetup(t, 1, d2d.NoiseFreeSelection)
	r := reference.Stream(1, 0, "dist")
	m, _ := d2d.LearnDistributed(context.Background(), plan, loss, ds, r)
	var err error
	for id := int64(0); err == nil; id++ {
		err = m.Update(context.Background(), reference.DeleteID(id), r)
	}
	if !strings.Contains(err.Error(), "Assumption 2.6") || len(m.Members()) != ds.Len()/2 {
		t.Fatalf("stopped at %d members with %v", len(m.Members()), err)
	}
}

// A declared floor on every n_i (spec d2d §1.4) takes n/2's place: Δ and σ scale by
// (n/2)/n_floor (the very bits at n_floor = n/2, 2.5× at n/5), deletions go on
// down to the floor and stop there, and a floor above n is refused naming the field.
func TestDistributedDeclaredFloor(t *testing.T) {
	paper, loss, ds := distSetup(t, 1, d2d.NoiseFreeSelection)
	n := ds.Len()
	for _, c := range []struct {
		floor int
		scale float64
	}{{n / 2, 1}, {n / 5, 2.5}, {n, 0.5}} {
		p := paper.Params
		p.NFloor = c.floor
		plan, err := d2d.NewDistPlan(p)
		if err != nil {
			t.Fatal(err)
		}
		// Δ: n/2 declared is the paper's own form, to the bit; another floor changes the
		// quotient 4L/(m·floor), rounded once, and the scale's product rounds once more,
		// each within 2⁻⁵³, and the rest of Δ's operations (×γ^a, ÷(1 − γ^a)) are the same
		// values rounded again: within 8·2⁻⁵³ in all; σ the same through GaussianSigma's quotient
		tol := 8 * 0x1p-53
		if c.scale == 1 {
			tol = 0
		}
		if got, want := plan.Sensitivity(), c.scale*paper.Sensitivity(); math.Abs(got-want) > tol*want {
			t.Errorf("n_floor %d: Δ = %v, want %v·%v", c.floor, got, c.scale, paper.Sensitivity())
		}
		if got, want := plan.Sigma, c.scale*paper.Sigma; math.Abs(got-want) > tol*want {
			t.Errorf("n_floor %d: σ = %v, want %v·%v", c.floor, got, c.scale, paper.Sigma)
		}
	}
	p := paper.Params
	p.NFloor = n / 5
	plan, err := d2d.NewDistPlan(p)
	if err != nil {
		t.Fatal(err)
	}
	r := reference.Stream(1, 0, "dist")
	m, err := d2d.LearnDistributed(context.Background(), plan, loss, ds, r)
	if err != nil {
		t.Fatal(err)
	}
	for id := int64(0); err == nil; id++ {
		err = m.Update(context.Background(), reference.DeleteID(id), r)
	}
	if !strings.Contains(err.Error(), "Assumption 2.6") || len(m.Members()) != n/5 {
		t.Fatalf("n_floor %d: stopped at %d members with %v", n/5, len(m.Members()), err)
	}
	p.NFloor = n + 1
	if _, err := d2d.NewDistPlan(p); err == nil || !strings.Contains(err.Error(), "n-floor") {
		t.Errorf("n_floor %d > n = %d: %v", n+1, n, err)
	}
}

// With C > 1 copies both selection rules publish one copy's average plus noise; the noisy
// rule adds √C more noise (zCDP composition over the candidates).
func TestDistributedCopies(t *testing.T) {
	for _, sel := range []d2d.Selection{d2d.NoiseFreeSelection, d2d.NoisySelection} {
		plan, loss, ds := distSetup(t, 3, sel)
		r := reference.Stream(2, 0, "dist")
		m, err := d2d.LearnDistributed(context.Background(), plan, loss, ds, r)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Update(context.Background(), reference.DeleteID(m.SlotIDs(m.Chosen())[0]), r); err != nil {
			t.Fatal(err)
		}
		if m.Chosen() < 0 || m.Chosen() > 2 || m.GradientEvaluations() <= int64(3*plan.B*plan.T) {
			t.Fatalf("selection %v: chosen %d, %d gradients", sel, m.Chosen(), m.GradientEvaluations())
		}
	}
}

func TestDistPlanValidation(t *testing.T) {
	_, err := d2d.NewDistPlan(d2d.DistParams{Xi: 2})
	for _, field := range []string{"strong-convexity", "lipschitz", "xi", "epsilon", "delta"} {
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("missing %q in %v", field, err)
		}
	}
}
