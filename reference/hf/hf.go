package hf

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// Config is Stage I's training procedure (spec hf §1.2): mini-batch SGD for Epochs epochs
// of ⌈n/BatchSize⌉ consecutive batches of a permutation, with step η_t = Eta·Decay^t at
// global step t.
type Config struct {
	Model     multiclass.Model
	Epochs    int
	BatchSize int
	Eta       float64 // η
	Decay     float64 // q in (0, 1]: η_t = η q^t, per step
	// Clip, when positive, clips the batch-mean gradient to norm Clip (the official code's
	// --clip). ClipMode says how Stage II linearises a clipped step; with ClipOff (the
	// default) Statistics refuses a clipped trajectory rather than approximate another map.
	Clip     float64
	ClipMode ClipMode
	// Reshuffle draws a new permutation every epoch; by default every epoch uses the same
	// one, as the official code (which re-seeds per epoch) does.
	Reshuffle bool
	// Replacement samples each epoch's n batch slots uniformly with replacement instead of
	// permuting (spec hf §4.6 case 10): a record may sit in a batch more than once, each
	// occurrence a term, and one never drawn has statistic 0.
	Replacement bool
}

// ClipMode is how Stage II treats clipped steps (spec hf §2.2). A clipped step is
// w ← w − η_t·clip(g_t), g_t the batch mean gradient; where ‖g_t‖ > C its Jacobian is
// J_t = (C/‖g_t‖)(I − ĝĝᵀ), ĝ = g_t/‖g_t‖ (the identity where ‖g_t‖ ≤ C).
type ClipMode int

const (
	// ClipOff: no clipping is linearised; Statistics refuses a clipped trajectory.
	ClipOff ClipMode = iota
	// ClipCodeCompat is the official code: maps I − η_t J_t H_t (it differentiates through
	// the scale), but sources (η_t/|B_t|)·clip(∇ℓ(w_t; u), C), the per-sample gradient
	// clipped on its own. Not the derivative of the clipped run.
	ClipCodeCompat
	// ClipExactJacobian is the ω-derivative of the clipped run: maps I − η_t J_t H_t and
	// sources (η_t/|B_t|)·J_t∇ℓ(w_t; u).
	ClipExactJacobian
)

func (m ClipMode) String() string {
	switch m {
	case ClipCodeCompat:
		return "code-compatible (clipped Jacobian in the maps, per-sample clipped sources)"
	case ClipExactJacobian:
		return "exact Jacobian of the clipped step"
	}
	return "off"
}

// Check reports settings Stage I cannot run with.
func (c Config) Check(n int) error {
	switch {
	case c.Model == nil:
		return fmt.Errorf("hf: no model")
	case n < 1:
		return fmt.Errorf("hf: no training rows")
	case c.Epochs < 1:
		return fmt.Errorf("hf: epochs %d; want at least 1", c.Epochs)
	case c.BatchSize < 1:
		return fmt.Errorf("hf: batch size %d; want at least 1", c.BatchSize)
	case !(c.Eta > 0):
		return fmt.Errorf("hf: step size η = %v; want η > 0", c.Eta)
	case !(c.Decay > 0 && c.Decay <= 1):
		return fmt.Errorf("hf: decay q = %v; want 0 < q ≤ 1", c.Decay)
	case c.Clip < 0:
		return fmt.Errorf("hf: clip %v; want 0 (off) or more", c.Clip)
	}
	return nil
}

// Schedule is the batch order Stage I used, kept so that retraining and Stage II replay it:
// one permutation of the rows per epoch (one for all epochs unless Reshuffle; n draws
// with replacement under Config.Replacement), cut into consecutive batches. It costs n integers an epoch — never the n × T gradients.
type Schedule struct {
	N, BatchSize, Epochs int
	Perms                [][]int32 // Perms[e], or Perms[0] for every epoch
}

// Steps is T = Epochs·⌈n/BatchSize⌉.
func (s Schedule) Steps() int { return s.Epochs * s.PerEpoch() }

// PerEpoch is B = ⌈n/BatchSize⌉.
func (s Schedule) PerEpoch() int { return (s.N + s.BatchSize - 1) / s.BatchSize }

// Batch is B_t, the rows of step t (a view; the last batch of an epoch may be smaller).
func (s Schedule) Batch(t int) []int32 {
	e, b := t/s.PerEpoch(), t%s.PerEpoch()
	perm := s.Perms[0]
	if len(s.Perms) > 1 {
		perm = s.Perms[e]
	}
	return perm[b*s.BatchSize : min((b+1)*s.BatchSize, s.N)]
}

// newSchedule draws the permutations of rows 0 … n−1 from r.
func newSchedule(n int, c Config, r *rand.Rand) Schedule {
	rows := make([]int32, n)
	for i := range rows {
		rows[i] = int32(i)
	}
	return scheduleOver(rows, c, r)
}

// scheduleOver draws the permutations of the given rows from r.
func scheduleOver(rows []int32, c Config, r *rand.Rand) Schedule {
	n := len(rows)
	s := Schedule{N: n, BatchSize: c.BatchSize, Epochs: c.Epochs}
	perms := 1
	if c.Reshuffle {
		perms = c.Epochs
	}
	for range perms {
		p := slices.Clone(rows)
		if c.Replacement {
			for i := range p {
				p[i] = rows[r.IntN(n)]
			}
		} else {
			r.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
		}
		s.Perms = append(s.Perms, p)
	}
	return s
}

// A Trajectory is Stage I's output: the learned model w_T, the iterate before every step
// (w_0 … w_{T−1}, the checkpoints Stage II linearises around) and the schedule.
type Trajectory struct {
	Config      Config
	Schedule    Schedule
	W0          []float64
	Checkpoints [][]float64
	Final       []float64
}

// Eta is η_t = η q^t.
func (tr *Trajectory) Eta(t int) float64 {
	return tr.Config.Eta * fexp.Pow(tr.Config.Decay, float64(t))
}

// Plan draws Stage I's batch order from r, as Learn does, without training: a trajectory
// with no checkpoints, enough to Retrain (which replays the order from w0) when the same
// stream gave Learn its order elsewhere.
func Plan(c Config, n int, w0 []float64, r *rand.Rand) (*Trajectory, error) {
	if err := c.Check(n); err != nil {
		return nil, err
	}
	return &Trajectory{Config: c, Schedule: newSchedule(n, c, r), W0: append([]float64(nil), w0...)}, nil
}

// Learn runs Stage I on data from w0 (copied), drawing the batch order from r.
func Learn(ctx context.Context, c Config, data *multiclass.Data, w0 []float64, r *rand.Rand) (*Trajectory, error) {
	if err := c.Check(data.Len()); err != nil {
		return nil, err
	}
	if len(w0) != c.Model.Dim() {
		return nil, fmt.Errorf("hf learn: w0 has %d entries, the model %d parameters", len(w0), c.Model.Dim())
	}
	tr := &Trajectory{Config: c, Schedule: newSchedule(data.Len(), c, r), W0: append([]float64(nil), w0...)}
	final, err := tr.run(ctx, data, nil, PaperRule, func(_ int, w []float64) {
		tr.Checkpoints = append(tr.Checkpoints, slices.Clone(w))
	})
	if err != nil {
		return nil, err
	}
	tr.Final = final
	return tr, nil
}

// Rule is how retraining treats a batch from which removed records were dropped (spec hf
// §1.3).
type Rule int

const (
	// PaperRule keeps the divisor |B_t| (Eqs. 4–5, the "linear scaling rule"): HF is the
	// first-order approximation of this retraining, and the theorems speak of it.
	PaperRule Rule = iota
	// CodeRule averages over the records that remain, as the official code does; a batch
	// with none left is skipped.
	CodeRule
)

func (r Rule) String() string {
	if r == CodeRule {
		return "code rule (mean over the remaining records of each batch)"
	}
	return "paper rule (divisor |B_t| kept, Eqs. 4–5)"
}

// run replays the schedule from the trajectory's w0 with per-row weights: row i's term in
// every batch it is in counts 1 + weight[i] (weight −1 removes it). visit, if not nil, sees
// the iterate before every step (Stage I keeps them as its checkpoints).
func (tr *Trajectory) run(ctx context.Context, data *multiclass.Data, weight map[int32]float64, rule Rule, visit func(t int, w []float64)) ([]float64, error) {
	c := tr.Config
	d := c.Model.Dim()
	w := append(make([]float64, 0, d), tr.W0...)
	g, tmp := make([]float64, d), make([]float64, d)
	for t := range tr.Schedule.Steps() {
		if t%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if visit != nil {
			visit(t, w)
		}
		batch := tr.Schedule.Batch(t)
		total := 0.0
		clear(g)
		for _, i := range batch {
			wt := 1 + weight[i]
			if wt == 0 {
				continue
			}
			c.Model.Gradient(tmp, w, data.Row(int(i)), data.Y[i])
			floats.AddScaled(g, wt, tmp)
			total += wt
		}
		div := float64(len(batch))
		if rule == CodeRule {
			if total == 0 {
				continue
			}
			div = total
		}
		floats.Scale(1/div, g)
		if c.Clip > 0 {
			if nrm := floats.Norm(g, 2); nrm > c.Clip {
				floats.Scale(c.Clip/nrm, g)
			}
		}
		floats.AddScaled(w, -tr.Eta(t), g)
	}
	return w, nil
}

// Retrain replays Stage I from the same w0 and batch order with the removed rows dropped
// from every batch, under rule: the reference HF approximates (PaperRule) or the official
// code's (CodeRule). It is the "retraining" of the paper, not a fresh run on S \ U. visit,
// if not nil, sees the retrained iterate before every step (the audit measures Lemma 2's
// gradients along it).
func (tr *Trajectory) Retrain(ctx context.Context, data *multiclass.Data, removed []int, rule Rule, visit func(t int, w []float64)) ([]float64, error) {
	weight := map[int32]float64{}
	for _, i := range removed {
		if i < 0 || i >= data.Len() {
			return nil, fmt.Errorf("hf retrain: row %d is not in the data (%d rows)", i, data.Len())
		}
		weight[int32(i)] = -1
	}
	return tr.run(ctx, data, weight, rule, visit)
}

// Reweighted replays Stage I with row's term in every batch weighted 1 + omega (the divisor
// |B_t| kept): ω = 0 is learning, ω = −1 the paper's retraining without the row, and
// −d w_T/dω at ω = 0 is exactly HF's statistic a^{-row} (spec hf §2.1), the oracle its
// tests use.
func (tr *Trajectory) Reweighted(ctx context.Context, data *multiclass.Data, row int, omega float64) ([]float64, error) {
	return tr.run(ctx, data, map[int32]float64{int32(row): omega}, PaperRule, nil)
}

// batchOps evaluates a batch's mean Hessian–vector products at one checkpoint: with
// Softmax's fused Batch on the gathered rows (their probabilities computed once per step
// for every vector), else as the mean of per-example products.
type batchOps struct {
	m       multiclass.Model
	data    *multiclass.Data
	softmax *multiclass.Batch
	x       []float64 // gathered rows, BatchSize × p
	tmp     []float64
	// the point and batch of the last at
	w     []float64
	batch []int32
}

func newBatchOps(m multiclass.Model, data *multiclass.Data, size int) *batchOps {
	o := &batchOps{m: m, data: data, tmp: make([]float64, m.Dim())}
	if s, ok := m.(multiclass.Softmax); ok {
		o.softmax = s.NewBatch(size)
		o.x = make([]float64, size*s.P)
	}
	return o
}

// at fixes the checkpoint w and the batch that hvp applies the Hessian of.
func (o *batchOps) at(w []float64, batch []int32) {
	o.w, o.batch = w, batch
	if o.softmax != nil {
		p := o.m.Inputs()
		for k, i := range batch {
			copy(o.x[k*p:(k+1)*p], o.data.Row(int(i)))
		}
		o.softmax.Linearize(w, blas64.General{Rows: len(batch), Cols: p, Stride: p, Data: o.x[:len(batch)*p]})
	}
}

// hvp sets dst = (1/|B|) Σ_{i∈B} ∇²ℓ(w; z_i)·v at the point and batch of the last at.
func (o *batchOps) hvp(dst, v []float64) {
	if o.softmax != nil {
		o.softmax.HVPAt(dst, v)
		return
	}
	clear(dst)
	for _, i := range o.batch {
		o.m.HVP(o.tmp, o.w, o.data.Row(int(i)), o.data.Y[i], v)
		for j, h := range o.tmp {
			dst[j] += h
		}
	}
	for j := range dst {
		dst[j] /= float64(len(o.batch))
	}
}
