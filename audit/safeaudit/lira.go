package safeaudit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/internal/par"
	"github.com/unlearnaudit/unlearnaudit/mia"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"github.com/unlearnaudit/unlearnaudit/reference/safe"
	"gonum.org/v1/gonum/mat"
)

// LiRAMethod is LiRA against one method's model after the last round: the deleted
// records (members of the original model) against the test records (never members), and
// its AUC's excess over the retrain's with a paired bootstrap interval.
type LiRAMethod struct {
	Name                 string
	Metrics              mia.Metrics
	Excess, Lower, Upper float64
}

// LiRAResult is the attack on every method of a stream.
type LiRAResult struct {
	Methods            []LiRAMethod
	Forgotten, Heldout int
	Shadows            int
	// Detectable is the smallest excess AUC over the retrain's that the paired interval's
	// one-sided test shows with 80 % power at these sizes.
	Detectable float64
	// ULiRA attacks SAFE's unlearning itself (nil when not run); ULiRADetectable is the
	// AUC above ½ it detects with 80 % power.
	ULiRA           *mia.ULiRAResult
	ULiRADetectable float64
}

// StreamLiRA runs online LiRA (Carlini et al. 2022) with shadows models trained by the
// stream's recipe on random halves of the pool of training and test records (each in
// exactly half of them), against each method's final model in res, scoring the stream's
// deleted records against the test records; conf is the intervals' level.
func StreamLiRA(ctx context.Context, c StreamConfig, res *StreamResult, shadows, workers int, conf float64) (*LiRAResult, error) {
	if shadows < 4 || shadows%2 != 0 {
		return nil, fmt.Errorf("safe lira: %d shadow models; want an even number, at least 4", shadows)
	}
	n, h := c.Train.Len(), c.Test.Len()
	N := n + h
	_, p := c.Train.X.Dims()
	x := mat.NewDense(N, p, nil)
	x.Slice(0, n, 0, p).(*mat.Dense).Copy(c.Train.X)
	x.Slice(n, N, 0, p).(*mat.Dense).Copy(c.Test.X)
	m := c.Recipe.Model
	pool, err := multiclass.NewData(x, append(slices.Clone(c.Train.Y), c.Test.Y...), m.Classes())
	if err != nil {
		return nil, err
	}
	in := make([][]bool, shadows)
	for i := range in {
		in[i] = make([]bool, N)
	}
	member := reference.Stream(c.Seed, 0, "safe-lira/membership")
	for k := range N {
		for _, i := range member.Perm(shadows)[:shadows/2] {
			in[i][k] = true
		}
	}
	scores := mat.NewDense(shadows, N, nil)
	err = par.Do(ctx, shadows, workers, func(i int) error {
		var rows []int
		for k := range N {
			if in[i][k] {
				rows = append(rows, k)
			}
		}
		w, err := c.Recipe.Fit(ctx, pool, rows, reference.Stream(c.Seed, i, "safe-lira/shadow"))
		if err != nil {
			return err
		}
		z := make([]float64, m.Classes())
		row := scores.RawRowView(i)
		for k := range N {
			row[k] = multiclass.LogOdds(m, w, pool.Row(k), pool.Y[k], z)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("safe lira: shadows: %w", err)
	}
	lira, err := mia.FitLiRA(scores, in, mia.LiRAOptions{})
	if err != nil {
		return nil, fmt.Errorf("safe lira: %w", err)
	}
	var forgot []int
	for _, req := range c.Stream {
		forgot = append(forgot, req...)
	}
	out := &LiRAResult{Forgotten: len(forgot), Heldout: h, Shadows: shadows, Detectable: mia.DetectableAUCExcess(len(forgot), h, conf)}
	split := func(w []float64) [2][]float64 {
		target, stat := make([]float64, N), make([]float64, N)
		z := make([]float64, m.Classes())
		for k := range N {
			target[k] = multiclass.LogOdds(m, w, pool.Row(k), pool.Y[k], z)
		}
		lira.Statistic(stat, target)
		var pos []float64
		for _, r := range forgot {
			pos = append(pos, stat[r])
		}
		return [2][]float64{pos, slices.Clone(stat[n:])}
	}
	retrain, ok := res.Method(MethodRetrain)
	if !ok || retrain.Final == nil {
		return nil, fmt.Errorf("safe lira: the stream has no retrain")
	}
	ref := split(retrain.Final)
	for _, ms := range res.Methods {
		if ms.Final == nil {
			continue
		}
		pair := split(ms.Final)
		met, err := mia.Evaluate(pair[0], pair[1], 400, conf, c.Seed)
		if err != nil {
			return nil, err
		}
		lm := LiRAMethod{Name: ms.Name, Metrics: met}
		lm.Excess, lm.Lower, lm.Upper = mia.PairedAUCExcess(pair, ref, 400, conf, reference.Stream(c.Seed, -1, "safe-lira/paired"))
		out.Methods = append(out.Methods, lm)
	}
	return out, nil
}

// SAFEULiRA runs U-LiRA (Hayes et al. 2024) on SAFE: for each target (a training record
// the stream does not delete), pairs of models on random halves of the other training
// records — one trained by the recipe with the target and then unlearned by SAFE (the
// stream's configuration, the target its first request), one retrained without it —
// scored by the target's logit-scaled confidence.
func SAFEULiRA(ctx context.Context, c StreamConfig, targets, pairs, workers int) (*mia.ULiRAResult, error) {
	n := c.Train.Len()
	ds, err := c.Train.Dataset()
	if err != nil {
		return nil, err
	}
	m := c.Recipe.Model
	toData := func(d *reference.Dataset) (*multiclass.Data, error) { return multiclass.FromDataset(d, m.Classes()) }
	cfg := c.SAFE
	cfg.T = len(c.Stream)
	unlearn := func(ctx context.Context, d *reference.Dataset, target int64, r *rand.Rand) ([]float64, error) {
		data, err := toData(d)
		if err != nil {
			return nil, err
		}
		row, ok := d.Lookup(target)
		if !ok {
			return nil, fmt.Errorf("target %d not in the half", target)
		}
		w0, err := c.Recipe.Fit(ctx, data, nil, r)
		if err != nil {
			return nil, err
		}
		u, err := safe.New(ctx, m, data, w0, cfg, r)
		if err != nil {
			return nil, err
		}
		res, err := u.Round(ctx, safe.RequestOf(data, []int{row}))
		return res.W, err
	}
	retrain := func(ctx context.Context, d *reference.Dataset, r *rand.Rand) ([]float64, error) {
		data, err := toData(d)
		if err != nil {
			return nil, err
		}
		return c.Recipe.Fit(ctx, data, nil, r)
	}
	deleted := map[int]bool{}
	for _, req := range c.Stream {
		for _, r := range req {
			deleted[r] = true
		}
	}
	var chosen []int64
	for _, i := range reference.Stream(c.Seed, 0, "safe-lira/ulira-targets").Perm(n) {
		if !deleted[i] && len(chosen) < targets {
			chosen = append(chosen, int64(i))
		}
	}
	score := func(w []float64, rec reference.Record) float64 {
		return multiclass.LogOdds(m, w, rec.X, int(rec.Y), make([]float64, m.Classes()))
	}
	return mia.ULiRA(ctx, unlearn, retrain, nil, ds, chosen, mia.ULiRAOptions{Shadows: pairs, Evals: pairs, Seed: c.Seed, Workers: workers, Score: score})
}
