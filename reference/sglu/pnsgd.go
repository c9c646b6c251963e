package sglu

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/internal/ars"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// Init is the initial law ν0 of learning.
type Init int

const (
	// GaussianInit is N(0, (2σ²/m)·I), the paper's and the official code's choice. It is
	// not supported on C_R as Theorem 3.2 assumes; harmless under the convergent
	// assumption (spec sglu §2.2 FLAG).
	GaussianInit Init = iota
	// ZeroInit starts at θ = 0 ∈ C_R, which Theorem 3.2's hypothesis allows.
	ZeroInit
	// PointInit starts at Params.Start, which must lie in C_R: a point mass, which the
	// hypothesis also allows (the coupled checks of package props start runs where they
	// need them).
	PointInit
)

// Removal says how a removal request changes the data.
type Removal int

const (
	// ReplaceRemoval replaces the record by a random one in the same batch slot: features
	// N(0, I) scaled to the removed row's norm, a random ±1 label. This is the paper's
	// adjacency (§5.1) and the one its theorems cover.
	ReplaceRemoval Removal = iota
	// DeleteRemoval drops the record; its batch then averages over one row fewer. A
	// documented variant outside the theorems: the dataset size changes.
	DeleteRemoval
)

// Params configure PNSGD (Algorithm 1). The Problem's constants are those the bounds
// use; the loss passed to Learn must satisfy them (the audit checks it).
type Params struct {
	Problem
	Sigma   float64 // σ: each step adds √(2ησ²)·N(0, I)
	Epochs  int     // T, the learning epochs
	Init    Init
	Start   []float64 // the initial point under PointInit
	Removal Removal
}

// Validate checks the parameters against a dataset of n records.
func (p Params) Validate(n int) error {
	if err := p.Problem.Validate(); err != nil {
		return err
	}
	switch {
	case p.N != n:
		return fmt.Errorf("n: the parameters say n = %d, the data hold %d", p.N, n)
	case !(p.Sigma > 0) || math.IsInf(p.Sigma, 0):
		return fmt.Errorf("sigma: σ = %v; want 0 < σ < ∞", p.Sigma)
	case p.Epochs < 0:
		return fmt.Errorf("epochs: T = %d; want T ≥ 0", p.Epochs)
	case p.Init == GaussianInit && !(p.StrongConvexity > 0):
		return fmt.Errorf("init: the Gaussian initial law N(0, 2σ²/m) needs m > 0")
	case p.Init == PointInit:
		for _, v := range p.Start {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("start: a coordinate is %v; want finite values", v)
			}
		}
		if nrm := reference.Norm(p.Start); nrm > p.Radius*(1+1e-12) {
			return fmt.Errorf("start: ‖θ₀‖ = %v lies outside the ball of radius R = %v", nrm, p.Radius)
		}
	}
	return nil
}

// Model is a PNSGD learner: the data arranged in its fixed ordered partition (batch j
// holds slots j·b … j·b+b−1), and the current iterate, which is also what it publishes.
type Model struct {
	params  Params
	loss    reference.Loss
	x       *mat.Dense // slot-ordered features
	y       []float64
	ids     []int64
	slot    map[int64]int
	size    []int // rows in use per batch (b, unless DeleteRemoval dropped some)
	batches []*batchObjective
	theta   []float64
	grad    []float64
	noise   []float64
	epochs  int
	grads   int64
	nextID  int64
}

// Learn draws the ordered partition B (a uniform permutation of the records cut into n/b
// batches), draws θ from the initial law, and runs T epochs of projected noisy SGD,
// sweeping the batches in the same order every epoch. All randomness comes from r, drawn
// in the order the package doc lists: the permutation, θ₀, then the epochs' noise key.
func Learn(ctx context.Context, p Params, loss reference.Loss, ds *reference.Dataset, r *rand.Rand) (*Model, error) {
	perm := r.Perm(ds.Len())
	ids := make([]int64, len(perm))
	for k, row := range perm {
		ids[k] = ds.ID(row)
	}
	ordered, err := ds.Subset(ids)
	if err != nil {
		return nil, err
	}
	return LearnOrdered(ctx, p, loss, ordered, r)
}

// LearnOrdered is Learn with the partition given: the rows of ds, in order, are the
// slots. Retraining "with the same B" uses it on the updated data in the same order.
func LearnOrdered(ctx context.Context, p Params, loss reference.Loss, ds *reference.Dataset, r *rand.Rand) (*Model, error) {
	if err := p.Validate(ds.Len()); err != nil {
		return nil, fmt.Errorf("sglu learn: %w", err)
	}
	n, d := ds.Dims()
	m := &Model{params: p, loss: loss, x: mat.DenseCopyOf(ds.Features()), y: slices.Clone(ds.Labels()), ids: ds.IDs(),
		slot: make(map[int64]int, n), theta: make([]float64, d), grad: make([]float64, d), noise: make([]float64, d)}
	for k, id := range m.ids {
		m.slot[id] = k
		m.nextID = max(m.nextID, id+1)
	}
	b := p.Batch
	m.size = make([]int, n/b)
	m.batches = make([]*batchObjective, n/b)
	for j := range m.batches {
		m.size[j] = b
		if err := m.rebuild(j); err != nil {
			return nil, fmt.Errorf("sglu learn: %w", err)
		}
	}
	if err := p.initial(m.theta, r); err != nil {
		return nil, fmt.Errorf("sglu learn: %w", err)
	}
	if err := m.Epochs(ctx, p.Epochs, r); err != nil {
		return nil, err
	}
	return m, nil
}

// initial draws θ₀ from the initial law into theta (zeroed under ZeroInit), from r.
func (p Params) initial(theta []float64, r *rand.Rand) error {
	switch p.Init {
	case GaussianInit:
		reference.FillNormal(theta, math.Sqrt(2/p.StrongConvexity)*p.Sigma, r)
	case PointInit:
		if len(p.Start) != len(theta) {
			return fmt.Errorf("start: %d coordinates for %d features", len(p.Start), len(theta))
		}
		copy(theta, p.Start)
	default:
		clear(theta)
	}
	return nil
}

// rebuild binds batch j's objective to its rows (after a change to them).
func (m *Model) rebuild(j int) error {
	lo := j * m.params.Batch
	hi := lo + m.size[j]
	view := m.x.Slice(lo, hi, 0, m.x.RawMatrix().Cols).(*mat.Dense)
	ds, err := reference.NewDataset(m.ids[lo:hi:hi], view, m.y[lo:hi:hi])
	if err != nil {
		return err
	}
	obj := m.loss.Objective(ds)
	// An epoch sweeps every batch once, so each batch comes from memory whenever the
	// whole matrix does, however small the batch.
	r := m.x.RawMatrix()
	obj.SetStreaming(reference.StreamsFromMemory(r.Rows, r.Cols))
	m.batches[j] = newBatchObjective(obj, m.loss, r, lo, hi)
	return nil
}

// Epochs runs K more epochs of Algorithm 1 on the current data: for each batch in order,
// θ ← Π_R(θ − η·∇f_B(θ) + √(2ησ²)·W). It draws one value from r, the call's noise key,
// first and always (K = 0 too); step s of the call (s = 0 … K·n/b − 1, every batch step
// counted) adds √(2ησ²) times ars.FillWide(key, 0, s) (the stream NoiseStream). It does
// not allocate.
func (m *Model) Epochs(ctx context.Context, K int, r *rand.Rand) error {
	key := r.Uint64()
	if err := checkSteps(K, len(m.batches)); err != nil {
		return err
	}
	var s uint32
	for range K {
		if err := ctx.Err(); err != nil {
			return err
		}
		for j := range m.batches {
			m.stepBatch(j, key, s)
			s++
		}
		m.epochs++
	}
	return nil
}

// checkSteps refuses a call of more steps than a key's streams address (2³²): step
// s + 2³² would reuse step s's noise.
func checkSteps(K, perEpoch int) error {
	if K > 0 && uint64(K)*uint64(perEpoch) > math.MaxUint32+1 {
		return fmt.Errorf("sglu epochs: K = %d epochs of %d steps exceed the %d steps one noise key addresses; run them in several calls", K, perEpoch, uint64(math.MaxUint32)+1)
	}
	return nil
}

// stepBatch is one noisy projected step on batch j, step s of the Epochs call whose noise
// key is key.
func (m *Model) stepBatch(j int, key uint64, s uint32) {
	p := m.params
	m.batches[j].Gradient(m.grad, m.theta)
	sd := math.Sqrt(2*p.StepSize) * p.Sigma
	ars.FillScaledWide(m.noise, sd, key, 0, s) // sd·z, rounded once
	for i := range m.theta {
		m.theta[i] += m.noise[i] - float64(p.StepSize*m.grad[i]) // η·g rounded: no build fuses it
	}
	if !math.IsInf(p.Radius, 1) {
		reference.ProjectBall(m.theta, p.Radius)
	}
	m.grads += int64(m.size[j])
}

// Replace puts rec in the slot of the record id (Algorithm 1's unlearning request: the
// index keeps its batch slot). rec.ID must be new.
func (m *Model) Replace(id int64, rec reference.Record) error {
	k, ok := m.slot[id]
	switch {
	case !ok:
		return fmt.Errorf("sglu replace: record ID %d is not in the dataset: %w", id, reference.ErrUnknownID)
	case len(rec.X) != m.x.RawMatrix().Cols:
		return fmt.Errorf("sglu replace: record %d has %d features, want %d", rec.ID, len(rec.X), m.x.RawMatrix().Cols)
	}
	if _, dup := m.slot[rec.ID]; dup && rec.ID != id {
		return fmt.Errorf("sglu replace: record ID %d is already in the dataset", rec.ID)
	}
	for _, v := range append(slices.Clone(rec.X), rec.Y) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("sglu replace: record %d has a non-finite value", rec.ID)
		}
	}
	m.x.SetRow(k, rec.X)
	m.y[k], m.ids[k] = rec.Y, rec.ID
	delete(m.slot, id)
	m.slot[rec.ID] = k
	m.nextID = max(m.nextID, rec.ID+1)
	return m.rebuild(k / m.params.Batch)
}

// Remove serves a removal request by the model's Removal mode and returns the record
// that took the slot (zero Record under DeleteRemoval). The random replacement comes
// from r.
func (m *Model) Remove(id int64, r *rand.Rand) (reference.Record, error) {
	k, ok := m.slot[id]
	if !ok {
		return reference.Record{}, fmt.Errorf("sglu remove: record ID %d is not in the dataset: %w", id, reference.ErrUnknownID)
	}
	if m.params.Removal == DeleteRemoval {
		j := k / m.params.Batch
		if m.size[j] == 1 {
			return reference.Record{}, fmt.Errorf("sglu remove: record %d is the last of its batch", id)
		}
		last := j*m.params.Batch + m.size[j] - 1
		if k != last {
			m.x.SetRow(k, m.x.RawRowView(last))
			m.y[k], m.ids[k] = m.y[last], m.ids[last]
			m.slot[m.ids[k]] = k
		}
		delete(m.slot, id)
		m.size[j]--
		return reference.Record{}, m.rebuild(j)
	}
	rec := RandomReplacement(m.nextID, m.x.RawRowView(k), r)
	return rec, m.Replace(id, rec)
}

// RandomReplacement is the paper's replacement for a removed row (§5.1): features
// N(0, I) rescaled to the removed row's norm (the code re-normalises to unit norm), and a
// uniformly random ±1 label.
func RandomReplacement(id int64, removed []float64, r *rand.Rand) reference.Record {
	x := make([]float64, len(removed))
	reference.FillNormal(x, 1, r)
	if n := reference.Norm(x); n > 0 {
		s := reference.Norm(removed) / n
		for i := range x {
			x[i] *= s
		}
	}
	y := 1.0
	if r.IntN(2) == 0 {
		y = -1
	}
	return reference.Record{ID: id, X: x, Y: y}
}

// Unlearn serves one removal and runs K epochs on the updated data from the published
// model (Algorithm 1's unlearning): from r, the replacement (Remove) and then the epochs'
// noise key.
func (m *Model) Unlearn(ctx context.Context, id int64, K int, r *rand.Rand) (reference.Record, error) {
	rec, err := m.Remove(id, r)
	if err != nil {
		return rec, err
	}
	return rec, m.Epochs(ctx, K, r)
}

// BatchOf is the batch j of a record (Lemma 3.5's j0).
func (m *Model) BatchOf(id int64) (int, bool) {
	k, ok := m.slot[id]
	return k / m.params.Batch, ok
}

// Published returns a copy of the current iterate, which PNSGD publishes as is.
func (m *Model) Published() []float64 { return slices.Clone(m.theta) }

// Release is the published model (PNSGD keeps no other state).
func (m *Model) Release() reference.Release { return reference.Release{Published: m.Published()} }

// Ordered returns the current records in slot order: the partition B applied to the data.
func (m *Model) Ordered() *reference.Dataset {
	var ids []int64
	var rows []float64
	var y []float64
	for j, sz := range m.size {
		for k := j * m.params.Batch; k < j*m.params.Batch+sz; k++ {
			ids = append(ids, m.ids[k])
			rows = append(rows, m.x.RawRowView(k)...)
			y = append(y, m.y[k])
		}
	}
	ds, _ := reference.NewDataset(ids, mat.NewDense(len(ids), m.x.RawMatrix().Cols, rows), y)
	return ds
}

// GradientEvaluations counts per-example gradients: n per epoch.
func (m *Model) GradientEvaluations() int64 { return m.grads }

// EpochsRun is the number of epochs run so far (learning and unlearning).
func (m *Model) EpochsRun() int { return m.epochs }

// SetSigma changes the noise of the epochs that follow. The bounds assume one σ
// throughout, so a model whose σ drops after learning is outside them: this models such
// a deployment for an audit to catch.
func (m *Model) SetSigma(sigma float64) error {
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return fmt.Errorf("sglu: sigma: σ = %v; want 0 < σ < ∞", sigma)
	}
	m.params.Sigma = sigma
	return nil
}

// Params returns the model's parameters.
func (m *Model) Params() Params { return m.params }
