package sglu

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"pgregory.net/rapid"
)

// testParams is the experiment model of spec sglu §2.2 on a dataset with unit rows:
// λ-regularised logistic loss with the data gradient clipped to M = 1, L = 1/4 + λ, η = 1/L.
func testParams(n, b int, lambda, sigma float64, epochs int) (Params, reference.Loss) {
	L := 0.25 + lambda
	return Params{Problem: Problem{Smoothness: L, Lipschitz: 1, StrongConvexity: lambda, StepSize: 1 / L, N: n, Batch: b, Radius: math.Inf(1)},
		Sigma: sigma, Epochs: epochs}, reference.Logistic{Lambda: lambda, Clip: 1}
}

func unitData(t interface{ Fatal(...any) }, n, d int, seed uint64) *reference.Dataset {
	ds, err := reference.SyntheticClassification(n, d, seed)
	if err != nil {
		t.Fatal(err)
	}
	return ds.NormalizeRows()
}

// Same seed, same model; an epoch costs n gradients; replacement keeps the slot and the
// batch; unknown IDs are named errors.
func TestPNSGDBasics(t *testing.T) {
	ds := unitData(t, 64, 3, 1)
	p, loss := testParams(64, 16, 0.05, 0.1, 5)
	ctx := context.Background()
	a, err := Learn(ctx, p, loss, ds, reference.Stream(1, 0, "a"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Learn(ctx, p, loss, ds, reference.Stream(1, 0, "a"))
	if !slices.Equal(a.Published(), b.Published()) {
		t.Fatal("same seed, different models")
	}
	if a.GradientEvaluations() != 5*64 || a.EpochsRun() != 5 {
		t.Fatalf("%d gradients over %d epochs, want 320 over 5", a.GradientEvaluations(), a.EpochsRun())
	}
	id := ds.ID(7)
	j0, _ := a.BatchOf(id)
	rec, err := a.Unlearn(ctx, id, 2, reference.Stream(1, 1, "u"))
	if err != nil {
		t.Fatal(err)
	}
	if j, ok := a.BatchOf(rec.ID); !ok || j != j0 {
		t.Fatalf("replacement in batch %d (ok %v), the removed record was in %d", j, ok, j0)
	}
	if _, ok := a.BatchOf(id); ok {
		t.Fatal("the removed record is still there")
	}
	if math.Abs(reference.Norm(rec.X)-reference.Norm(ds.Row(7))) > 1e-12 || math.Abs(rec.Y) != 1 {
		t.Fatalf("replacement %+v: want the removed row's norm and a ±1 label", rec)
	}
	if a.GradientEvaluations() != 7*64 {
		t.Fatalf("%d gradients after 2 unlearning epochs, want 448", a.GradientEvaluations())
	}
	if _, err := a.Unlearn(ctx, id, 1, reference.Stream(1, 2, "u")); !errors.Is(err, reference.ErrUnknownID) {
		t.Fatalf("removing %d twice: %v", id, err)
	}
	if got := a.Ordered(); got.Len() != 64 || !got.Has(rec.ID) || got.Has(id) {
		t.Fatal("Ordered does not reflect the replacement")
	}
	if err := a.SetSigma(0); err == nil || a.Params().Sigma != p.Sigma {
		t.Fatalf("σ = 0 accepted (%v) or changed the model", err)
	}
	if _, err := Learn(ctx, p, loss, unitData(t, 60, 3, 1), reference.Stream(1, 0, "a")); err == nil {
		t.Fatal("b ∤ n was accepted")
	}
}

// The deletion variant drops the record and shrinks its batch.
func TestPNSGDDeleteRemoval(t *testing.T) {
	ds := unitData(t, 32, 2, 3)
	p, loss := testParams(32, 8, 0.05, 0.1, 2)
	p.Removal = DeleteRemoval
	m, err := Learn(context.Background(), p, loss, ds, reference.Stream(2, 0, "a"))
	if err != nil {
		t.Fatal(err)
	}
	before := m.GradientEvaluations()
	if _, err := m.Unlearn(context.Background(), ds.ID(0), 1, reference.Stream(2, 1, "u")); err != nil {
		t.Fatal(err)
	}
	if got := m.GradientEvaluations() - before; got != 31 {
		t.Fatalf("an epoch after a deletion cost %d gradients, want 31", got)
	}
	if o := m.Ordered(); o.Len() != 31 || o.Has(ds.ID(0)) {
		t.Fatalf("%d records after deleting one of 32", o.Len())
	}
}

// Spec sglu §4.2, simulator sanity: with the same batches and the same noise, each noisy
// step is c-contractive (c = 1 − ηm) between runs from different starts; with one record
// replaced in batch j0 the coupled distance obeys Lemma 3.5's recursion step by step:
// W_{k+1} ≤ c·W_k + (2ηM/b)·1[j = j0].
func TestPNSGDCoupledContraction(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nb := rapid.IntRange(1, 6).Draw(t, "batches")
		b := rapid.IntRange(2, 8).Draw(t, "b")
		n, d := nb*b, rapid.IntRange(1, 4).Draw(t, "d")
		ds := unitData(t, n, d, rapid.Uint64().Draw(t, "seed"))
		lambda := 0.01 + float64(rapid.IntRange(0, 100).Draw(t, "lambda"))/100
		p, loss := testParams(n, b, lambda, 0.05, 0)
		p.Init = ZeroInit
		if rapid.Bool().Draw(t, "project") {
			p.Radius = 0.5 + float64(rapid.IntRange(0, 40).Draw(t, "R"))/10
		}
		replace := rapid.Bool().Draw(t, "replace")
		ctx := context.Background()
		x, _ := LearnOrdered(ctx, p, loss, ds, reference.Stream(0, 0, "x"))
		y, _ := LearnOrdered(ctx, p, loss, ds, reference.Stream(0, 0, "y"))
		for i := range y.theta {
			y.theta[i] = float64(rapid.IntRange(-20, 20).Draw(t, "start")) / 10
		}
		reference.ProjectBall(y.theta, math.Min(p.Radius, 1e6))
		j0 := -1
		if replace {
			k := rapid.IntRange(0, n-1).Draw(t, "slot")
			j0 = k / b
			x.Replace(ds.ID(k), reference.Record{ID: 1 << 40, X: negate(ds.Row(k)), Y: -ds.Label(k)})
		}
		c := p.C()
		key := rapid.Uint64().Draw(t, "noise") // one Epochs call's key, shared
		var s uint32
		for epoch := range 3 {
			for j := range nb {
				w := reference.Distance(x.theta, y.theta)
				x.stepBatch(j, key, s)
				y.stepBatch(j, key, s)
				s++
				bound := c * w
				if j == j0 {
					bound += 2 * p.StepSize * p.Lipschitz / float64(b)
				}
				if got := reference.Distance(x.theta, y.theta); got > bound*(1+1e-12)+1e-12 {
					t.Fatalf("epoch %d batch %d (j0 %d): distance %v > %v", epoch, j, j0, got, bound)
				}
			}
		}
	})
}

func negate(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = -v
	}
	return out
}

// The two inequalities above are tight, so the test has teeth: with zero features the
// data term has no curvature and a coupled step contracts by exactly c; with the data
// gradient clipped hard (M = 0.01) a label flip in batch j0 moves two coupled runs from
// the same start apart by exactly 2ηM/b.
func TestPNSGDContractionTight(t *testing.T) {
	ctx := context.Background()
	zero, _ := reference.FromRecords(2, []reference.Record{{ID: 0, X: []float64{0, 0}, Y: 1}, {ID: 1, X: []float64{0, 0}, Y: -1}})
	p, loss := testParams(2, 2, 0.3, 0.1, 0)
	p.Init = ZeroInit
	x, _ := LearnOrdered(ctx, p, loss, zero, reference.Stream(0, 0, "x"))
	y, _ := LearnOrdered(ctx, p, loss, zero, reference.Stream(0, 0, "x"))
	y.theta[0], y.theta[1] = 1, -2
	for step := range uint32(5) {
		w := reference.Distance(x.theta, y.theta)
		x.stepBatch(0, 5, step)
		y.stepBatch(0, 5, step)
		if got, want := reference.Distance(x.theta, y.theta), p.C()*w; math.Abs(got-want) > 1e-12*want {
			t.Fatalf("step %d: distance %v, want exactly c·w = %v", step, got, want)
		}
	}

	ds := unitData(t, 8, 3, 4)
	p, _ = testParams(8, 4, 0.05, 0.1, 0)
	p.Init, p.Lipschitz = ZeroInit, 0.01
	clipped := reference.Logistic{Lambda: 0.05, Clip: 0.01}
	x, _ = LearnOrdered(ctx, p, clipped, ds, reference.Stream(0, 0, "x"))
	y, _ = LearnOrdered(ctx, p, clipped, ds, reference.Stream(0, 0, "x"))
	if err := x.Replace(ds.ID(5), reference.Record{ID: 99, X: ds.Row(5), Y: -ds.Label(5)}); err != nil {
		t.Fatal(err)
	}
	x.stepBatch(1, 6, 0)
	y.stepBatch(1, 6, 0)
	if got, want := reference.Distance(x.theta, y.theta), 2*p.StepSize*p.Lipschitz/4; math.Abs(got-want) > 1e-12*want {
		t.Fatalf("after the batch holding the flipped label: distance %v, want 2ηM/b = %v", got, want)
	}
}
