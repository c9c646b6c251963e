package sglu

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/ars"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/stat/distuv"
)

// Every step's noise is its address's, bit for bit: a twin of each run's stream, drawn as
// the run draws (the initial law, one key per Epochs call, a removal's replacement),
// predicts the noise of the last step of every call, √(2ησ²)·ars.FillWide(key, 0, s) with
// s = K·n/b − 1, for a Model and for every run of an Ensemble, and leaves the twin where
// the run's stream is. Calls of 0, 1 and 2 epochs of 3 batches, d = 5 (FillWide's partial last block).
//
// Planted, each was seen to fail it: the key drawn at every step instead of once a call
// (Model and Ensemble), the step counted within the epoch only (s = j), every run of an
// Ensemble given run 0's key, and Epochs(0) not drawing its key.
func TestEpochsNoiseAddressing(t *testing.T) {
	const n, b, d, k = 6, 2, 5, 3
	ds := unitData(t, n, d, 3)
	p, loss := testParams(n, b, 0.2, 0.1, 2)
	p.Init = GaussianInit
	sd := math.Sqrt(2*p.StepSize) * p.Sigma
	ctx := context.Background()
	stream := func(t int) *rand.Rand { return reference.Streams{Seed: 5, Trial: t}.Rand("u") }
	want := func(key uint64, K int) []float64 {
		z := make([]float64, d)
		ars.FillWide(z, key, 0, uint32(K*n/b-1))
		return z
	}
	same := func(what string, got, z []float64, scale float64) {
		t.Helper()
		for i := range z {
			if got[i] != scale*z[i] {
				t.Fatalf("%s: noise[%d] = %v, want %v·FillWide = %v", what, i, got[i], scale, scale*z[i])
			}
		}
	}
	// the ensemble keeps the normals z in float32 and scales them in its update
	widened := func(z []float32) []float64 {
		out := make([]float64, len(z))
		for i, v := range z {
			out[i] = float64(v)
		}
		return out
	}
	twins := make([]*rand.Rand, k)
	rs := make([]*rand.Rand, k)
	for tr := range k {
		r, twin := stream(tr), stream(tr)
		m, err := LearnOrdered(ctx, p, loss, ds, r)
		if err != nil {
			t.Fatal(err)
		}
		init := make([]float64, d)
		if err := p.initial(init, twin); err != nil {
			t.Fatal(err)
		}
		same("learning", m.noise, want(twin.Uint64(), p.Epochs), sd)
		if err := m.Epochs(ctx, 0, r); err != nil {
			t.Fatal(err)
		}
		twin.Uint64() // Epochs(0)'s key
		if err := m.Epochs(ctx, 1, r); err != nil {
			t.Fatal(err)
		}
		same("one epoch", m.noise, want(twin.Uint64(), 1), sd)
		id := m.ids[4]
		row := m.x.RawRowView(4)
		RandomReplacement(m.nextID, row, twin)
		if _, err := m.Unlearn(ctx, id, 2, r); err != nil {
			t.Fatal(err)
		}
		same("unlearning", m.noise, want(twin.Uint64(), 2), sd)
		if got, w := r.Uint64(), twin.Uint64(); got != w {
			t.Fatalf("trial %d: the run drew another number of values than its twin", tr)
		}
		rs[tr], twins[tr] = stream(tr), stream(tr)
	}
	e, err := LearnOrderedEnsemble(ctx, p, reference.Logistic{Lambda: 0.2}, ds, rs)
	if err != nil {
		t.Fatal(err)
	}
	for tr, twin := range twins {
		init := make([]float64, d)
		if err := p.initial(init, twin); err != nil {
			t.Fatal(err)
		}
		same("ensemble learning", widened(e.z[tr*d:(tr+1)*d]), want(twin.Uint64(), p.Epochs), 1)
	}
	if err := e.Epochs(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := e.Epochs(ctx, 2); err != nil {
		t.Fatal(err)
	}
	for tr, twin := range twins {
		twin.Uint64()
		same("ensemble, two epochs", widened(e.z[tr*d:(tr+1)*d]), want(twin.Uint64(), 2), 1)
		if rs[tr].Uint64() != twin.Uint64() {
			t.Fatalf("ensemble run %d drew another number of values than its twin", tr)
		}
	}
}

// The noise a step adds is N(0, sd²) and independent across adjacent trials and adjacent
// Epochs calls. 2000 trials of the stream "sglu/unlearned" (a Model of one batch, d = 8,
// so every call of one epoch is one step whose noise the model keeps) each make two calls;
// their 32 000 noise values divided by sd are tested two-sided for mean 0 (z), variance 1
// (χ²_{N−1}) and the normal law's 20 equiprobable bins (χ²_19), and the correlation of the
// same coordinate in trials 2i and 2i + 1 (one call) and in calls 1 and 2 (one trial) for
// zero (√m·r against N(0, 1), m = 8000 and 16 000 pairs). Each of the five tests has level
// 10⁻⁴, so the false-failure probability is below 5·10⁻⁴; a correlation of 0.053 (trials)
// or 0.037 (calls) is caught with 80 % power.
//
// Planted, each was seen to fail it: adjacent trials given one key (correlation 1), the
// second call reusing the first's key (correlation 1), and the noise scaled by sd/√2
// (variance statistic far below its interval).
func TestEpochsNoiseLawAndIndependence(t *testing.T) {
	const trials, d, alpha = 2000, 8, 1e-4
	ds := unitData(t, 2, d, 9)
	p, loss := testParams(2, 2, 0.2, 0.1, 1)
	p.Init = ZeroInit
	sd := math.Sqrt(2*p.StepSize) * p.Sigma
	ctx := context.Background()
	first, second := make([][]float64, trials), make([][]float64, trials)
	for i := range trials {
		r := reference.Streams{Seed: 21, Trial: i}.Rand("sglu/unlearned")
		m, err := LearnOrdered(ctx, p, loss, ds, r)
		if err != nil {
			t.Fatal(err)
		}
		first[i] = scaled(m.noise, 1/sd)
		if err := m.Epochs(ctx, 1, r); err != nil {
			t.Fatal(err)
		}
		second[i] = scaled(m.noise, 1/sd)
	}
	var all []float64
	for i := range trials {
		all = append(append(all, first[i]...), second[i]...)
	}
	z := distuv.UnitNormal.Quantile(1 - alpha/2)
	N := float64(len(all))
	var sum, sq float64
	for _, v := range all {
		sum += v
	}
	mean := sum / N
	for _, v := range all {
		sq += (v - mean) * (v - mean)
	}
	if stat := mean * math.Sqrt(N); math.Abs(stat) > z {
		t.Errorf("mean %.4g: z = %.3g beyond ±%.3g", mean, stat, z)
	}
	chiN := distuv.ChiSquared{K: N - 1}
	if lo, hi := chiN.Quantile(alpha/2), chiN.Quantile(1-alpha/2); sq < lo || sq > hi {
		t.Errorf("variance %.5g: χ² %.6g outside [%.6g, %.6g]", sq/(N-1), sq, lo, hi)
	}
	const bins = 20
	counts := make([]float64, bins)
	for _, v := range all {
		counts[min(int(distuv.UnitNormal.CDF(v)*bins), bins-1)]++
	}
	var chi float64
	for _, c := range counts {
		chi += (c - N/bins) * (c - N/bins) / (N / bins)
	}
	if q := (distuv.ChiSquared{K: bins - 1}).Quantile(1 - alpha); chi > q {
		t.Errorf("the normal law's %d equiprobable bins: χ² %.4g above %.4g (counts %v)", bins, chi, q, counts)
	}
	corr := func(what string, x, y [][]float64) {
		t.Helper()
		var sxy, sxx, syy float64
		m := 0
		for i := range x {
			for j := range x[i] {
				sxy += x[i][j] * y[i][j]
				sxx += x[i][j] * x[i][j]
				syy += y[i][j] * y[i][j]
				m++
			}
		}
		r := sxy / math.Sqrt(sxx*syy) // the law's mean is 0: uncentred
		if stat := r * math.Sqrt(float64(m)); math.Abs(stat) > z {
			t.Errorf("%s: correlation %.4g over %d pairs, √m·r = %.3g beyond ±%.3g", what, r, m, stat, z)
		}
	}
	var even, odd [][]float64
	for i := 0; i+1 < trials; i += 2 {
		even, odd = append(even, first[i]), append(odd, first[i+1])
	}
	corr("adjacent trials", even, odd)
	corr("adjacent Epochs calls", first, second)
}

func scaled(v []float64, s float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = s * x
	}
	return out
}

// An Ensemble's run is the same bits alone, among five, and at another place among them,
// with the projection acting (R = 0.05 against σ = 0.3: every run ends on the sphere), so
// the one-pass step's norms and scaling depend on nothing but the run's own values.
//
// Planted, each was seen to fail it: every run scaled by run 0's factor, and the last run
// left unprojected.
func TestEnsembleRunAloneOrBatched(t *testing.T) {
	const n, b, d, k = 8, 2, 5, 5
	ds := unitData(t, n, d, 4)
	p, _ := testParams(n, b, 0.2, 0.3, 2)
	p.Init, p.Radius = ZeroInit, 0.05
	loss := reference.Logistic{Lambda: 0.2}
	ctx := context.Background()
	learn := func(trials ...int) *Ensemble {
		rs := make([]*rand.Rand, len(trials))
		for i, tr := range trials {
			rs[i] = reference.Streams{Seed: 8, Trial: tr}.Rand("alone")
		}
		e, err := LearnOrderedEnsemble(ctx, p, loss, ds, rs)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Epochs(ctx, 3); err != nil {
			t.Fatal(err)
		}
		return e
	}
	five, reversed := learn(0, 1, 2, 3, 4), learn(4, 3, 2, 1, 0)
	for tr := range k {
		got := five.Published(tr)
		if nrm := reference.Norm(got); math.Abs(nrm-p.Radius) > 1e-12 {
			t.Fatalf("run %d ends at norm %v, not on the sphere of radius %v: the projection did not act", tr, nrm, p.Radius)
		}
		alone, other := learn(tr).Published(0), reversed.Published(k-1-tr)
		for i := range got {
			if got[i] != alone[i] || got[i] != other[i] {
				t.Fatalf("run %d, coordinate %d: %v among five, %v alone, %v at place %d", tr, i, got[i], alone[i], other[i], k-1-tr)
			}
		}
	}
}

// Epochs allocates nothing, as the Model's and the Ensemble's docs say, in float64 and
// float32 lockstep, with the projection acting and d = 37 (the noise's fills end mid-step
// on every path): a trial runs hundreds of steps. Planted: the Ensemble's noise buffer made
// at every step, and this fails.
func TestEpochsDoNotAllocate(t *testing.T) {
	const n, b, d, k = 8, 2, 37, 5
	ds := unitData(t, n, d, 4)
	p, _ := testParams(n, b, 0.2, 0.3, 1)
	p.Init, p.Radius = ZeroInit, 0.05
	loss := reference.Logistic{Lambda: 0.2} // unclipped: the Model's one-pass gradient too
	ctx := context.Background()
	r := reference.Streams{Seed: 3}.Rand("allocs")
	m, err := LearnOrdered(ctx, p, loss, ds, r)
	if err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(10, func() { _ = m.Epochs(ctx, 2, r) }); a != 0 {
		t.Errorf("Model.Epochs: %v allocations a call", a)
	}
	for _, learn := range []func(context.Context, Params, reference.Loss, *reference.Dataset, []*rand.Rand) (*Ensemble, error){LearnOrderedEnsemble, LearnOrderedEnsemble32} {
		rs := make([]*rand.Rand, k)
		for i := range rs {
			rs[i] = reference.Streams{Seed: 3, Trial: i}.Rand("allocs")
		}
		e, err := learn(ctx, p, loss, ds, rs)
		if err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(10, func() { _ = e.Epochs(ctx, 2) }); a != 0 {
			t.Errorf("Ensemble.Epochs (float32 %v): %v allocations a call", e.x32 != nil, a)
		}
	}
}
