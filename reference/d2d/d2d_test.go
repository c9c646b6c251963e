package d2d_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"gonum.org/v1/gonum/mat"
)

func setup(t *testing.T, mode d2d.Mode) (d2d.Plan, reference.Loss, *reference.Dataset) {
	t.Helper()
	ds, err := reference.SyntheticClassification(40, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	loss := reference.Logistic{Lambda: 0.1}
	p := d2d.Params{Constants: loss.Constants(ds, 5), Radius: 5, N: ds.Len(), Dim: 3, Budget: 5, Epsilon: 1, Delta: 1e-6}
	if mode == d2d.Perfect {
		p.Budget = p.PerfectMinBudget()
	}
	plan, err := d2d.NewPlan(mode, p)
	if err != nil {
		t.Fatal(err)
	}
	return plan, loss, ds
}

func TestUpdateRejectsUnknownIDAndKeepsState(t *testing.T) {
	plan, loss, ds := setup(t, d2d.SecretState)
	r := reference.Stream(1, 0, "t")
	m, err := d2d.Learn(context.Background(), plan, loss, ds, r)
	if err != nil {
		t.Fatal(err)
	}
	before := m.Secret()
	err = m.Update(context.Background(), reference.DeleteID(12345), r)
	if !errors.Is(err, reference.ErrUnknownID) || !strings.Contains(err.Error(), "12345") {
		t.Fatalf("got %v; want an unknown-ID error naming 12345", err)
	}
	if m.Round() != 0 || reference.Distance(before, m.Secret()) != 0 || m.Data().Len() != ds.Len() {
		t.Fatal("a rejected update changed the model")
	}
	if err := m.Update(context.Background(), reference.DeleteID(3), r); err != nil {
		t.Fatal(err)
	}
	if err := m.Update(context.Background(), reference.DeleteID(3), r); err == nil || !strings.Contains(err.Error(), "already deleted") {
		t.Fatalf("deleting 3 twice: %v", err)
	}
}

// Assumption 2.6: with the paper's form, shrinking below n/2 is an error (spec d2d §4.9);
// with an explicit n-floor the run may go lower.
func TestAssumption26Floor(t *testing.T) {
	plan, loss, ds := setup(t, d2d.SecretState)
	r := reference.Stream(1, 0, "t")
	m, _ := d2d.Learn(context.Background(), plan, loss, ds, r)
	var err error
	for id := int64(0); id < int64(ds.Len()) && err == nil; id++ {
		err = m.Update(context.Background(), reference.DeleteID(id), r)
	}
	if err == nil || !strings.Contains(err.Error(), "Assumption 2.6") || m.Data().Len() != ds.Len()/2 {
		t.Fatalf("got %v with %d records left; want an Assumption 2.6 error at n/2 = %d", err, m.Data().Len(), ds.Len()/2)
	}
	p := plan.Params
	p.NFloor = 1
	low, err := d2d.NewPlan(d2d.SecretState, p)
	if err != nil {
		t.Fatal(err)
	}
	if !(low.Sigma > plan.Sigma) {
		t.Fatalf("a lower floor must cost noise: σ %v vs %v", low.Sigma, plan.Sigma)
	}
	m, _ = d2d.Learn(context.Background(), low, loss, ds, r)
	for id := int64(0); id < int64(ds.Len())-1; id++ {
		if err := m.Update(context.Background(), reference.DeleteID(id), r); err != nil {
			t.Fatalf("n-floor 1, deleting %d: %v", id, err)
		}
	}
	if err := m.Update(context.Background(), reference.DeleteID(int64(ds.Len())-1), r); err == nil {
		t.Fatal("deleting the last record must be an error")
	}
}

func TestPerfectBelowMinimumBudget(t *testing.T) {
	plan, _, _ := setup(t, d2d.Perfect)
	p := plan.Params
	p.Budget = p.PerfectMinBudget() - 1
	if _, err := d2d.NewPlan(d2d.Perfect, p); err == nil || !strings.Contains(err.Error(), "I_min") {
		t.Fatalf("got %v; want an I_min error", err)
	}
}

// γ = 0 when M = m (spec d2d §4.9): σ = 0, T = I, and one GD step with η = 1/m is exact on
// a pure quadratic (ridge on all-zero features: f = ½y² + (λ/2)‖θ‖², minimiser 0).
func TestGammaZero(t *testing.T) {
	ds, err := reference.NewDataset([]int64{0, 1, 2, 3}, mat.NewDense(4, 2, nil), []float64{1, -1, 2, 0})
	if err != nil {
		t.Fatal(err)
	}
	loss := reference.Ridge{Lambda: 0.5}
	c := loss.Constants(ds, 3)
	if c.Smoothness != c.StrongConvexity {
		t.Fatalf("zero features should give M = m, got %+v", c)
	}
	p := d2d.Params{Constants: c, Radius: 3, N: 4, Dim: 2, Budget: 3, Epsilon: 1, Delta: 1e-6}
	for _, mode := range []d2d.Mode{d2d.SecretState, d2d.Perfect} {
		plan, err := d2d.NewPlan(mode, p)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if plan.Gamma != 0 || plan.Sigma != 0 || plan.LearnIterations(4) != 3 || plan.UpdateIterations(7) != 3 || p.PerfectMinBudget() != 1 {
			t.Fatalf("%s: γ=%v σ=%v T=%d T_7=%d I_min=%d", mode, plan.Gamma, plan.Sigma, plan.LearnIterations(4), plan.UpdateIterations(7), p.PerfectMinBudget())
		}
	}
	theta := []float64{1.5, -2}
	g := make([]float64, 2)
	d2d.Descend(loss.Objective(ds), theta, g, d2d.StepSize(c.Smoothness, c.StrongConvexity), 3, 1)
	if reference.Norm(theta) > 1e-15 {
		t.Fatalf("one step with γ = 0 should land on θ* = 0, got %v", theta)
	}
}

func TestValidateNamesFields(t *testing.T) {
	err := d2d.Params{}.Validate()
	for _, field := range []string{"strong-convexity", "lipschitz", "radius", "iterations", "epsilon", "delta"} {
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("missing field %q in %v", field, err)
		}
	}
}

// Publishing adds N(0, σ²I): the published model differs from the secret one, and the
// secret-state trajectory does not depend on the noise.
func TestSecretStateIgnoresNoise(t *testing.T) {
	plan, loss, ds := setup(t, d2d.SecretState)
	run := func(seed uint64) *d2d.Model {
		r := reference.Stream(seed, 0, "noise")
		m, _ := d2d.Learn(context.Background(), plan, loss, ds, r)
		for id := int64(0); id < 5; id++ {
			m.Update(context.Background(), reference.DeleteID(id), r)
		}
		return m
	}
	a, b := run(1), run(2)
	if reference.Distance(a.Secret(), b.Secret()) != 0 {
		t.Fatal("the secret state depends on the publishing noise")
	}
	if reference.Distance(a.Published(), b.Published()) == 0 || reference.Distance(a.Published(), a.Secret()) == 0 {
		t.Fatal("publishing added no noise")
	}
	if math.IsNaN(a.Published()[0]) {
		t.Fatal("NaN")
	}
}

func ExampleLearn() {
	ds, _ := reference.SyntheticClassification(500, 10, 1)
	loss := reference.Logistic{Lambda: 0.05}
	radius := 10.0
	plan, err := d2d.NewPlan(d2d.SecretState, d2d.Params{
		Constants: loss.Constants(ds, radius), Radius: radius, N: ds.Len(), Dim: ds.Dim(),
		Budget: 10, Epsilon: 1, Delta: 1e-6,
	})
	if err != nil {
		panic(err)
	}
	streams := reference.Streams{Seed: 1}
	m, _ := d2d.Learn(context.Background(), plan, loss, ds, streams.Rand("publish/0"))
	if err := m.Update(context.Background(), reference.DeleteID(42), streams.Rand("publish/1")); err != nil {
		panic(err)
	}
	fmt.Printf("σ = %.4f after %d update; %d records; %d gradient evaluations\n",
		plan.Sigma, m.Round(), m.Data().Len(), m.GradientEvaluations())
	// Output: σ = 0.0920 after 1 update; 499 records; 17990 gradient evaluations
}
