package sgluaudit

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit/estimate"
	"github.com/unlearnaudit/unlearnaudit/internal/par"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"github.com/unlearnaudit/unlearnaudit/reference/sglu"
	"gonum.org/v1/gonum/mat"
)

// ExperimentConfig configures the paper's Fig. 3a/3b/3c experiments (spec sglu §5.2–5.4)
// on a real train/test split.
type ExperimentConfig struct {
	Train, Test *reference.Dataset // rows of norm ≤ 1, labels ±1; b must divide |Train|
	Lambda      float64            // λ = m; L = 1/4 + λ, M = 1, η = 1/L
	// Fig. 3a: one removal, one unlearning epoch, σ the least meeting each target.
	Targets  []float64
	Batch    int // the mini-batch SGLU of Fig. 3a (full batch runs beside it)
	Burnin   map[int]int
	D2DIters []int // D2D's I (with internal state, Thm L.1)
	Trials   int   // per side for Fig. 3a
	// FullTrials, when set, is Trials for the full-batch methods (SGLU full batch and LU),
	// whose runs cost a full pass over the data per step.
	FullTrials int
	// Fig. 3b/3c: sequential removals.
	Requests     int
	SeqSigma     float64   // Fig. 3b's σ (target 1)
	SeqBatches   []int     // Fig. 3b/3c batch sizes (0: full batch)
	Sigmas       []float64 // Fig. 3c's σ (target SeqTarget)
	SeqTarget    float64
	SeqTrials    int // runs per Fig. 3b/3c setting (accuracy only)
	LUPerRequest int // Fig. 3b: LU removes this many records per request (paper: 10)
	Seed         uint64
	Workers      int
}

// MethodResult is one method at one setting of Fig. 3a.
type MethodResult struct {
	Method        string
	Target        float64 // ϵ̂
	Sigma         float64
	Accuracy      float64 // mean test accuracy of the unlearned models
	AccuracySD    float64
	RetrainAcc    float64 // mean test accuracy of the retrained models
	Certified     float64 // the ϵ its certificate gives at the σ used
	Empirical     verdict.Finding
	RenyiEstimate estimate.Estimate // projected D̂_2(unlearned ‖ retrained)
	UnlearnGrads  float64           // per-sample gradients of one unlearning request
	RetrainGrads  float64           // per-sample gradients of one retraining
}

// SequentialResult is one method at one setting of Fig. 3b/3c.
type SequentialResult struct {
	Method        string
	Batch         int // 0: full batch; for D2D and LU the full batch
	Sigma         float64
	Target        float64
	Epochs        []int // per request
	TotalEpochs   float64
	Accuracy      float64 // after every request (mean of SeqTrials runs); NaN when not run
	AccuracySD    float64
	RetrainAcc    float64
	RetrainEpochs float64 // Σ over requests of retraining's T (100 × T: the FLAG's reading)
}

// ExperimentResult holds the three figures' data.
type ExperimentResult struct {
	N, Dim, TestN int
	Problem       sglu.Problem // at the Fig. 3a mini-batch size
	Fig3a         []MethodResult
	Fig3b, Fig3c  []SequentialResult
}

func accuracy(theta []float64, test *reference.Dataset) float64 {
	ok := 0
	for i := range test.Len() {
		var s float64
		for j, v := range test.Row(i) {
			s += v * theta[j]
		}
		if (s >= 0) == (test.Label(i) > 0) {
			ok++
		}
	}
	return float64(ok) / float64(test.Len())
}

func meanSD(xs []float64) (float64, float64) {
	var m, s float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	if len(xs) > 1 {
		s /= float64(len(xs) - 1)
	}
	return m, math.Sqrt(s)
}

// paperProblem is the paper's constants for the training set at batch b.
func (c ExperimentConfig) paperProblem(b int) sglu.Problem {
	n := c.Train.Len()
	if b == 0 {
		b = n
	}
	L := 0.25 + c.Lambda
	return sglu.Problem{Smoothness: L, Lipschitz: 1, StrongConvexity: c.Lambda, StepSize: 1 / L, N: n, Batch: b, Radius: math.Inf(1)}
}

// experimentData fixes the ordered partition and the removed records (the first Requests
// slots of a seeded permutation), with their paper replacements.
type experimentData struct {
	ordered      *reference.Dataset
	removed      []int64
	replacements []reference.Record
	first, last  *reference.Dataset // the data after the first and after every removal, slot order
}

func newExperimentData(c ExperimentConfig, requests int) (*experimentData, error) {
	n := c.Train.Len()
	r := reference.Stream(c.Seed, 0, "sglu-mnist/partition")
	perm := r.Perm(n)
	ids := make([]int64, n)
	var maxID int64
	for k, row := range perm {
		ids[k] = c.Train.ID(row)
		maxID = max(maxID, ids[k])
	}
	ordered, err := c.Train.Subset(ids)
	if err != nil {
		return nil, err
	}
	e := &experimentData{ordered: ordered}
	recs := make([]reference.Record, n)
	for k := range n {
		recs[k] = ordered.Record(k)
	}
	rr := reference.Stream(c.Seed, 0, "sglu-mnist/replacements")
	order := reference.Stream(c.Seed, 0, "sglu-mnist/requests").Perm(n)
	for s := range requests {
		k := order[s]
		rec := sglu.RandomReplacement(maxID+1+int64(s), ordered.Row(k), rr)
		e.removed = append(e.removed, ordered.ID(k))
		e.replacements = append(e.replacements, rec)
		recs[k] = rec
		if s == 0 || s == requests-1 {
			f, err := reference.FromRecords(ordered.Dim(), recs)
			if err != nil {
				return nil, err
			}
			if s == 0 {
				e.first = f
			}
			e.last = f
		}
	}
	return e, nil
}

// Experiment runs Fig. 3a, 3b and 3c.
func Experiment(ctx context.Context, c ExperimentConfig) (*ExperimentResult, error) {
	n := c.Train.Len()
	for _, b := range append([]int{c.Batch}, c.SeqBatches...) {
		if b != 0 && n%b != 0 {
			return nil, fmt.Errorf("sglu experiment: batch %d does not divide n = %d", b, n)
		}
	}
	requests := max(c.Requests, 1)
	data, err := newExperimentData(c, requests)
	if err != nil {
		return nil, fmt.Errorf("sglu experiment: %w", err)
	}
	res := &ExperimentResult{N: n, Dim: c.Train.Dim(), TestN: c.Test.Len(), Problem: c.paperProblem(c.Batch)}
	if res.Fig3a, err = c.fig3a(ctx, data); err != nil {
		return nil, err
	}
	if res.Fig3b, err = c.fig3b(ctx, data); err != nil {
		return nil, err
	}
	if res.Fig3c, err = c.fig3c(ctx, data); err != nil {
		return nil, err
	}
	return res, nil
}

// pnsgdRun learns T epochs on the ordered data from the Gaussian initial law (the paper's),
// then serves the removals with the given epochs; it returns the published model.
func (c ExperimentConfig) pnsgdRun(ctx context.Context, data *experimentData, p sglu.Problem, sigma float64, T int, ks []int, r *reference.Streams, purpose string) ([]float64, error) {
	loss := reference.Logistic{Lambda: c.Lambda, Clip: 1}
	rnd := r.Rand(purpose)
	m, err := sglu.LearnOrdered(ctx, sglu.Params{Problem: p, Sigma: sigma, Epochs: T, Init: sglu.GaussianInit}, loss, data.ordered, rnd)
	if err != nil {
		return nil, err
	}
	for s, k := range ks {
		if err := m.Replace(data.removed[s], data.replacements[s]); err != nil {
			return nil, err
		}
		if err := m.Epochs(ctx, k, rnd); err != nil {
			return nil, err
		}
	}
	return m.Published(), nil
}

// retrainRun learns T epochs from scratch on the given data.
func (c ExperimentConfig) retrainRun(ctx context.Context, ds *reference.Dataset, p sglu.Problem, sigma float64, T int, r *reference.Streams, purpose string) ([]float64, error) {
	loss := reference.Logistic{Lambda: c.Lambda, Clip: 1}
	m, err := sglu.LearnOrdered(ctx, sglu.Params{Problem: p, Sigma: sigma, Epochs: T, Init: sglu.GaussianInit}, loss, ds, r.Rand(purpose))
	if err != nil {
		return nil, err
	}
	return m.Published(), nil
}

// compare runs trials of unlearned and retrained publications and summarises them.
func (c ExperimentConfig) compare(ctx context.Context, mr *MethodResult, n int, unlearned, retrained func(st *reference.Streams) ([]float64, error)) error {
	d := c.Train.Dim()
	a, b := mat.NewDense(n, d, nil), mat.NewDense(n, d, nil)
	accU, accR := make([]float64, n), make([]float64, n)
	results := make([]trials.TrialResult, n)
	err := par.Do(ctx, n, c.Workers, func(i int) error {
		st := &reference.Streams{Seed: c.Seed, Trial: i}
		u, err := unlearned(st)
		if err != nil {
			return err
		}
		rt, err := retrained(st)
		if err != nil {
			return err
		}
		a.SetRow(i, u)
		b.SetRow(i, rt)
		accU[i], accR[i] = accuracy(u, c.Test), accuracy(rt, c.Test)
		results[i] = trials.TrialResult{Index: i, Unlearned: reference.Release{Published: u}, Retrained: reference.Release{Published: rt}}
		return nil
	})
	if err != nil {
		return err
	}
	mr.Accuracy, mr.AccuracySD = meanSD(accU)
	mr.RetrainAcc, _ = meanSD(accR)
	delta := 1 / float64(c.Train.Len())
	if mr.Empirical, err = (checks.EmpiricalRelease{Prefix: "sglu-mnist", Epsilon: mr.Target, Delta: delta, Seed: c.Seed}).Check(ctx, results); err != nil {
		return err
	}
	mr.RenyiEstimate, err = estimate.Projected(a, b, estimate.Options{Alpha: 2, Seed: c.Seed, Covariance: estimate.Pooled})
	return err
}

func (c ExperimentConfig) fullTrials() int {
	if c.FullTrials > 0 {
		return c.FullTrials
	}
	return c.Trials
}

func (c ExperimentConfig) burnin(b int) int {
	if t, ok := c.Burnin[b]; ok {
		return t
	}
	return c.Burnin[0]
}

func (c ExperimentConfig) fig3a(ctx context.Context, data *experimentData) ([]MethodResult, error) {
	n := c.Train.Len()
	delta := 1 / float64(n)
	final := data.first
	var out []MethodResult
	for _, target := range c.Targets {
		for _, b := range []int{c.Batch, 0} {
			p := c.paperProblem(b)
			sigma, err := Table3Sigma(p, target)
			if err != nil {
				return nil, fmt.Errorf("sglu experiment: σ for ϵ̂ = %v, b = %d: %w", target, p.Batch, err)
			}
			T := c.burnin(b)
			pc := p
			pc.Radius = math.Inf(1)
			cert, _ := sglu.BestEpsilonWeakTriangle(NonConvergentCoefficient(sigma, pc, 1, NonConvergent{T: 1, InitRadius: 0}, sglu.PaperVariance), delta, sglu.NonConvergentAlphas)
			name := fmt.Sprintf("SGLU b=%d", p.Batch)
			if b == 0 {
				name = "SGLU full batch"
			}
			mr := MethodResult{Method: name, Target: target, Sigma: sigma, Certified: cert, UnlearnGrads: float64(n), RetrainGrads: float64(T * n)}
			runs := c.Trials
			if p.Batch == n {
				runs = c.fullTrials()
			}
			err = c.compare(ctx, &mr, runs,
				func(st *reference.Streams) ([]float64, error) {
					return c.pnsgdRun(ctx, data, p, sigma, T, []int{1}, st, fmt.Sprintf("3a/%s/%v/unlearned", name, target))
				},
				func(st *reference.Streams) ([]float64, error) {
					return c.retrainRun(ctx, final, p, sigma, T, st, fmt.Sprintf("3a/%s/%v/retrained", name, target))
				})
			if err != nil {
				return nil, err
			}
			out = append(out, mr)
		}
		// LU: full-batch PNGD, σ the least for which Eq. 79 meets ϵ̂ at K = 1.
		p := c.paperProblem(0)
		lu := func(alpha, s float64) float64 {
			return LUEpsilon(alpha, s, p.StepSize, 1, n, 1, p.Lipschitz, p.StrongConvexity)
		}
		sigma, err := SearchSigma(1, func(s float64) (int, error) {
			return sglu.LeastEpochs(func(K int) bool {
				e, _ := BestDPEpsilon(func(a float64) float64 { return LUEpsilon(a, s, p.StepSize, K, n, 1, p.Lipschitz, p.StrongConvexity) }, delta, sglu.DefaultAlphas)
				return e <= target
			}, "LU")
		}, SigmaSearch{})
		if err != nil {
			return nil, fmt.Errorf("sglu experiment: LU σ for ϵ̂ = %v: %w", target, err)
		}
		cert, _ := BestDPEpsilon(func(a float64) float64 { return lu(a, sigma) }, delta, sglu.DefaultAlphas)
		T := c.burnin(0)
		mr := MethodResult{Method: "LU (full-batch PNGD)", Target: target, Sigma: sigma, Certified: cert, UnlearnGrads: float64(n), RetrainGrads: float64(T * n)}
		if err := c.compare(ctx, &mr, c.fullTrials(),
			func(st *reference.Streams) ([]float64, error) {
				return c.pnsgdRun(ctx, data, p, sigma, T, []int{1}, st, fmt.Sprintf("3a/LU/%v/unlearned", target))
			},
			func(st *reference.Streams) ([]float64, error) {
				return c.retrainRun(ctx, final, p, sigma, T, st, fmt.Sprintf("3a/LU/%v/retrained", target))
			}); err != nil {
			return nil, err
		}
		out = append(out, mr)
		// D2D with internal state (Thm L.1): deterministic descent, noise at publication.
		for _, I := range c.D2DIters {
			mr, err := c.d2dWithState(ctx, data, target, I)
			if err != nil {
				return nil, err
			}
			out = append(out, mr)
		}
	}
	return out, nil
}

// gd runs full-batch gradient descent with step 2/(L+m) on the clipped logistic loss,
// projected on the ball of radius M/m that holds the minimiser: reference/d2d's descent.
func (c ExperimentConfig) gd(ctx context.Context, theta []float64, ds *reference.Dataset, p sglu.Problem, steps int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	obj := reference.Logistic{Lambda: c.Lambda, Clip: 1}.Objective(ds)
	d2d.Descend(obj, theta, make([]float64, len(theta)), 2/(p.Smoothness+p.StrongConvexity), p.Lipschitz/p.StrongConvexity, steps)
	return nil
}

func (c ExperimentConfig) d2dWithState(ctx context.Context, data *experimentData, target float64, I int) (MethodResult, error) {
	n, d := c.Train.Len(), c.Train.Dim()
	p := c.paperProblem(0)
	p.Radius = p.Lipschitz / p.StrongConvexity
	delta := 1 / float64(n)
	T := D2DMinTrainIters(p, I)
	sigma := D2DSigmaWithState(p, I, target, delta)
	learned := make([]float64, d)
	if err := c.gd(ctx, learned, data.ordered, p, T); err != nil {
		return MethodResult{}, err
	}
	unl := slices.Clone(learned)
	if err := c.gd(ctx, unl, data.first, p, I); err != nil {
		return MethodResult{}, err
	}
	re := make([]float64, d)
	if err := c.gd(ctx, re, data.first, p, T); err != nil {
		return MethodResult{}, err
	}
	publish := func(base []float64, r *reference.Streams, purpose string) []float64 {
		out := slices.Clone(base)
		noise := make([]float64, d)
		reference.FillNormal(noise, sigma, r.Rand(purpose))
		for i := range out {
			out[i] += noise[i]
		}
		return out
	}
	mr := MethodResult{Method: fmt.Sprintf("D2D I=%d (Thm L.1, internal state)", I), Target: target, Sigma: sigma, Certified: target,
		UnlearnGrads: float64(I * n), RetrainGrads: float64(T * n)}
	err := c.compare(ctx, &mr, c.Trials,
		func(st *reference.Streams) ([]float64, error) {
			return publish(unl, st, fmt.Sprintf("3a/d2d/%d/%v/unlearned", I, target)), nil
		},
		func(st *reference.Streams) ([]float64, error) {
			return publish(re, st, fmt.Sprintf("3a/d2d/%d/%v/retrained", I, target)), nil
		})
	return mr, err
}

// fig3b: 100 sequential removals at σ = SeqSigma, (1, 1/n): SGLU per batch size (the
// accountant of Theorem 3.11 in the authors' mixed mode), D2D without internal state
// (Thm L.2), and LU removing LUPerRequest records per request (Eq. 79 per request, not the
// LU paper's own accounting, which this paper does not give; spec §2.9 FLAG).
func (c ExperimentConfig) fig3b(ctx context.Context, data *experimentData) ([]SequentialResult, error) {
	n, d := c.Train.Len(), c.Train.Dim()
	delta := 1 / float64(n)
	var out []SequentialResult
	for _, b := range c.SeqBatches {
		r, err := c.sequential(ctx, data, b, c.SeqSigma, 1)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	p := c.paperProblem(0)
	I := D2DMinI(p, 1, delta, d)
	pr := p
	pr.Radius = p.Lipschitz / p.StrongConvexity
	dr := SequentialResult{Method: "D2D (Thm L.2, no internal state)", Sigma: D2DSigmaNoState(p, I, 1, delta), Target: 1, Accuracy: math.NaN(), AccuracySD: math.NaN(), RetrainAcc: math.NaN(),
		RetrainEpochs: float64(c.Requests * D2DMinTrainIters(pr, I))}
	for i := 1; i <= c.Requests; i++ {
		k := D2DItersForRequest(p, i, I, delta, d)
		dr.Epochs = append(dr.Epochs, k) // full-batch steps: one epoch each
		dr.TotalEpochs += float64(k)
	}
	out = append(out, dr)
	S := max(c.LUPerRequest, 1)
	lr := SequentialResult{Method: fmt.Sprintf("LU (S = %d per request, Eq. 79 per request)", S), Sigma: c.SeqSigma, Target: 1, Accuracy: math.NaN(), AccuracySD: math.NaN(), RetrainAcc: math.NaN(),
		RetrainEpochs: float64((c.Requests + S - 1) / S * c.burnin(0))}
	for range (c.Requests + S - 1) / S {
		K, err := sglu.LeastEpochs(func(K int) bool {
			e, _ := BestDPEpsilon(func(a float64) float64 {
				return LUEpsilon(a, c.SeqSigma, p.StepSize, K, n, S, p.Lipschitz, p.StrongConvexity)
			}, delta, sglu.DefaultAlphas)
			return e <= 1
		}, "LU")
		if err != nil {
			return nil, fmt.Errorf("sglu experiment: LU: %w", err)
		}
		lr.Epochs = append(lr.Epochs, K)
		lr.TotalEpochs += float64(K)
	}
	return append(out, lr), nil
}

func (c ExperimentConfig) fig3c(ctx context.Context, data *experimentData) ([]SequentialResult, error) {
	var out []SequentialResult
	for _, b := range c.SeqBatches {
		for _, sigma := range c.Sigmas {
			r, err := c.sequential(ctx, data, b, sigma, c.SeqTarget)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// sequential runs SGLU over the requests with the accountant's epochs and measures the
// accuracy after the last, beside retraining from scratch on the final data.
func (c ExperimentConfig) sequential(ctx context.Context, data *experimentData, b int, sigma, target float64) (SequentialResult, error) {
	p := c.paperProblem(b)
	delta := 1 / float64(p.N)
	ks, err := SequentialEpochs(p, target, delta, sigma, c.Requests, true, false)
	if err != nil {
		return SequentialResult{}, fmt.Errorf("sglu experiment: b = %d, σ = %v: %w", p.Batch, sigma, err)
	}
	T := c.burnin(b)
	r := SequentialResult{Method: "SGLU", Batch: p.Batch, Sigma: sigma, Target: target, Epochs: ks, RetrainEpochs: float64(c.Requests * T),
		Accuracy: math.NaN(), AccuracySD: math.NaN(), RetrainAcc: math.NaN()}
	for _, k := range ks {
		r.TotalEpochs += float64(k)
	}
	if c.SeqTrials > 0 {
		acc, accR := make([]float64, c.SeqTrials), make([]float64, c.SeqTrials)
		final := data.last
		err := par.Do(ctx, c.SeqTrials, c.Workers, func(i int) error {
			st := &reference.Streams{Seed: c.Seed, Trial: i}
			u, err := c.pnsgdRun(ctx, data, p, sigma, T, ks, st, fmt.Sprintf("seq/%d/%v/unlearned", p.Batch, sigma))
			if err != nil {
				return err
			}
			rt, err := c.retrainRun(ctx, final, p, sigma, T, st, fmt.Sprintf("seq/%d/%v/retrained", p.Batch, sigma))
			if err != nil {
				return err
			}
			acc[i], accR[i] = accuracy(u, c.Test), accuracy(rt, c.Test)
			return nil
		})
		if err != nil {
			return SequentialResult{}, err
		}
		r.Accuracy, r.AccuracySD = meanSD(acc)
		r.RetrainAcc, _ = meanSD(accR)
	}
	return r, nil
}
