package hfaudit

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/unlearnaudit/unlearnaudit/internal/par"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/hf"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"
)

// VerificationConfig is the paper's Verification I (spec hf §5.2, Fig. 1): for nested
// forget sets at several deletion rates, how close HF, the Newton step and the
// infinitesimal jackknife come to retraining, and how well each predicts the forgotten
// records' loss changes.
type VerificationConfig struct {
	Learn hf.Config // Stage I (clip 0)
	Train *multiclass.Data
	// Init draws w_0 (nil: zeros, as for the convex model).
	Init func(w []float64, uniform func() float64)
	// Rates are the deletion rates; m = round(rate·n), at least 1. The forget sets are
	// nested prefixes of one random order of the records per seed.
	Rates   []float64
	Seeds   []uint64
	Damping float64 // NS/IJ's damping on the mean Hessian (the paper's 0.01)
	// Baselines runs NS and IJ (a d × d Hessian and a factorisation per rate).
	Baselines bool
	Workers   int
}

// Methods the reproductions compare, in report order (Guo in hf-online only).
const (
	MethodHF = "HF"
	MethodNS = "NS"
	MethodIJ = "IJ"
	// MethodGuo is Guo et al.'s certified removal (a Newton step with loss perturbation).
	MethodGuo = "Guo"
)

// A VerificationPoint is one method at one deletion rate, over the seeds.
type VerificationPoint struct {
	Method   string
	Rate     float64
	M        int
	Distance []float64 // ‖w^{-U}_T − w_method‖ per seed, against the paper-rule retrain
	// CodeDistance is HF's distance to the official code's retraining rule (spec A6).
	CodeDistance []float64
	// Pearson and Spearman correlate, across u ∈ U, the method's predicted loss change
	// ℓ(w_method; u) − ℓ(w_T; u) with the retrain's ℓ(w^{-U}_T; u) − ℓ(w_T; u); NaN when
	// m < 3.
	Pearson, Spearman []float64
	// RetrainNorm is ‖w^{-U}_T − w_T‖, how far the deletion moves the model.
	RetrainNorm []float64
}

// VerificationResult holds every point, method by method and rate by rate, and the cost.
type VerificationResult struct {
	Points []VerificationPoint
	// StatsTime is Stage II's time per seed for the largest forget set's records.
	StatsTime, PrecomputeTime []time.Duration
}

// Verification runs the experiment; seeds run in parallel on Workers goroutines and the
// result does not depend on how many.
func Verification(ctx context.Context, c VerificationConfig) (*VerificationResult, error) {
	n := c.Train.Len()
	if len(c.Rates) == 0 || len(c.Seeds) == 0 {
		return nil, fmt.Errorf("hf verification: name at least one rate and one seed")
	}
	ms := make([]int, len(c.Rates))
	for k, rate := range c.Rates {
		if !(rate > 0 && rate < 1) {
			return nil, fmt.Errorf("hf verification: deletion rate %v; want in (0, 1)", rate)
		}
		ms[k] = max(1, int(math.Round(rate*float64(n))))
	}
	if c.Learn.Clip != 0 {
		return nil, fmt.Errorf("hf verification: clip %v; HF's statistics need unclipped training", c.Learn.Clip)
	}
	methods := []string{MethodHF}
	if c.Baselines {
		methods = append(methods, MethodNS, MethodIJ)
	}
	type seedResult struct {
		dist, code, pear, spear, norm map[string][]float64 // method → per rate
		stats, pre                    time.Duration
	}
	results := make([]seedResult, len(c.Seeds))
	err := par.Do(ctx, len(c.Seeds), c.Workers, func(s int) error {
		seed := c.Seeds[s]
		model := c.Learn.Model
		w0 := make([]float64, model.Dim())
		if c.Init != nil {
			init := reference.Stream(seed, 0, "hf-verification/init")
			c.Init(w0, init.Float64)
		}
		tr, err := hf.Learn(ctx, c.Learn, c.Train, w0, reference.Stream(seed, 0, "hf-verification/batches"))
		if err != nil {
			return err
		}
		order := reference.Stream(seed, 0, "hf-verification/forget").Perm(n)
		forget := order[:slices.Max(ms)]
		start := time.Now()
		stats, err := tr.Statistics(ctx, c.Train, forget, hf.PaperOrder)
		if err != nil {
			return err
		}
		res := seedResult{dist: map[string][]float64{}, code: map[string][]float64{}, pear: map[string][]float64{}, spear: map[string][]float64{},
			norm: map[string][]float64{}, stats: time.Since(start)}
		var so *hf.SecondOrder
		if c.Baselines {
			start = time.Now()
			if so, err = hf.NewSecondOrder(ctx, model, c.Train, tr.Final, hf.SecondOrderOptions{Damping: c.Damping}); err != nil {
				return err
			}
			res.pre = time.Since(start)
		}
		before := make([]float64, n)
		for _, u := range forget {
			before[u] = model.Loss(tr.Final, c.Train.Row(u), c.Train.Y[u])
		}
		for _, m := range ms {
			u := forget[:m]
			retrained, err := tr.Retrain(ctx, c.Train, u, hf.PaperRule, nil)
			if err != nil {
				return err
			}
			codeRetrained, err := tr.Retrain(ctx, c.Train, u, hf.CodeRule, nil)
			if err != nil {
				return err
			}
			models := map[string][]float64{}
			w := slices.Clone(tr.Final)
			for _, row := range u {
				a, _ := stats.Of(row)
				floats.Add(w, a)
			}
			models[MethodHF] = w
			if so != nil {
				if models[MethodNS], err = so.NewtonStep(ctx, u); err != nil {
					return err
				}
				if models[MethodIJ], err = so.Jackknife(u); err != nil {
					return err
				}
			}
			actual := lossChanges(model, c.Train, retrained, u, before)
			for _, name := range methods {
				wm := models[name]
				res.dist[name] = append(res.dist[name], floats.Distance(wm, retrained, 2))
				res.code[name] = append(res.code[name], floats.Distance(wm, codeRetrained, 2))
				res.norm[name] = append(res.norm[name], floats.Distance(retrained, tr.Final, 2))
				predicted := lossChanges(model, c.Train, wm, u, before)
				p, sp := math.NaN(), math.NaN()
				if m >= 3 {
					p, sp = stat.Correlation(predicted, actual, nil), Spearman(predicted, actual)
				}
				res.pear[name], res.spear[name] = append(res.pear[name], p), append(res.spear[name], sp)
			}
		}
		results[s] = res
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("hf verification: %w", err)
	}
	out := &VerificationResult{}
	for _, name := range methods {
		for k, m := range ms {
			pt := VerificationPoint{Method: name, Rate: c.Rates[k], M: m}
			for _, r := range results {
				pt.Distance = append(pt.Distance, r.dist[name][k])
				pt.CodeDistance = append(pt.CodeDistance, r.code[name][k])
				pt.Pearson = append(pt.Pearson, r.pear[name][k])
				pt.Spearman = append(pt.Spearman, r.spear[name][k])
				pt.RetrainNorm = append(pt.RetrainNorm, r.norm[name][k])
			}
			out.Points = append(out.Points, pt)
		}
	}
	for _, r := range results {
		out.StatsTime, out.PrecomputeTime = append(out.StatsTime, r.stats), append(out.PrecomputeTime, r.pre)
	}
	return out, nil
}

// lossChanges is ℓ(w; u) − before[u] for u in rows.
func lossChanges(m multiclass.Model, data *multiclass.Data, w []float64, rows []int, before []float64) []float64 {
	out := make([]float64, len(rows))
	for k, u := range rows {
		out[k] = m.Loss(w, data.Row(u), data.Y[u]) - before[u]
	}
	return out
}

// Spearman is the rank correlation of x and y: Pearson's on their ranks, ties given
// their mean rank.
func Spearman(x, y []float64) float64 {
	return stat.Correlation(ranks(x), ranks(y), nil)
}

func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	out := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		mean := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			out[idx[k]] = mean
		}
		i = j + 1
	}
	return out
}

// MeanRange is the mean, minimum and maximum of xs, ignoring NaNs (NaN if none).
func MeanRange(xs []float64) (mean, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	k := 0
	for _, x := range xs {
		if math.IsNaN(x) {
			continue
		}
		mean += x
		lo, hi = math.Min(lo, x), math.Max(hi, x)
		k++
	}
	if k == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	return mean / float64(k), lo, hi
}
