package mia_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/mia"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"github.com/unlearnaudit/unlearnaudit/retrain"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
	"pgregory.net/rapid"
)

// AUC, TPR at an FPR level and balanced accuracy against brute force over all pairs and
// thresholds.
func TestMetricsAgainstBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		draw := func(label string) []float64 {
			s := make([]float64, rapid.IntRange(1, 20).Draw(t, label+"n"))
			for i := range s {
				s[i] = float64(rapid.IntRange(-5, 5).Draw(t, label)) // many ties
			}
			return s
		}
		pos, neg := draw("pos"), draw("neg")
		var wins float64
		for _, p := range pos {
			for _, n := range neg {
				switch {
				case p > n:
					wins++
				case p == n:
					wins += 0.5
				}
			}
		}
		if got, want := mia.AUC(pos, neg), wins/float64(len(pos)*len(neg)); math.Abs(got-want) > 1e-12 {
			t.Fatalf("AUC %v, brute force %v", got, want)
		}
		level := float64(rapid.IntRange(0, 10).Draw(t, "level")) / 10
		var bestTPR, bestBal float64 = 0, 0.5
		for th := -6.0; th <= 6; th++ {
			tpr, fpr := rate(pos, th), rate(neg, th)
			if fpr <= level {
				bestTPR = math.Max(bestTPR, tpr)
			}
			bestBal = math.Max(bestBal, (tpr+1-fpr)/2)
		}
		if got := mia.TPRAtFPR(pos, neg, level); math.Abs(got-bestTPR) > 1e-12 {
			t.Fatalf("TPR at FPR ≤ %v: %v, brute force %v", level, got, bestTPR)
		}
		if got := mia.BalancedAccuracy(pos, neg); math.Abs(got-bestBal) > 1e-12 {
			t.Fatalf("balanced accuracy %v, brute force %v", got, bestBal)
		}
		roc := mia.ROCCurve(pos, neg)
		if roc.FPR[0] != 0 || roc.TPR[0] != 0 || roc.FPR[len(roc.FPR)-1] != 1 || roc.TPR[len(roc.TPR)-1] != 1 {
			t.Fatalf("ROC must run from (0,0) to (1,1): %+v", roc)
		}
	})
}

func rate(s []float64, th float64) float64 {
	var c float64
	for _, v := range s {
		if v >= th {
			c++
		}
	}
	return c / float64(len(s))
}

// For N(μ, 1) against N(0, 1) the AUC is Φ(μ/√2); the 95 % bootstrap interval must cover
// it. One seeded draw of 2 000 per side; a correct interval misses with probability ≈ 5 %.
func TestEvaluateKnownAUC(t *testing.T) {
	r := reference.Stream(1, 0, "auc")
	pos, neg := make([]float64, 2000), make([]float64, 2000)
	for i := range pos {
		pos[i] = 0.8 + r.NormFloat64()
		neg[i] = r.NormFloat64()
	}
	m, err := mia.Evaluate(pos, neg, 400, 0.95, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := dp.StdNormalCDF(0.8 / math.Sqrt2)
	if !(m.AUC.Lower <= want && want <= m.AUC.Upper) {
		t.Fatalf("AUC %+v does not cover Φ(0.8/√2) = %v", m.AUC, want)
	}
	if !(m.BalancedAccuracy.Value > 0.6 && m.TPRAt10Percent.Value >= m.TPRAt1Percent.Value && m.TPRAt1Percent.Value >= m.TPRAt0_1Percent.Value) {
		t.Fatalf("metrics %+v", m)
	}
}

func TestScoresMatchTheLoss(t *testing.T) {
	ds, _ := reference.SyntheticClassification(30, 4, 1)
	loss := reference.Logistic{Lambda: 0.1}
	models := mat.NewDense(3, 4, []float64{1, 0, -1, 2, 0.5, 0.5, 0.5, 0.5, -2, 1, 0, 0})
	conf, lossScores := mat.NewDense(3, 30, nil), mat.NewDense(3, 30, nil)
	mia.Scores(conf, mia.Confidence, loss, models, ds)
	mia.Scores(lossScores, mia.Loss, loss, models, ds)
	for i := range 3 {
		theta := models.RawRowView(i)
		reg := loss.Lambda / 2 * reference.Norm(theta) * reference.Norm(theta)
		for k := range 30 {
			margin := ds.Label(k) * dot(ds.Row(k), theta)
			if math.Abs(conf.At(i, k)-margin) > 1e-12 {
				t.Fatalf("confidence %v, margin y·xᵀθ %v", conf.At(i, k), margin)
			}
			if want := loss.ExampleLoss(theta, ds.Row(k), ds.Label(k)) - reg; math.Abs(lossScores.At(i, k)-want) > 1e-12 {
				t.Fatalf("loss score %v, data loss %v", lossScores.At(i, k), want)
			}
		}
	}
	// calibration subtracts the per-example mean over reference models
	cal := mat.DenseCopyOf(conf)
	mia.Calibrate(cal, conf)
	for k := range 30 {
		var s float64
		for i := range 3 {
			s += cal.At(i, k)
		}
		if math.Abs(s) > 1e-12 {
			t.Fatalf("calibrated scores of example %d sum to %v", k, s)
		}
	}
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// lira trains 64 shadows and 16 target models with the trainer, attacks the targets with
// online LiRA, and evaluates the attack over every (target model, example) pair.
func lira(t *testing.T, ds *reference.Dataset, loss reference.Loss, train mia.Trainer, opt mia.LiRAOptions) mia.Metrics {
	t.Helper()
	ctx := context.Background()
	sh, err := mia.TrainShadows(ctx, train, ds, 64, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	scores := mat.NewDense(64, ds.Len(), nil)
	mia.Scores(scores, mia.Confidence, loss, sh.Models, ds)
	l, err := mia.FitLiRA(scores, sh.In, opt)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := mia.TrainShadows(ctx, train, ds, 16, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	ts := mat.NewDense(16, ds.Len(), nil)
	mia.Scores(ts, mia.Confidence, loss, tg.Models, ds)
	var pos, neg []float64
	st := make([]float64, ds.Len())
	for i := range 16 {
		l.Statistic(st, ts.RawRowView(i))
		for k, v := range st {
			if tg.In[i][k] {
				pos = append(pos, v)
			} else {
				neg = append(neg, v)
			}
		}
	}
	m, err := mia.Evaluate(pos, neg, 400, 0.95, 1)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func exactTrainer(loss reference.Loss) mia.Trainer {
	return func(ctx context.Context, ds *reference.Dataset, r *rand.Rand) ([]float64, error) {
		res, err := retrain.Minimize(loss.Objective(ds), math.Inf(1), retrain.Options{})
		return res.Theta, err
	}
}

// An overfit logistic model (100 rows, 50 features, λ = 1e-3) leaks membership: LiRA's AUC
// is well above 0.5 (its 95 % interval lies above 0.7).
func TestLiRAOnOverfitModel(t *testing.T) {
	ds, _ := reference.SyntheticClassification(100, 50, 3)
	loss := reference.Logistic{Lambda: 1e-3}
	for _, opt := range []mia.LiRAOptions{{}, {Center: mia.Median}, {FixedVariance: true}, {Offline: true}} {
		m := lira(t, ds, loss, exactTrainer(loss), opt)
		t.Logf("%+v: AUC %.3f [%.3f, %.3f], TPR at 1%% FPR %.3f", opt, m.AUC.Value, m.AUC.Lower, m.AUC.Upper, m.TPRAt1Percent.Value)
		if m.AUC.Lower < 0.7 {
			t.Errorf("%+v: AUC %+v; want it well above 0.5", opt, m.AUC)
		}
	}
}

// dpAUCMax is the largest AUC any test can reach against an (ε, δ)-DP pair: the area under
// TPR = min(1, e^ε·FPR + δ, 1 − e^{−ε}(1 − δ − FPR)), by the trapezoid rule on a fine
// grid (error ~1e-8).
func dpAUCMax(eps, delta float64) float64 {
	const n = 100000
	var s float64
	for i := range n {
		x := (float64(i) + 0.5) / n
		s += math.Min(1, math.Min(math.Exp(eps)*x+delta, 1-math.Exp(-eps)*(1-delta-x)))
	}
	return s / n
}

// The same model made differentially private by output perturbation (exact ERM plus
// Gaussian noise calibrated to the ERM's sensitivity 2/(λ·n) at (ε, δ) = (0.1, 1e-5), with
// λ = 1 and n ≥ 30 for every shadow) cannot leak much: every attack's ROC lies in the DP
// region, which is convex, so even the pooled AUC over examples is at most
// dpAUCMax(0.1, 1e-5) ≈ 0.525. The test allows four bootstrap standard errors above it
// (false-failure probability below 1e-4).
//
// The check's power, measured: 16 target models × 100 examples give a bootstrap standard
// error near 0.013, so it fails only an AUC above about 0.58. The sensitivity bound is far
// above the real influence of a record, so even noise cut 100-fold leaves the AUC at 0.55,
// which passes; what it does catch is a missing mechanism (σ = 0, AUC 0.83), the control
// below. Tighter leaks are the empirical game's job (checks.EmpiricalRelease), which states
// its power.
func TestLiRAOnDifferentiallyPrivateModel(t *testing.T) {
	ds, err := reference.SyntheticClassification(100, 50, 3)
	if err != nil {
		t.Fatal(err)
	}
	loss := reference.Logistic{Lambda: 1}
	const eps, delta = 0.1, 1e-5
	exact := exactTrainer(loss)
	private := func(noise float64) mia.Trainer {
		return func(ctx context.Context, d *reference.Dataset, r *rand.Rand) ([]float64, error) {
			if d.Len() < 30 {
				return nil, fmt.Errorf("shadow too small for the calibration: %d rows", d.Len())
			}
			theta, err := exact(ctx, d, r)
			if err != nil {
				return nil, err
			}
			sigma := noise * dp.GaussianSigma(2/(loss.Lambda*30), eps, delta)
			for j := range theta {
				theta[j] += sigma * r.NormFloat64()
			}
			return theta, nil
		}
	}
	limit := dpAUCMax(eps, delta)
	exceeds := func(m mia.Metrics) bool {
		se := (m.AUC.Upper - m.AUC.Lower) / (2 * 1.96)
		return m.AUC.Value > limit+4*se
	}
	m := lira(t, ds, loss, private(1), mia.LiRAOptions{})
	t.Logf("DP model: AUC %.3f [%.3f, %.3f]; the DP ceiling is %.4f", m.AUC.Value, m.AUC.Lower, m.AUC.Upper, limit)
	if exceeds(m) {
		t.Fatalf("AUC %+v exceeds the (%v, %v)-DP ceiling %v", m.AUC, eps, delta, limit)
	}
	// planted bug: the mechanism forgotten (σ = 0); the same check must flag it
	bug := lira(t, ds, loss, private(0), mia.LiRAOptions{})
	t.Logf("σ = 0: AUC %.3f [%.3f, %.3f]", bug.AUC.Value, bug.AUC.Lower, bug.AUC.Upper)
	if !exceeds(bug) {
		t.Fatalf("without noise the AUC %+v stays under the DP ceiling %v: the check has no power even against a missing mechanism", bug.AUC, limit)
	}
}

// U-LiRA: an unlearner that retrains without the target is exact, so the attack is at
// chance (pooled AUC within four bootstrap standard errors of 0.5, false-failure
// probability below 1e-4); one that "forgets" by returning the model it already had is
// caught on the overfit model (pooled AUC above 0.7, per-target accuracy above 0.6 on
// average).
func TestULiRA(t *testing.T) {
	ds, _ := reference.SyntheticClassification(80, 40, 5)
	loss := reference.Logistic{Lambda: 1e-3}
	train := exactTrainer(loss)
	exactUnlearn := func(ctx context.Context, d *reference.Dataset, target int64, r *rand.Rand) ([]float64, error) {
		rest, err := d.Without(target)
		if err != nil {
			return nil, err
		}
		return train(ctx, rest, r)
	}
	noop := func(ctx context.Context, d *reference.Dataset, target int64, r *rand.Rand) ([]float64, error) {
		return train(ctx, d, r)
	}
	targets := []int64{0, 7, 13, 21, 42, 55}
	opt := mia.ULiRAOptions{Shadows: 16, Evals: 16, Seed: 3}
	good, err := mia.ULiRA(context.Background(), exactUnlearn, train, loss, ds, targets, opt)
	if err != nil {
		t.Fatal(err)
	}
	se := (good.Metrics.AUC.Upper - good.Metrics.AUC.Lower) / (2 * 1.96)
	if math.Abs(good.Metrics.AUC.Value-0.5) > 4*se {
		t.Errorf("exact unlearning: pooled AUC %+v; want chance", good.Metrics.AUC)
	}
	bad, err := mia.ULiRA(context.Background(), noop, train, loss, ds, targets, opt)
	if err != nil {
		t.Fatal(err)
	}
	var acc float64
	for _, tg := range bad.Targets {
		acc += tg.Accuracy / float64(len(targets))
	}
	t.Logf("exact: AUC %.3f; no-op: AUC %.3f, mean per-target accuracy %.3f", good.Metrics.AUC.Value, bad.Metrics.AUC.Value, acc)
	if bad.Metrics.AUC.Lower < 0.7 || acc < 0.6 {
		t.Errorf("a method that does not unlearn: AUC %+v, accuracy %.3f; want it caught", bad.Metrics.AUC, acc)
	}
}

// The model-difference attack finds the deleted record of an overfit model: over ten
// deletions, the deleted record's score is above the other records' (AUC > 0.9).
func TestDifferenceAttack(t *testing.T) {
	ds, _ := reference.SyntheticClassification(60, 30, 7)
	loss := reference.Logistic{Lambda: 1e-3}
	train := exactTrainer(loss)
	before, err := train(context.Background(), ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	var pos, neg []float64
	s := make([]float64, ds.Len())
	for victim := range 10 {
		rest, _ := ds.Without(int64(victim * 5))
		after, err := train(context.Background(), rest, nil)
		if err != nil {
			t.Fatal(err)
		}
		mia.DifferenceScores(s, mia.Confidence, loss, before, after, ds)
		for k, v := range s {
			if ds.ID(k) == int64(victim*5) {
				pos = append(pos, v)
			} else {
				neg = append(neg, v)
			}
		}
	}
	if auc := mia.AUC(pos, neg); auc < 0.9 {
		t.Fatalf("difference attack AUC %v; the deleted record should stand out", auc)
	}
}

// U-LiRA's Score hook gives the very statistics the loss-based scoring does when it
// computes the same score, bit for bit, and a loss is then not needed.
func TestULiRAScoreHook(t *testing.T) {
	ds, _ := reference.SyntheticClassification(40, 20, 6)
	loss := reference.Logistic{Lambda: 1e-3}
	train := exactTrainer(loss)
	noop := func(ctx context.Context, d *reference.Dataset, target int64, r *rand.Rand) ([]float64, error) {
		return train(ctx, d, r)
	}
	targets := []int64{1, 5, 9}
	opt := mia.ULiRAOptions{Shadows: 4, Evals: 4, Seed: 2}
	want, err := mia.ULiRA(context.Background(), noop, train, loss, ds, targets, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Score = func(model []float64, rec reference.Record) float64 {
		one, _ := reference.FromRecords(ds.Dim(), []reference.Record{rec})
		s := make([]float64, 1)
		mia.ScoreModel(s, mia.Confidence, loss, model, one)
		return s[0]
	}
	got, err := mia.ULiRA(context.Background(), noop, train, nil, ds, targets, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Unlearned, want.Unlearned) || !slices.Equal(got.Retrained, want.Retrained) {
		t.Error("the Score hook changed the statistics")
	}
}

// The paired excess: identical attacks differ by exactly 0 in every replicate; an attack
// whose member scores are shifted up by one standard deviation beats the unshifted one
// with an interval above 0 (AUC rises from ½ to Φ(1/√2) ≈ 0.76; with 200 records a side
// the interval's half-width is about 0.05). The detectable excess shrinks with the
// records, by √(1/pos + 1/neg).
func TestPairedExcessAndPower(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pos, neg := make([]float64, 200), make([]float64, 200)
	for i := range pos {
		pos[i], neg[i] = r.NormFloat64(), r.NormFloat64()
	}
	same := [2][]float64{pos, neg}
	if p, lo, hi := mia.PairedAUCExcess(same, same, 200, 0.95, reference.Stream(1, -1, "paired")); p != 0 || lo != 0 || hi != 0 {
		t.Errorf("identical attacks: %v [%v, %v]", p, lo, hi)
	}
	shifted := make([]float64, len(pos))
	for i, v := range pos {
		shifted[i] = v + 1
	}
	p, lo, _ := mia.PairedAUCExcess([2][]float64{shifted, neg}, same, 400, 0.95, reference.Stream(1, -1, "paired"))
	if !(lo > 0) || math.Abs(p-(distuv.UnitNormal.CDF(1/math.Sqrt2)-0.5)) > 0.1 {
		t.Errorf("a one-sd shift: excess %.3f, lower %.3f; want ≈ 0.26 and above 0", p, lo)
	}
	a, b := mia.DetectableAUCExcess(50, 1000, 0.95), mia.DetectableAUCExcess(200, 1000, 0.95)
	if !(b < a) || math.Abs(a/b-math.Sqrt((1.0/50+1.0/1000)/(1.0/200+1.0/1000))) > 1e-12 {
		t.Errorf("detectable excess %v at 50 records, %v at 200", a, b)
	}
}
