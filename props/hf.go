package props

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/unlearnaudit/unlearnaudit/mia"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"github.com/unlearnaudit/unlearnaudit/reference/hf"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
	"pgregory.net/rapid"
)

// LinearLoss and LeastSquares are the oracle models HFProblem draws besides softmax and
// the MLP (multiclass.Linear, multiclass.LeastSquares).
type (
	LinearLoss   = multiclass.Linear
	LeastSquares = multiclass.LeastSquares
)

// An HFInstance is a generated HF problem: data, a model and Stage I's trajectory.
type HFInstance struct {
	Data       *multiclass.Data
	Trajectory *hf.Trajectory
	Smoothness float64 // an upper bound M on the batch Hessians' spectra (3.3 for the MLP, not certified)
}

// HFKinds are the models HFProblem draws from.
var HFKinds = []string{"softmax", "mlp", "least-squares", "linear"}

// HFProblem draws a problem of spec hf §4.2, scaled down: n ∈ [2, 16], p ∈ [1, 4],
// K ∈ {2, 3}, features N(0, 1/p), a model of the given kinds (all of HFKinds when none)
// with λ ∈ [0, 1], batch size in [1, n], 1–3 epochs, η ∈ [1e-3, 0.5] capped at 1/M, decay
// q ∈ {1} ∪ [0.9, 1), one permutation or one per epoch (or draws with replacement),
// w₀ = 0 or N(0, 0.1²).
func HFProblem(t *rapid.T, kinds ...string) HFInstance {
	if len(kinds) == 0 {
		kinds = HFKinds
	}
	n := rapid.IntRange(2, 16).Draw(t, "n")
	p := rapid.IntRange(1, 4).Draw(t, "p")
	k := rapid.IntRange(2, 3).Draw(t, "K")
	r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 7))
	x := mat.NewDense(n, p, nil)
	y := make([]int, n)
	maxNorm := 0.0
	for i := range n {
		for j := range p {
			x.Set(i, j, r.NormFloat64()/math.Sqrt(float64(p)))
		}
		y[i] = r.IntN(k)
		maxNorm = math.Max(maxNorm, mat.Norm(x.RowView(i), 2))
	}
	data, err := multiclass.NewData(x, y, k)
	if err != nil {
		t.Fatal(err)
	}
	lambda := rapid.Float64Range(0, 1).Draw(t, "λ")
	var m multiclass.Model
	var smooth float64
	switch kind := rapid.SampledFrom(kinds).Draw(t, "kind"); kind {
	case "softmax":
		s := multiclass.Softmax{K: k, P: p, Lambda: lambda}
		m, smooth = s, s.Smoothness(maxNorm)
	case "mlp":
		m, smooth = multiclass.MLP{Sizes: []int{p, rapid.IntRange(1, 4).Draw(t, "hidden"), k}, Lambda: lambda}, 3.3
	case "least-squares":
		m, smooth = LeastSquares{P: p, Lambda: lambda}, maxNorm*maxNorm+lambda
	case "linear":
		m, smooth = LinearLoss{P: p}, 1
	default:
		t.Fatalf("hf problem: kind %q", kind)
	}
	eta := rapid.Float64Range(1e-3, 0.5).Draw(t, "η")
	if eta*smooth > 1 {
		eta = 1 / smooth
	}
	q := 1.0
	if rapid.Bool().Draw(t, "decay") {
		q = rapid.Float64Range(0.9, 1).Draw(t, "q")
	}
	c := hf.Config{Model: m, Epochs: rapid.IntRange(1, 3).Draw(t, "epochs"), BatchSize: rapid.IntRange(1, n).Draw(t, "batch"),
		Eta: eta, Decay: q, Reshuffle: rapid.Bool().Draw(t, "reshuffle"), Replacement: rapid.Bool().Draw(t, "with replacement")}
	w0 := make([]float64, m.Dim())
	if rapid.Bool().Draw(t, "random start") {
		for j := range w0 {
			w0[j] = 0.1 * r.NormFloat64()
		}
	}
	tr, err := hf.Learn(context.Background(), c, data, w0, r)
	if err != nil {
		t.Fatal(err)
	}
	return HFInstance{Data: data, Trajectory: tr, Smoothness: smooth}
}

// HFStatistics is a Stage II under test: the statistic a^{-u} of each of rows, for the
// trajectory tr (its checkpoints, schedule and step sizes) on data.
type HFStatistics func(ctx context.Context, tr *hf.Trajectory, data *multiclass.Data, rows []int) ([][]float64, error)

// ReferenceHFStatistics is this toolkit's Stage II in the given order.
func ReferenceHFStatistics(order hf.Order) HFStatistics {
	return func(ctx context.Context, tr *hf.Trajectory, data *multiclass.Data, rows []int) ([][]float64, error) {
		s, err := tr.Statistics(ctx, data, rows, order)
		if err != nil {
			return nil, err
		}
		out := make([][]float64, len(rows))
		for k, r := range rows {
			out[k], _ = s.Of(r)
		}
		return out, nil
	}
}

// CheckHFStatistics holds a Stage II to what a^{-u} is (spec hf I4): −dw_T/dω at ω = 0
// when u's term in every batch it is in is weighted 1 + ω with the divisor kept — the
// trajectory replayed (Trajectory.Reweighted), differentiated by central differences with
// h = 1e-5. Those err by h²/6·|w‴| plus rounding ≈ 1e-11, so the spec's tolerance
// 1e-6·max(1, ‖a‖) has a wide margin, while the official code's order (O(η²) off), a
// wrong scale (|B_t|) or a missed epoch misses by orders more. Every row is checked.
func CheckHFStatistics(t TB, stats HFStatistics, in HFInstance) {
	t.Helper()
	ctx := context.Background()
	n := in.Data.Len()
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	got, err := stats(ctx, in.Trajectory, in.Data, rows)
	if err != nil {
		t.Fatalf("hf statistics: %v", err)
	}
	if len(got) != n {
		t.Fatalf("hf statistics: %d vectors for %d rows", len(got), n)
	}
	const h = 1e-5
	for _, u := range rows {
		minus, err := in.Trajectory.Reweighted(ctx, in.Data, u, -h)
		if err != nil {
			t.Fatal(err)
		}
		plus, err := in.Trajectory.Reweighted(ctx, in.Data, u, h)
		if err != nil {
			t.Fatal(err)
		}
		if len(got[u]) != len(minus) {
			t.Fatalf("a^{-%d} has %d entries, the model %d", u, len(got[u]), len(minus))
		}
		gap := 0.0
		for j := range minus {
			d := got[u][j] - (minus[j]-plus[j])/(2*h)
			gap += d * d
		}
		if gap = math.Sqrt(gap); gap > 1e-6*math.Max(1, floats.Norm(got[u], 2)) {
			t.Fatalf("a^{-%d} is %.3g from −dw_T/dω (tolerance 1e-6·max(1, ‖a‖) = %.3g) on %s",
				u, gap, 1e-6*math.Max(1, floats.Norm(got[u], 2)), in.Trajectory.Config.Model.Name())
		}
	}
}

// HFStatisticsProperty is CheckHFStatistics on problems HFProblem draws.
func HFStatisticsProperty(stats HFStatistics) func(*rapid.T) {
	return func(t *rapid.T) { CheckHFStatistics(t, stats, HFProblem(t)) }
}

// HFRelease is a Gaussian release under test: K draws of the published model, from r.
type HFRelease func(r *rand.Rand) []float64

// CheckHFRelease checks HF's published model against the retrain's release (spec hf P1,
// P2) with the exact laws the theory gives: release draws w̄ + N(0, σ²I), the reference is
// w^{-U}_T + N(0, σ²I), K draws each from seed's streams. Projected on the known gap
// Δ = w̄ − w^{-U}_T (the tester's oracle direction) both are 1-D normals with sd σ, so:
//
//   - the projections' spreads are σ (a χ² interval at false-failure 1e-4 each): the
//     noise is N(0, σ²I), not N(0, σI) as Algorithm 1 prints, nor shared or scaled;
//   - the mean gap is ‖Δ‖ within z·σ√(2/K) (false-failure 1e-4): the release is centred
//     on w̄;
//   - the empirical AUC of the best linear test is at most Φ(μ/√2) + √(ln(2/1e-4)/K)
//     (McDiarmid; false-failure 1e-4), μ = bound/σ;
//   - the privacy loss at the lower end of the gap's interval gives δ(ε) ≤ δ_target: a
//     violation shown, not a point estimate.
//
// Its false-failure probability is at most 4e-4 for a correct release; bound must be at
// least ‖Δ‖ (the certificate's Δ̂).
func CheckHFRelease(t TB, release HFRelease, unlearned, retrained []float64, sigma, bound, epsilon, delta float64, k int, seed uint64) {
	t.Helper()
	if k < 100 || !(sigma > 0) {
		t.Fatalf("hf release: %d draws at σ = %v; want at least 100 and σ > 0", k, sigma)
	}
	gap := make([]float64, len(unlearned))
	floats.SubTo(gap, unlearned, retrained)
	norm := floats.Norm(gap, 2)
	dir := make([]float64, len(gap))
	if norm > 0 {
		floats.ScaleTo(dir, 1/norm, gap)
	} else {
		dir[0] = 1
	}
	pa, pb := make([]float64, k), make([]float64, k)
	ra := reference.Stream(seed, 0, "props/hf-release/unlearned")
	rb := reference.Stream(seed, 0, "props/hf-release/retrained")
	noise := make([]float64, len(gap))
	for i := range k {
		w := release(ra)
		if len(w) != len(gap) {
			t.Fatalf("hf release: %d entries, the model %d", len(w), len(gap))
		}
		pa[i] = floats.Dot(w, dir) - floats.Dot(retrained, dir)
		reference.FillNormal(noise, sigma, rb)
		pb[i] = floats.Dot(noise, dir)
	}
	const alpha = 1e-4
	chi := distuv.ChiSquared{K: float64(k - 1)}
	for side, xs := range [][]float64{pa, pb} {
		mean := floats.Sum(xs) / float64(k)
		ss := 0.0
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		lo, hi := chi.Quantile(alpha/2)/float64(k-1), chi.Quantile(1-alpha/2)/float64(k-1)
		if v := ss / float64(k-1) / (sigma * sigma); v < lo || v > hi {
			t.Fatalf("hf release: side %d's spread along Δ is %.4g σ², outside the χ² interval [%.4g, %.4g] (false-failure 1e-4)", side, v, lo, hi)
		}
	}
	z := distuv.UnitNormal.Quantile(1 - alpha/2)
	diff := (floats.Sum(pa) - floats.Sum(pb)) / float64(k)
	half := z * sigma * math.Sqrt(2/float64(k))
	if math.Abs(diff-norm) > half {
		t.Fatalf("hf release: mean gap along Δ %.4g, ‖Δ‖ = %.4g ± %.3g (false-failure 1e-4): the release is not centred on w̄", diff, norm, half)
	}
	mu := bound / sigma
	auc := mia.AUC(pa, pb)
	slack := math.Sqrt(math.Log(2/alpha) / float64(k))
	if limit := distuv.UnitNormal.CDF(mu/math.Sqrt2) + slack; auc > limit {
		t.Fatalf("hf release: the best linear test reaches AUC %.4g > Φ(μ/√2) + %.3g = %.4g at μ = %.4g (false-failure 1e-4)", auc, slack, limit, mu)
	}
	if low := math.Max(0, diff-half) / sigma; low > 0 {
		if got := dp.GaussianExactDelta(epsilon, low); got > delta {
			t.Fatalf("hf release: at the gap's lower confidence end μ = %.4g the release's δ(%.3g) = %.3g exceeds δ = %.3g", low, epsilon, got, delta)
		}
	}
}
