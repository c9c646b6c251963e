package hfaudit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/internal/par"
	"github.com/unlearnaudit/unlearnaudit/mia"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/hf"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"github.com/unlearnaudit/unlearnaudit/retrain"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// MIAConfig is the paper's MIA-L experiment (spec hf §5.4): LiRA (Carlini et al. 2022)
// with shadow models on the pool of training and held-out records, run against the
// original model, HF's unlearned model and the retrain, on the forgotten records (as
// members) and the held-out ones (as non-members).
type MIAConfig struct {
	Learn          hf.Config // Stage I, for the target and every shadow
	Train, Holdout *multiclass.Data
	Shadows        int     // the paper's code: 16
	Fraction       float64 // forgotten share of Train (the paper's 5 %)
	Seed           uint64
	Workers        int
	Confidence     float64 // of the bootstrap intervals (0: 0.95)
	// Sigma, when positive, adds N(0, σ²I) to HF's model before the attack: the
	// published model instead of the noiseless one.
	Sigma float64
	// ULiRATargets is how many training records U-LiRA attacks (0: none), each with
	// ULiRAPairs shadow and as many evaluation pairs of models.
	ULiRATargets, ULiRAPairs int
	// MIAU runs the paper's MIA-U (Chen et al. 2021) too: each shadow also unlearns a
	// share Fraction of its members by HF, and a logistic-regression attack learns, from
	// the shadows' (original, unlearned) posteriors, to tell deleted members from
	// non-members.
	MIAU bool
}

// MIAUFeatures are the features of Chen et al.'s attack: the posterior difference, the
// difference of the sorted posteriors, the two posteriors side by side (raw and sorted),
// and their Euclidean distance.
var MIAUFeatures = []string{"DirectDiff", "SortedDiff", "DirectConcat", "SortedConcat", "EucDist"}

// MIAUResult is MIA-U with one feature: the attack's AUC on the forgotten records against
// held-out ones, from the (original, HF-unlearned) pair and from the (original, retrained)
// pair.
type MIAUResult struct {
	Feature         string
	HF, Retrain     mia.Metric
	ShadowPositives int
}

// MIAModel is the attack against one model.
type MIAModel struct {
	Name    string
	Metrics mia.Metrics // forgotten records (positives) against held-out ones
}

// MIAResult is the attack on every model, and how HF compares with retraining.
type MIAResult struct {
	Models                   []MIAModel // original, HF, retrain
	Forgotten, Heldout       int
	ExcessAUC                float64 // AUC(HF) − AUC(retrain)
	ExcessLower, ExcessUpper float64
	// Detectable is the smallest excess AUC a one-sided test at the interval's level would
	// show with 80 % power at these sample sizes (Hanley–McNeil variance at AUC ½, the two
	// models' AUCs taken as independent: conservative for these paired scores).
	Detectable float64
	// ForgetForDetectable is the forgotten-set size that would bring Detectable to 0.1.
	ForgetForDetectable int
	// MIAU is the paper's MIA-U per feature (nil when not run).
	MIAU []MIAUResult
	// ULiRA is the unlearning likelihood-ratio attack on HF (nil when not run), and
	// ULiRADetectable the AUC above ½ it detects with 80 % power at its evaluations.
	ULiRA           *mia.ULiRAResult
	ULiRADetectable float64
}

// confidenceScore is LiRA's logit-scaled confidence, log p_y − log Σ_{k≠y} p_k:
// multiclass.LogOdds from the logits (z is its scratch, Classes entries), for Softmax and
// the MLP; a model without logits (not a multiclass.Network) gets lossLogOdds.
func confidenceScore(m multiclass.Model, w, x []float64, y int, z []float64) float64 {
	if n, ok := m.(multiclass.Network); ok {
		return multiclass.LogOdds(n, w, x, y, z)
	}
	return lossLogOdds(m, w, floats.Dot(w, w), x, y)
}

// lossLogOdds is the log-odds from the loss less its L2 term (sqNorm is ‖w‖²),
// log p − log(1 − p), which cancels for a confident model with large weights (an HF
// release's noise gives norms in the thousands, an L2 term of 10⁶ beside a cross-entropy
// of e^(−1000)): there the cross-entropy is taken as at least 0, never a NaN score.
func lossLogOdds(m multiclass.Model, w []float64, sqNorm float64, x []float64, y int) float64 {
	ce := max(m.Loss(w, x, y)-m.Regularization()/2*sqNorm, 0)
	logP := -ce
	return logP - math.Log(-math.Expm1(logP)) // log p − log(1 − p)
}

func scoreAll(m multiclass.Model, w []float64, pool *multiclass.Data, dst []float64) {
	z := make([]float64, m.Classes())
	for i := range pool.Len() {
		dst[i] = confidenceScore(m, w, pool.Row(i), pool.Y[i], z)
	}
}

// MIA runs the experiment.
func MIA(ctx context.Context, c MIAConfig) (*MIAResult, error) {
	n, h := c.Train.Len(), c.Holdout.Len()
	m := int(math.Round(c.Fraction * float64(n)))
	switch {
	case c.Shadows < 4 || c.Shadows%2 != 0:
		return nil, fmt.Errorf("hf mia: %d shadow models; want an even number, at least 4", c.Shadows)
	case m < 2 || m >= n:
		return nil, fmt.Errorf("hf mia: fraction %v of %d records forgets %d; want at least 2 and not all", c.Fraction, n, m)
	case h < 2:
		return nil, fmt.Errorf("hf mia: %d held-out records; want at least 2", h)
	}
	conf := c.Confidence
	if conf == 0 {
		conf = 0.95
	}
	model := c.Learn.Model
	d := model.Dim()
	// the pool: training rows, then held-out rows
	_, p := c.Train.X.Dims()
	x := mat.NewDense(n+h, p, nil)
	x.Slice(0, n, 0, p).(*mat.Dense).Copy(c.Train.X)
	x.Slice(n, n+h, 0, p).(*mat.Dense).Copy(c.Holdout.X)
	pool, err := multiclass.NewData(x, append(slices.Clone(c.Train.Y), c.Holdout.Y...), model.Classes())
	if err != nil {
		return nil, fmt.Errorf("hf mia: %w", err)
	}
	N := n + h
	// balanced membership: every example is in exactly half the shadows
	in := make([][]bool, c.Shadows)
	for i := range in {
		in[i] = make([]bool, N)
	}
	member := reference.Stream(c.Seed, 0, "hf-mia/membership")
	for k := range N {
		for _, i := range member.Perm(c.Shadows)[:c.Shadows/2] {
			in[i][k] = true
		}
	}
	scores := mat.NewDense(c.Shadows, N, nil)
	shadowPairs := make([][2][][]float64, c.Shadows) // per shadow: posteriors (original, unlearned) of deleted members, then of as many non-members
	shadowLabels := make([][]float64, c.Shadows)
	err = par.Do(ctx, c.Shadows, c.Workers, func(i int) error {
		var rows []int
		for k := range N {
			if in[i][k] {
				rows = append(rows, k)
			}
		}
		sub, err := subset(pool, rows, model.Classes())
		if err != nil {
			return err
		}
		tr, err := hf.Learn(ctx, c.Learn, sub, make([]float64, d), reference.Stream(c.Seed, i, "hf-mia/shadow"))
		if err != nil {
			return err
		}
		scoreAll(model, tr.Final, pool, scores.RawRowView(i))
		if !c.MIAU {
			return nil
		}
		// unlearn a share of this shadow's members by HF; its non-members are the negatives
		r := reference.Stream(c.Seed, i, "hf-mia/shadow-forget")
		k := max(2, int(math.Round(c.Fraction*float64(len(rows)))))
		local := r.Perm(len(rows))[:k] // rows of sub
		stats, err := tr.Statistics(ctx, sub, local, hf.PaperOrder)
		if err != nil {
			return err
		}
		u := hf.NewUnlearner(tr, stats)
		if err := u.Delete(local...); err != nil {
			return err
		}
		unl := u.Model()
		var outside []int
		for kk := range N {
			if !in[i][kk] {
				outside = append(outside, kk)
			}
		}
		for _, j := range local {
			shadowPairs[i][0] = append(shadowPairs[i][0], posterior(model, tr.Final, sub.Row(j)))
			shadowPairs[i][1] = append(shadowPairs[i][1], posterior(model, unl, sub.Row(j)))
			shadowLabels[i] = append(shadowLabels[i], 1)
		}
		for _, j := range r.Perm(len(outside))[:min(k, len(outside))] {
			x := pool.Row(outside[j])
			shadowPairs[i][0] = append(shadowPairs[i][0], posterior(model, tr.Final, x))
			shadowPairs[i][1] = append(shadowPairs[i][1], posterior(model, unl, x))
			shadowLabels[i] = append(shadowLabels[i], -1)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("hf mia: shadows: %w", err)
	}
	lira, err := mia.FitLiRA(scores, in, mia.LiRAOptions{})
	if err != nil {
		return nil, fmt.Errorf("hf mia: %w", err)
	}

	// the target, HF and the retrain
	tr, err := hf.Learn(ctx, c.Learn, c.Train, make([]float64, d), reference.Stream(c.Seed, 0, "hf-mia/target"))
	if err != nil {
		return nil, err
	}
	forget := reference.Stream(c.Seed, 0, "hf-mia/forget").Perm(n)[:m]
	slices.Sort(forget)
	stats, err := tr.Statistics(ctx, c.Train, forget, hf.PaperOrder)
	if err != nil {
		return nil, err
	}
	un := hf.NewUnlearner(tr, stats)
	if err := un.Delete(forget...); err != nil {
		return nil, err
	}
	hfModel := un.Model()
	if c.Sigma > 0 {
		hfModel = un.Release(c.Sigma, reference.Stream(c.Seed, 0, "hf-mia/noise"))
	}
	retrained, err := tr.Retrain(ctx, c.Train, forget, hf.PaperRule, nil)
	if err != nil {
		return nil, err
	}
	res := &MIAResult{Forgotten: m, Heldout: h}
	target := make([]float64, N)
	stat := make([]float64, N)
	split := func(w []float64) (pos, neg []float64) {
		scoreAll(model, w, pool, target)
		lira.Statistic(stat, target)
		for _, k := range forget {
			pos = append(pos, stat[k])
		}
		return pos, slices.Clone(stat[n:])
	}
	var pairs [3][2][]float64
	for j, w := range [][]float64{tr.Final, hfModel, retrained} {
		pos, neg := split(w)
		pairs[j] = [2][]float64{pos, neg}
		met, err := mia.Evaluate(pos, neg, 400, conf, c.Seed)
		if err != nil {
			return nil, err
		}
		res.Models = append(res.Models, MIAModel{Name: []string{"original", MethodHF, "Retrain"}[j], Metrics: met})
	}
	res.ExcessAUC, res.ExcessLower, res.ExcessUpper = mia.PairedAUCExcess(pairs[1], pairs[2], 400, conf, reference.Stream(c.Seed, -1, "hf-mia/paired"))
	if c.MIAU {
		if res.MIAU, err = miaU(shadowPairs, shadowLabels, model, tr.Final, hfModel, retrained, c.Train, forget, c.Holdout, conf, c.Seed); err != nil {
			return nil, err
		}
	}
	if c.ULiRATargets > 0 {
		if res.ULiRA, err = c.uLiRA(ctx, forget); err != nil {
			return nil, err
		}
		evals := c.ULiRATargets * c.ULiRAPairs
		res.ULiRADetectable = mia.DetectableAUCExcess(evals, evals, conf) / math.Sqrt2 // one AUC against ½
	}
	res.Detectable = mia.DetectableAUCExcess(m, h, conf)
	res.ForgetForDetectable = m
	for res.ForgetForDetectable < 1<<30 && mia.DetectableAUCExcess(res.ForgetForDetectable, h, conf) > 0.1 {
		res.ForgetForDetectable *= 2
	}
	return res, nil
}

// subset is the rows of data.
func subset(data *multiclass.Data, rows []int, classes int) (*multiclass.Data, error) {
	_, p := data.X.Dims()
	x := mat.NewDense(len(rows), p, nil)
	y := make([]int, len(rows))
	for k, i := range rows {
		copy(x.RawRowView(k), data.Row(i))
		y[k] = data.Y[i]
	}
	return multiclass.NewData(x, y, classes)
}

// uLiRA runs U-LiRA (Hayes et al. 2024) on HF: for each target (training records not in
// the forget set), pairs of models on random halves of the other training records — one
// learned with the target and unlearned by HF's Stage II and III, one retrained without
// it — scored by the target's logit-scaled confidence.
func (c MIAConfig) uLiRA(ctx context.Context, forget []int) (*mia.ULiRAResult, error) {
	n := c.Train.Len()
	ds, err := c.Train.Dataset()
	if err != nil {
		return nil, err
	}
	model := c.Learn.Model
	toData := func(d *reference.Dataset) (*multiclass.Data, error) {
		return multiclass.FromDataset(d, model.Classes())
	}
	unlearn := func(ctx context.Context, d *reference.Dataset, target int64, r *rand.Rand) ([]float64, error) {
		data, err := toData(d)
		if err != nil {
			return nil, err
		}
		row, ok := d.Lookup(target)
		if !ok {
			return nil, fmt.Errorf("target %d not in the half", target)
		}
		tr, err := hf.Learn(ctx, c.Learn, data, make([]float64, model.Dim()), r)
		if err != nil {
			return nil, err
		}
		stats, err := tr.Statistics(ctx, data, []int{row}, hf.PaperOrder)
		if err != nil {
			return nil, err
		}
		u := hf.NewUnlearner(tr, stats)
		if err := u.Delete(row); err != nil {
			return nil, err
		}
		if c.Sigma > 0 {
			return u.Release(c.Sigma, r), nil
		}
		return u.Model(), nil
	}
	retrain := func(ctx context.Context, d *reference.Dataset, r *rand.Rand) ([]float64, error) {
		data, err := toData(d)
		if err != nil {
			return nil, err
		}
		tr, err := hf.Learn(ctx, c.Learn, data, make([]float64, model.Dim()), r)
		if err != nil {
			return nil, err
		}
		w := tr.Final
		if c.Sigma > 0 {
			noise := make([]float64, len(w))
			reference.FillNormal(noise, c.Sigma, r)
			floats.Add(w, noise)
		}
		return w, nil
	}
	forgotten := map[int]bool{}
	for _, f := range forget {
		forgotten[f] = true
	}
	var targets []int64
	for _, i := range reference.Stream(c.Seed, 0, "hf-mia/ulira-targets").Perm(n) {
		if !forgotten[i] && len(targets) < c.ULiRATargets {
			targets = append(targets, int64(i))
		}
	}
	score := func(w []float64, rec reference.Record) float64 {
		return confidenceScore(model, w, rec.X, int(rec.Y), make([]float64, model.Classes()))
	}
	return mia.ULiRA(ctx, unlearn, retrain, nil, ds, targets, mia.ULiRAOptions{Shadows: c.ULiRAPairs, Evals: c.ULiRAPairs,
		Seed: c.Seed, Workers: c.Workers, Score: score})
}

// posterior is the model's class probabilities at x: exp(−cross-entropy) per label.
func posterior(m multiclass.Model, w, x []float64) []float64 {
	reg := m.Regularization() / 2 * floats.Dot(w, w)
	p := make([]float64, m.Classes())
	for k := range p {
		p[k] = fexp.Exp(-(m.Loss(w, x, k) - reg))
	}
	return p
}

// miaUFeature is one of MIAUFeatures from a record's two posteriors.
func miaUFeature(kind string, orig, unl []float64) []float64 {
	switch kind {
	case "SortedDiff":
		a, b := slices.Clone(orig), slices.Clone(unl)
		slices.Sort(a)
		slices.Sort(b)
		for j := range a {
			a[j] -= b[j]
		}
		return a
	case "EucDist":
		return []float64{floats.Distance(orig, unl, 2)}
	case "DirectConcat":
		return append(slices.Clone(orig), unl...)
	case "SortedConcat":
		a, b := slices.Clone(orig), slices.Clone(unl)
		slices.Sort(a)
		slices.Sort(b)
		return append(a, b...)
	}
	d := slices.Clone(orig)
	floats.Sub(d, unl)
	return d
}

// miaU trains, per feature, an L2 logistic-regression attack (exact ERM, λ = 1e-3, the
// features standardised with the shadows' statistics) on the shadows' deleted members
// (+1) and non-members (−1), and scores the target's forgotten records against held-out
// ones under (original, HF) and (original, retrained).
func miaU(pairs [][2][][]float64, labels [][]float64, m multiclass.Model, orig, hfModel, retrained []float64,
	train *multiclass.Data, forget []int, holdout *multiclass.Data, conf float64, seed uint64) ([]MIAUResult, error) {
	var out []MIAUResult
	for _, kind := range MIAUFeatures {
		var xs, ys []float64
		dim, positives := 0, 0
		for i := range pairs {
			for j := range labels[i] {
				f := miaUFeature(kind, pairs[i][0][j], pairs[i][1][j])
				dim = len(f)
				xs, ys = append(xs, f...), append(ys, labels[i][j])
				if labels[i][j] > 0 {
					positives++
				}
			}
		}
		nRows := len(ys)
		mean, sd := make([]float64, dim), make([]float64, dim)
		for r := range nRows {
			for j := range dim {
				mean[j] += xs[r*dim+j] / float64(nRows)
			}
		}
		for r := range nRows {
			for j := range dim {
				d := xs[r*dim+j] - mean[j]
				sd[j] += d * d / float64(nRows)
			}
		}
		for j := range sd {
			sd[j] = math.Sqrt(sd[j])
			if sd[j] == 0 {
				sd[j] = 1
			}
		}
		standard := func(f []float64) []float64 {
			g := make([]float64, dim+1)
			for j := range dim {
				g[j] = (f[j] - mean[j]) / sd[j]
			}
			g[dim] = 1
			return g
		}
		design := make([]float64, 0, nRows*(dim+1))
		ids := make([]int64, nRows)
		for r := range nRows {
			design = append(design, standard(xs[r*dim:(r+1)*dim])...)
			ids[r] = int64(r)
		}
		ds, err := reference.NewDataset(ids, mat.NewDense(nRows, dim+1, design), ys)
		if err != nil {
			return nil, err
		}
		fit, err := retrain.Minimize(reference.Logistic{Lambda: 1e-3}.Objective(ds), 1e6, retrain.Options{})
		if err != nil {
			return nil, fmt.Errorf("hf mia-u %s: %w", kind, err)
		}
		attack := func(w []float64) (pos, neg []float64) {
			score := func(x []float64) float64 {
				return floats.Dot(fit.Theta, standard(miaUFeature(kind, posterior(m, orig, x), posterior(m, w, x))))
			}
			for _, u := range forget {
				pos = append(pos, score(train.Row(u)))
			}
			for i := range holdout.Len() {
				neg = append(neg, score(holdout.Row(i)))
			}
			return pos, neg
		}
		r := MIAUResult{Feature: kind, ShadowPositives: positives}
		for j, w := range [][]float64{hfModel, retrained} {
			pos, neg := attack(w)
			met, err := mia.Evaluate(pos, neg, 400, conf, seed)
			if err != nil {
				return nil, err
			}
			if j == 0 {
				r.HF = met.AUC
			} else {
				r.Retrain = met.AUC
			}
		}
		out = append(out, r)
	}
	return out, nil
}
