package mia

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/unlearnaudit/unlearnaudit/internal/par"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// An Unlearner learns on ds and then unlearns the record target, taking its randomness
// from r, and returns the model it would publish.
type Unlearner func(ctx context.Context, ds *reference.Dataset, target int64, r *rand.Rand) ([]float64, error)

// ULiRAOptions configure U-LiRA.
type ULiRAOptions struct {
	Shadows int  // model pairs per target to fit the Gaussians; default 16
	Evals   int  // model pairs per target to test on; default 16
	Kind    Kind // score; default Confidence
	Center  Center
	// FixedVariance uses one standard deviation for every target (labelled variant).
	FixedVariance bool
	// Coupled trains the two models of a pair on the same random half. By default the
	// halves are independent, as in the paper: with coupling, a deterministic exact
	// unlearner would produce the very same model on both sides, and the pairs would say
	// nothing about how the attack behaves on two samples of one law.
	Coupled bool
	Workers int
	Seed    uint64
	// Score, when set, scores the target record under a model instead of Kind and the
	// loss (which may then be nil): for models that are not linear in the features, such
	// as a softmax over K classes whose labels the dataset holds as 0 … K−1.
	Score func(model []float64, rec reference.Record) float64
}

// ULiRATarget is the attack's result on one target record.
type ULiRATarget struct {
	ID int64 `json:"id"`
	// Accuracy is the balanced accuracy of the likelihood-ratio test Λ > 0 on the
	// evaluation pairs: 0.5 means the unlearned model cannot be told from a retrain.
	Accuracy float64 `json:"accuracy"`
}

// ULiRAResult pools the attack over targets.
type ULiRAResult struct {
	Targets []ULiRATarget
	// Unlearned and Retrained are the statistics Λ of every evaluation model, pooled over
	// targets; Metrics evaluates them (members = unlearned).
	Unlearned, Retrained []float64
	Metrics              Metrics
}

// ULiRA is the unlearning likelihood-ratio attack (Hayes et al. 2024, "Inexact unlearning
// needs more careful evaluations"): for each target record x it trains pairs of models on
// random halves of the other records, one learned with x and then unlearned by the method
// (IN), one retrained without x (OUT); fits per-target Gaussians to x's
// score under the shadow pairs; and tests fresh evaluation pairs with the likelihood
// ratio. A method that unlearns x leaves the two indistinguishable: accuracy near 50 %.
func ULiRA(ctx context.Context, unlearn Unlearner, retrain Trainer, loss reference.Loss, ds *reference.Dataset, targets []int64, opt ULiRAOptions) (*ULiRAResult, error) {
	if opt.Shadows == 0 {
		opt.Shadows = 16
	}
	if opt.Evals == 0 {
		opt.Evals = 16
	}
	if opt.Shadows < 2 || opt.Evals < 1 || len(targets) == 0 {
		return nil, fmt.Errorf("U-LiRA: %d shadows, %d evaluation pairs, %d targets; want ≥ 2, ≥ 1, ≥ 1", opt.Shadows, opt.Evals, len(targets))
	}
	for _, id := range targets {
		if !ds.Has(id) {
			return nil, fmt.Errorf("U-LiRA: target record ID %d is not in the dataset", id)
		}
	}
	pairs := opt.Shadows + opt.Evals
	in := make([][]float64, len(targets)) // target × pair: score under the unlearned model
	out := make([][]float64, len(targets))
	for t := range targets {
		in[t], out[t] = make([]float64, pairs), make([]float64, pairs)
	}
	err := par.Do(ctx, len(targets)*pairs, opt.Workers, func(job int) error {
		t, j := job/pairs, job%pairs
		x := targets[t]
		rest, err := ds.Without(x)
		if err != nil {
			return err
		}
		half, err := rest.Sample(rest.Len()/2, reference.Stream(opt.Seed, job, "ulira/half"))
		if err != nil {
			return err
		}
		other := half
		if !opt.Coupled {
			if other, err = rest.Sample(rest.Len()/2, reference.Stream(opt.Seed, job, "ulira/half/retrained")); err != nil {
				return err
			}
		}
		row, _ := ds.Lookup(x)
		withX, err := half.With(ds.Record(row))
		if err != nil {
			return err
		}
		um, err := unlearn(ctx, withX, x, reference.Stream(opt.Seed, job, "ulira/unlearned"))
		if err != nil {
			return fmt.Errorf("U-LiRA target %d pair %d, unlearned model: %w", x, j, err)
		}
		rm, err := retrain(ctx, other, reference.Stream(opt.Seed, job, "ulira/retrained"))
		if err != nil {
			return fmt.Errorf("U-LiRA target %d pair %d, retrain: %w", x, j, err)
		}
		if opt.Score != nil {
			in[t][j], out[t][j] = opt.Score(um, ds.Record(row)), opt.Score(rm, ds.Record(row))
			return nil
		}
		one, err := ds.Subset([]int64{x})
		if err != nil {
			return err
		}
		s := make([]float64, 1)
		ScoreModel(s, opt.Kind, loss, um, one)
		in[t][j] = s[0]
		ScoreModel(s, opt.Kind, loss, rm, one)
		out[t][j] = s[0]
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Fit on the shadow pairs of all targets at once (one column per target), test on the
	// evaluation pairs.
	shadow := mat.NewDense(2*opt.Shadows, len(targets), nil)
	member := make([][]bool, 2*opt.Shadows)
	for i := range member {
		member[i] = make([]bool, len(targets))
	}
	for t := range targets {
		for j := range opt.Shadows {
			shadow.Set(j, t, in[t][j])
			member[j][t] = true
			shadow.Set(opt.Shadows+j, t, out[t][j])
		}
	}
	l, err := FitLiRA(shadow, member, LiRAOptions{FixedVariance: opt.FixedVariance, Center: opt.Center})
	if err != nil {
		return nil, fmt.Errorf("U-LiRA: %w", err)
	}
	res := &ULiRAResult{Targets: make([]ULiRATarget, len(targets))}
	scores, stat := make([]float64, len(targets)), make([]float64, len(targets))
	correct := make([]int, len(targets))
	for j := opt.Shadows; j < pairs; j++ {
		for _, side := range []struct {
			s      [][]float64
			member bool
		}{{in, true}, {out, false}} {
			for t := range targets {
				scores[t] = side.s[t][j]
			}
			l.Statistic(stat, scores)
			for t, v := range stat {
				if (v > 0) == side.member {
					correct[t]++
				}
				if side.member {
					res.Unlearned = append(res.Unlearned, v)
				} else {
					res.Retrained = append(res.Retrained, v)
				}
			}
		}
	}
	for t, id := range targets {
		res.Targets[t] = ULiRATarget{ID: id, Accuracy: float64(correct[t]) / float64(2*opt.Evals)}
	}
	res.Metrics, err = Evaluate(res.Unlearned, res.Retrained, 200, 0.95, opt.Seed)
	return res, err
}
