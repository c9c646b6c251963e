package sglu

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/internal/ars"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/ensemble"
)

// An Ensemble is k runs of Algorithm 1 on the same data and partition B that differ only in
// their randomness, advanced in lockstep: each step computes the k batch gradients in one
// pass over the batch's rows (ensemble.LogisticGradient), instead of k passes. Run t draws
// from its own stream exactly what a Model draws, in the same order (its initial point,
// then one noise key at the start of every Epochs call), and adds at step s of a call the
// Model's noise, √(2ησ²)·ars.FillWide(key, 0, s), so it is the Model of LearnOrdered with
// that stream up to rounding: the gradients' sums run in another order. A run's iterates
// are the same bits whatever the ensemble's size and the run's place in it (every
// per-run operation, the projection's norm too, runs in the same order on the run's own
// values), so trials batched any way agree.
//
// Only logistic regression without clipping is supported (the kernel's loss), with
// replacement removals (Replace; the slots keep their batches).
type Ensemble struct {
	params Params
	lambda float64
	n, d   int
	x, y   []float64 // rows in slot order, n × d
	ids    []int64
	slot   map[int64]int
	theta  []float64 // d × k: column t is run t
	grad   []float64 // d × k (float64 gradients only)
	col    []float64 // one run's iterate, for its initial point
	z      []float32 // k × d: row t is run t's standard normals of the step (scaled by the update)
	keys   []uint64  // run t's noise key of the current Epochs call
	norm2  []float64 // run t's squared norm after the step
	rs     []*rand.Rand
	epochs int
	// float32 gradients (LearnOrderedEnsemble32): the rows, the iterates as the kernel
	// reads them (always float32(theta): written with theta by setColumn, the step's
	// update and the projection), and its gradients
	x32, y32, theta32, grad32 []float32
}

// LearnOrderedEnsemble is LearnOrdered for len(rs) runs at once, run t drawing from rs[t].
func LearnOrderedEnsemble(ctx context.Context, p Params, loss reference.Loss, ds *reference.Dataset, rs []*rand.Rand) (*Ensemble, error) {
	return learnOrderedEnsemble(ctx, p, loss, ds, rs, false)
}

// LearnOrderedEnsemble32 is LearnOrderedEnsemble with the gradients in float32
// (ensemble.LogisticGradient32 on the rows and iterates rounded to float32); the iterates,
// the noise, the step and the projection stay in float64. It is for measuring what
// float32 changes in an audit's statistics, never for certificates or exact checks.
func LearnOrderedEnsemble32(ctx context.Context, p Params, loss reference.Loss, ds *reference.Dataset, rs []*rand.Rand) (*Ensemble, error) {
	return learnOrderedEnsemble(ctx, p, loss, ds, rs, true)
}

func learnOrderedEnsemble(ctx context.Context, p Params, loss reference.Loss, ds *reference.Dataset, rs []*rand.Rand, f32 bool) (*Ensemble, error) {
	lg, ok := loss.(reference.Logistic)
	if !ok || lg.Clip > 0 {
		return nil, fmt.Errorf("sglu ensemble: loss %s: only logistic regression without clipping runs in lockstep", loss.Name())
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("sglu ensemble: no runs")
	}
	if err := p.Validate(ds.Len()); err != nil {
		return nil, fmt.Errorf("sglu ensemble: %w", err)
	}
	if p.Removal != ReplaceRemoval {
		return nil, fmt.Errorf("sglu ensemble: only replacement removals run in lockstep")
	}
	n, d := ds.Dims()
	k := len(rs)
	e := &Ensemble{params: p, lambda: lg.Lambda, n: n, d: d, x: make([]float64, 0, n*d),
		y: slices.Clone(ds.Labels()), ids: ds.IDs(), slot: make(map[int64]int, n),
		theta: make([]float64, d*k), col: make([]float64, d),
		z: make([]float32, k*d), keys: make([]uint64, k), norm2: make([]float64, k), rs: rs}
	for i := range n { // row by row: the kernel wants stride d, whatever the matrix's
		e.x = append(e.x, ds.Features().RawRowView(i)...)
	}
	for i, id := range e.ids {
		e.slot[id] = i
	}
	if f32 {
		e.x32, e.y32 = toFloat32(e.x), toFloat32(e.y)
		e.theta32, e.grad32 = make([]float32, d*k), make([]float32, d*k)
	} else {
		e.grad = make([]float64, d*k)
	}
	for t, r := range rs {
		if err := p.initial(e.col, r); err != nil {
			return nil, fmt.Errorf("sglu ensemble: %w", err)
		}
		e.setColumn(t)
	}
	if err := e.Epochs(ctx, p.Epochs); err != nil {
		return nil, err
	}
	return e, nil
}

// Len is the number of runs.
func (e *Ensemble) Len() int { return len(e.rs) }

// Epochs runs K more epochs of every run: for each batch in order, the k gradients in one
// pass, then every run's noise, step and projection. It first draws each run's noise key
// of the call from its stream, rs[0] first, as Model.Epochs does (K = 0 too). It does not
// allocate.
func (e *Ensemble) Epochs(ctx context.Context, K int) error {
	e.drawKeys()
	if err := checkSteps(K, e.n/e.params.Batch); err != nil {
		return err
	}
	var s uint32
	for range K {
		if err := ctx.Err(); err != nil {
			return err
		}
		for j := range e.n / e.params.Batch {
			e.step(j, s)
			s++
		}
		e.epochs++
	}
	return nil
}

// drawKeys draws each run's noise key of an Epochs call from its stream, in run order.
func (e *Ensemble) drawKeys() {
	for t, r := range e.rs {
		e.keys[t] = r.Uint64()
	}
}

// step is one noisy projected step of every run on batch j, step s of the Epochs call.
// The noise is each run's float32 normals into its row of z (ars.FillWideRows32: all
// runs at once, FillWide's values unwidened, half the bytes); the update (ensemble.NoisyStep)
// is one pass over the d × k iterates, θ + (sd·z − η·g) with sd·z rounded once, as the
// Model computes it with FillScaledWide, accumulating each run's squared norm in its lane
// in coordinate order; the projection then scales the runs outside the ball by R/‖θ‖, the
// factor reference.ProjectBall applies. In float32 the update reads the float32 gradients
// and writes the iterates' float32 copy the next gradients read (ensemble.NoisyStep32),
// and the projection narrows the runs it scales again: no conversion pass of its own over
// the d × k gradients and iterates.
func (e *Ensemble) step(j int, s uint32) {
	p, k, b, d := e.params, len(e.rs), e.params.Batch, e.d
	sd := math.Sqrt(2*p.StepSize) * p.Sigma
	if e.x32 != nil {
		ensemble.LogisticGradient32(e.grad32, e.x32[j*b*d:(j+1)*b*d], e.y32[j*b:(j+1)*b], e.theta32, b, d, k, float32(e.lambda))
	} else {
		ensemble.LogisticGradient(e.grad, e.x[j*b*d:(j+1)*b*d], e.y[j*b:(j+1)*b], e.theta, b, d, k, e.lambda)
	}
	ars.FillWideRows32(e.z, d, e.keys, 0, s) // row t: run t's normals z; the update adds sd·z
	norm2 := e.norm2[:k]
	clear(norm2)
	if e.x32 != nil {
		ensemble.NoisyStep32(e.theta, e.theta32, e.z, sd, e.grad32, norm2, d, k, p.StepSize)
	} else {
		ensemble.NoisyStep(e.theta, e.z, sd, e.grad, norm2, d, k, p.StepSize)
	}
	if math.IsInf(p.Radius, 1) {
		return
	}
	for t, n2 := range norm2 {
		if nrm := math.Sqrt(n2); nrm > p.Radius {
			scale := p.Radius / nrm
			for i := range d {
				e.theta[i*k+t] *= scale
			}
			if e.theta32 != nil {
				for i := range d {
					e.theta32[i*k+t] = float32(e.theta[i*k+t])
				}
			}
		}
	}
}

// setColumn stores e.col as run t's iterate (and its float32 copy in a float32 ensemble).
func (e *Ensemble) setColumn(t int) {
	k := len(e.rs)
	for i, v := range e.col {
		e.theta[i*k+t] = v
		if e.theta32 != nil {
			e.theta32[i*k+t] = float32(v)
		}
	}
}

// Replace puts rec in the slot of the record id, for every run (the requests are the
// configuration's, not the run's).
func (e *Ensemble) Replace(id int64, rec reference.Record) error {
	i, ok := e.slot[id]
	switch {
	case !ok:
		return fmt.Errorf("sglu ensemble replace: record ID %d is not in the dataset: %w", id, reference.ErrUnknownID)
	case len(rec.X) != e.d:
		return fmt.Errorf("sglu ensemble replace: record %d has %d features, want %d", rec.ID, len(rec.X), e.d)
	}
	if _, dup := e.slot[rec.ID]; dup && rec.ID != id {
		return fmt.Errorf("sglu ensemble replace: record ID %d is already in the dataset", rec.ID)
	}
	copy(e.x[i*e.d:(i+1)*e.d], rec.X)
	e.y[i], e.ids[i] = rec.Y, rec.ID
	if e.x32 != nil {
		for j, v := range rec.X {
			e.x32[i*e.d+j] = float32(v)
		}
		e.y32[i] = float32(rec.Y)
	}
	delete(e.slot, id)
	e.slot[rec.ID] = i
	return nil
}

// Published returns a copy of run t's iterate.
func (e *Ensemble) Published(t int) []float64 {
	k := len(e.rs)
	out := make([]float64, e.d)
	for i := range out {
		out[i] = e.theta[i*k+t]
	}
	return out
}

// EpochsRun is the number of epochs every run has run.
func (e *Ensemble) EpochsRun() int { return e.epochs }

func toFloat32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}
