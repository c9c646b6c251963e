package props

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/unlearnaudit/unlearnaudit/audit/sgluaudit"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/sglu"
	"pgregory.net/rapid"
)

// SGLUProblem draws the constants of an SGLU bound (spec sglu §4 generator): L ∈ [0.05, 10],
// m = u·L with u log-uniform in [1e-4, 1], η = v/L with v ∈ [0.05, 1], M ∈ [0.01, 10],
// n ∈ [1, 4096] with b a random divisor of n, R log-uniform in [0.01, 1e3] or +Inf.
func SGLUProblem(t *rapid.T) sglu.Problem {
	L := scaled(t, 0.05, 10, "L")
	n := rapid.IntRange(1, 4096).Draw(t, "n")
	var divisors []int
	for b := 1; b <= n; b++ {
		if n%b == 0 {
			divisors = append(divisors, b)
		}
	}
	p := sglu.Problem{
		Smoothness:      L,
		StrongConvexity: L * logScaled(t, 1e-4, 1, "u"),
		StepSize:        scaled(t, 0.05, 1, "v") / L,
		Lipschitz:       scaled(t, 0.01, 10, "M"),
		N:               n,
		Batch:           rapid.SampledFrom(divisors).Draw(t, "b"),
		Radius:          math.Inf(1),
	}
	if rapid.Bool().Draw(t, "capped") {
		p.Radius = logScaled(t, 0.01, 1e3, "R")
	}
	return p
}

// QuadraticPNSGD is the exact oracle of spec sglu §4.1 (sgluaudit.QuadraticOracle, which
// the audit also runs on real data).
type QuadraticPNSGD = sgluaudit.QuadraticOracle

// NoisyEpochs is a PNSGD implementation under test (Algorithm 1 of the SGLU paper): it
// runs K epochs over the records of data in slot order, batch j holding rows
// j·b … j·b+b−1 swept in order, starting from start and drawing its Gaussian noise from
// r, and returns the final iterate. The checks below run it twice on one noise stream (a
// coupling), so it must draw the same noise whatever the data and the start.
type NoisyEpochs func(ctx context.Context, start []float64, data *reference.Dataset, K int, r *rand.Rand) ([]float64, error)

// ReferencePNSGD is reference/sglu as a NoisyEpochs, for the parameters and loss given
// (its Init and Epochs are replaced: each run starts at start and runs K epochs).
func ReferencePNSGD(p sglu.Params, loss reference.Loss) NoisyEpochs {
	return func(ctx context.Context, start []float64, data *reference.Dataset, K int, r *rand.Rand) ([]float64, error) {
		q := p
		q.Init, q.Start, q.Epochs = sglu.PointInit, start, K
		m, err := sglu.LearnOrdered(ctx, q, loss, data, r)
		if err != nil {
			return nil, err
		}
		return m.Published(), nil
	}
}

// couplingSlack is the rounding two coupled float64 runs may add to an exact inequality:
// each of their N steps is a gradient (a dot product of d terms per row, then an average)
// and an update, each rounding to a few ε relative to the iterate's size, so allow
// 16·(d + b)·ε·(1 + ‖θ‖) per step.
func couplingSlack(p sglu.Problem, d int, size float64) float64 {
	steps := float64(p.StepsPerEpoch())
	eps := math.Nextafter(1, 2) - 1
	return steps * 16 * float64(d+p.Batch) * eps * (1 + size)
}

// coupledRuns runs the implementation from x0 on dx and from y0 on dy, each K epochs on
// its own copy of the same noise stream.
func coupledRuns(t TB, run NoisyEpochs, x0, y0 []float64, dx, dy *reference.Dataset, K int, seed uint64, purpose string) (x, y []float64) {
	t.Helper()
	ctx := context.Background()
	x, err := run(ctx, x0, dx, K, reference.Stream(seed, 0, purpose))
	if err != nil {
		t.Fatal(err)
	}
	y, err = run(ctx, y0, dy, K, reference.Stream(seed, 0, purpose))
	if err != nil {
		t.Fatal(err)
	}
	return x, y
}

// CheckPNSGDContraction checks the contraction every SGLU bound rests on (Appendix D;
// spec sglu §4.2, simulator sanity): K epochs from two starts on the same data with the
// same noise end at most c^{K·n/b} times as far apart as they began, c = 1 − ηm, when
// every per-sample loss is m-strongly convex and L-smooth and η ≤ 1/L (p holds m, L, η,
// b). Projection onto a ball only helps.
func CheckPNSGDContraction(t TB, run NoisyEpochs, p sglu.Problem, data *reference.Dataset, K int, x0, y0 []float64, seed uint64) {
	t.Helper()
	x, y := coupledRuns(t, run, x0, y0, data, data, K, seed, "props/pnsgd-coupling")
	w0, got := reference.Distance(x0, y0), reference.Distance(x, y)
	bound := sglu.PowC(p.StepSize, p.StrongConvexity, float64(K*p.StepsPerEpoch()))*w0 +
		float64(K)*couplingSlack(p, data.Dim(), math.Max(reference.Norm(x0), reference.Norm(y0))+reference.Norm(x))
	if got > bound {
		t.Fatalf("coupled runs from starts %v apart end %v apart after %d epochs; c^{Kn/b} = %v allows %v",
			w0, got, K, sglu.PowC(p.StepSize, p.StrongConvexity, float64(K*p.StepsPerEpoch())), bound)
	}
}

// CheckPNSGDReplacement checks Lemma 3.5's coupling: from one start with one noise
// stream, K epochs on data and on data with slot k's record replaced by rec end at most
// W8Adjacent(p, j0, K) apart, j0 = k/b, when the two records' per-sample gradients differ
// by at most 2M everywhere (Remark 3.7; p.Lipschitz is M) and the loss is as
// CheckPNSGDContraction needs. This is the step from which Corollary 3.8's Z_B comes.
func CheckPNSGDReplacement(t TB, run NoisyEpochs, p sglu.Problem, data *reference.Dataset, k int, rec reference.Record, K int, start []float64, seed uint64) {
	t.Helper()
	recs := make([]reference.Record, data.Len())
	for i := range recs {
		recs[i] = data.Record(i)
	}
	recs[k] = rec
	changed, err := reference.FromRecords(data.Dim(), recs)
	if err != nil {
		t.Fatal(err)
	}
	x, y := coupledRuns(t, run, start, start, data, changed, K, seed, "props/pnsgd-replacement")
	j0 := k / p.Batch
	bound := sgluaudit.W8Adjacent(p, j0, float64(K))
	if got := reference.Distance(x, y); got > bound+float64(K)*couplingSlack(p, data.Dim(), reference.Norm(start)+reference.Norm(x)) {
		t.Fatalf("slot %d (batch %d) replaced: coupled runs end %v apart after %d epochs; Lemma 3.5 allows %v", k, j0, got, K, bound)
	}
}
