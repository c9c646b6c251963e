package props_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/props"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/sglu"
	"pgregory.net/rapid"
)

// couplingCase draws what the coupled checks need: unit rows in n = (n/b)·b slots,
// λ-regularised logistic loss with its data gradient clipped at M ≤ 1, η = v/L, σ, a ball
// (or none), and two starts inside it.
type couplingCase struct {
	params sglu.Params
	loss   reference.Logistic
	data   *reference.Dataset
	x0, y0 []float64
}

func drawCoupling(t *rapid.T) couplingCase {
	nb, b, d := rapid.IntRange(1, 5).Draw(t, "batches"), rapid.IntRange(1, 8).Draw(t, "b"), rapid.IntRange(1, 4).Draw(t, "d")
	if nb*b == 1 {
		b = 2 // the synthetic data need two rows
	}
	n := nb * b
	ds, err := reference.SyntheticClassification(n, d, rapid.Uint64().Draw(t, "data"))
	if err != nil {
		t.Fatal(err)
	}
	lambda := scaled(t, 0.01, 1, "lambda")
	M := scaled(t, 0.05, 1, "M")
	L := 0.25 + lambda
	p := sglu.Params{Problem: sglu.Problem{Smoothness: L, Lipschitz: M, StrongConvexity: lambda, StepSize: scaled(t, 0.2, 1, "v") / L,
		N: n, Batch: b, Radius: math.Inf(1)}, Sigma: logScaled(t, 0.01, 1, "sigma")}
	if rapid.Bool().Draw(t, "project") {
		p.Radius = scaled(t, 0.5, 5, "R")
	}
	c := couplingCase{params: p, loss: reference.Logistic{Lambda: lambda, Clip: M}, data: ds.NormalizeRows()}
	for _, label := range []string{"x0", "y0"} {
		v := make([]float64, d)
		for i := range v {
			v[i] = scaled(t, -3, 3, label)
		}
		reference.ProjectBall(v, math.Min(p.Radius, 1e6))
		if label == "x0" {
			c.x0 = v
		} else {
			c.y0 = v
		}
	}
	return c
}

// Both checks pass on reference/sglu: coupled runs contract by c^{Kn/b}, and a replaced
// record moves them apart by no more than Lemma 3.5 allows, for every slot and for the
// worst replacement (label flipped, so the clipped data gradients differ by up to 2M).
func TestPNSGDCouplingChecksOnReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := drawCoupling(t)
		run := props.ReferencePNSGD(c.params, c.loss)
		K := rapid.IntRange(1, 6).Draw(t, "K")
		seed := rapid.Uint64().Draw(t, "seed")
		props.CheckPNSGDContraction(t, run, c.params.Problem, c.data, K, c.x0, c.y0, seed)
		k := rapid.IntRange(0, c.data.Len()-1).Draw(t, "slot")
		old := c.data.Record(k)
		props.CheckPNSGDReplacement(t, run, c.params.Problem, c.data, k, reference.Record{ID: 1 << 40, X: old.X, Y: -old.Y}, K, c.x0, seed)
	})
}

// failure records a failed check instead of failing the test.
type failure struct{ msg string }

type recorder struct{}

func (recorder) Helper()                           {}
func (recorder) Fatal(args ...any)                 { panic(failure{fmt.Sprint(args...)}) }
func (recorder) Fatalf(format string, args ...any) { panic(failure{fmt.Sprintf(format, args...)}) }

// caught runs a check and returns its failure message, or "" if it passed.
func caught(check func(props.TB)) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(failure)
			if !ok {
				panic(r)
			}
			msg = f.msg
		}
	}()
	check(recorder{})
	return ""
}

// plantedPNSGD is a PNSGD with one of three bugs: the batch gradient summed instead of
// averaged (a step b times too long), the batches swept in reverse (the replaced record's
// batch moves), or a noise stream that depends on the data (no coupling; the checks then
// see the noise).
func plantedPNSGD(bug string, p sglu.Params, loss reference.Loss) props.NoisyEpochs {
	return func(ctx context.Context, start []float64, data *reference.Dataset, K int, r *rand.Rand) ([]float64, error) {
		theta := slices.Clone(start)
		g, noise := make([]float64, len(theta)), make([]float64, len(theta))
		nb := p.N / p.Batch
		if bug == "data-dependent noise" {
			r = reference.Stream(uint64(math.Float64bits(data.Label(0)+data.Row(0)[0])), 0, "planted")
		}
		for range K {
			for jj := range nb {
				j := jj
				if bug == "reversed batches" {
					j = nb - 1 - jj
				}
				ids := data.IDs()[j*p.Batch : (j+1)*p.Batch]
				batch, err := data.Subset(ids)
				if err != nil {
					return nil, err
				}
				loss.Objective(batch).Gradient(g, theta)
				eta := p.StepSize
				if bug == "summed gradient" {
					eta *= float64(p.Batch)
				}
				reference.FillNormal(noise, math.Sqrt(2*p.StepSize)*p.Sigma, r)
				for i := range theta {
					theta[i] += noise[i] - eta*g[i]
				}
				if !math.IsInf(p.Radius, 1) {
					reference.ProjectBall(theta, p.Radius)
				}
			}
		}
		return theta, nil
	}
}

// The checks have teeth: on a fixed small problem each planted bug is caught by the check
// that speaks of it, while the same problem passes with the reference implementation.
// Setting: 4 batches of 8 unit rows in d = 2, λ = 0.25, data gradient clipped at M = 0.02
// (so a flipped label moves a batch gradient by up to 2M/b), η = 1/L (c = 1/2), no
// projection. The summed gradient takes steps of 8η, and |1 − 8ηλ| = 3 expands; the
// reversed sweep visits the replaced record's batch last, which Lemma 3.5 bounds for
// batch 0 by c³ = 1/8 of that.
func TestPNSGDCouplingChecksCatchPlantedBugs(t *testing.T) {
	ds, err := reference.SyntheticClassification(32, 2, 5)
	if err != nil {
		t.Fatal(err)
	}
	ds = ds.NormalizeRows()
	const lambda, M = 0.25, 0.02
	L := 0.25 + lambda
	p := sglu.Params{Problem: sglu.Problem{Smoothness: L, Lipschitz: M, StrongConvexity: lambda, StepSize: 1 / L, N: 32, Batch: 8, Radius: math.Inf(1)}, Sigma: 0.1}
	loss := reference.Logistic{Lambda: lambda, Clip: M}
	x0, y0 := []float64{1, -1}, []float64{-2, 0.5}
	flip := func(k int) reference.Record { r := ds.Record(k); return reference.Record{ID: 99, X: r.X, Y: -r.Y} }
	contraction := func(run props.NoisyEpochs) func(props.TB) {
		return func(tb props.TB) { props.CheckPNSGDContraction(tb, run, p.Problem, ds, 3, x0, y0, 7) }
	}
	replacement := func(run props.NoisyEpochs) func(props.TB) {
		return func(tb props.TB) { props.CheckPNSGDReplacement(tb, run, p.Problem, ds, 0, flip(0), 3, x0, 7) }
	}
	ref := props.ReferencePNSGD(p, loss)
	if msg := caught(contraction(ref)) + caught(replacement(ref)); msg != "" {
		t.Fatalf("the reference implementation fails: %s", msg)
	}
	for _, tc := range []struct {
		bug   string
		check func(props.NoisyEpochs) func(props.TB)
	}{
		{"summed gradient", contraction},
		{"reversed batches", replacement},
		{"data-dependent noise", replacement},
	} {
		msg := caught(tc.check(plantedPNSGD(tc.bug, p, loss)))
		if msg == "" {
			t.Errorf("%s: not caught", tc.bug)
			continue
		}
		t.Logf("%s: %s", tc.bug, msg)
	}
}
