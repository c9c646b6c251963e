package hf

import (
	"context"
	"fmt"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/floats"
	"slices"
)

// Order is where a step's own gradient enters Stage II's recursion (spec hf §2.2).
type Order int

const (
	// PaperOrder applies the step's map first, a_{t+1} = A_t a_t + c_t(u)(η_t/|B_t|)∇ℓ(w_t; u),
	// so a gradient meets only the later maps: the first-order derivative exactly.
	PaperOrder Order = iota
	// CodeOrder adds the gradient first, a_{t+1} = A_t(a_t + c_t(u)(η_t/|B_t|)∇ℓ(w_t; u)), as
	// the official code does: O(η²) off, which breaks the exactness results.
	CodeOrder
)

func (o Order) String() string {
	if o == CodeOrder {
		return "code order (gradient added before the step's map)"
	}
	return "paper order (step's map, then its gradient)"
}

// Stats are Stage II's per-record statistics a^{-u}: the first-order change of w_T when u
// is dropped from every batch it was in, under the paper's retraining rule.
type Stats struct {
	Order  Order
	index  map[int]int
	vecs   [][]float64
	vecs32 [][]float32 // the store after StoreFloat32; vecs is then nil
}

// Of returns a^{-row} and whether it was computed: the stored vector itself in float64
// storage, a float64 copy after StoreFloat32.
func (s *Stats) Of(row int) ([]float64, bool) {
	k, ok := s.index[row]
	if !ok {
		return nil, false
	}
	if s.vecs32 != nil {
		out := make([]float64, len(s.vecs32[k]))
		for j, v := range s.vecs32[k] {
			out[j] = float64(v)
		}
		return out, true
	}
	return s.vecs[k], true
}

// Has reports whether a^{-row} is held.
func (s *Stats) Has(row int) bool { _, ok := s.index[row]; return ok }

// addTo adds a^{-row} to dst, in float64 whatever the storage.
func (s *Stats) addTo(dst []float64, row int) {
	k := s.index[row]
	if s.vecs32 != nil {
		for j, v := range s.vecs32[k] {
			dst[j] += float64(v)
		}
		return
	}
	floats.Add(dst, s.vecs[k])
}

// Len is the number of statistics held (deleted records' are dropped).
func (s *Stats) Len() int { return len(s.index) }

// Bytes is the store's size: Len·d values of 8 bytes, or of 4 after StoreFloat32.
func (s *Stats) Bytes() int {
	size, d := 8, 0
	for _, v := range s.vecs {
		d = max(d, len(v))
	}
	if s.vecs32 != nil {
		size = 4
		for _, v := range s.vecs32 {
			d = max(d, len(v))
		}
	}
	return size * d * s.Len()
}

// StoreFloat32 halves the store (the n × d statistics dominate HF's memory, spec hf §2.8)
// by rounding every statistic to float32 once, after Stage II has run in float64. Each
// entry is then within a relative 2⁻²⁴ of the float64 value (round to nearest; an
// absolute 2⁻¹⁴⁹ below float32's normal range), and a deletion's sum is accumulated in
// float64, so the noiseless model moves by at most 2⁻²⁴·Σ|a^{-u}_j| per coordinate j.
func (s *Stats) StoreFloat32() {
	if s.vecs32 != nil {
		return
	}
	s.vecs32 = make([][]float32, len(s.vecs))
	for k, v := range s.vecs {
		if v == nil {
			continue
		}
		s.vecs32[k] = make([]float32, len(v))
		for j, x := range v {
			s.vecs32[k][j] = float32(x)
		}
	}
	s.vecs = nil
}

// Float32 reports whether the store holds float32 values.
func (s *Stats) Float32() bool { return s.vecs32 != nil }

// Statistics runs Stage II for rows (every row when nil): the affine recursion
// a ← A_t a (+ the step's gradient of u when u ∈ B_t), A_t = I − η_t H_t with H_t the batch
// Hessian at the checkpoint w_t over the full batch, by Hessian–vector products only. All
// statistics advance through a step together, at the checkpoint they share; a statistic
// starts at the first step its record is in (before it, it is 0 and A_t·0 = 0). It costs
// Σ_t (records started by t) batch products and holds one d-vector per record.
func (tr *Trajectory) Statistics(ctx context.Context, data *multiclass.Data, rows []int, order Order) (*Stats, error) {
	n := data.Len()
	if rows == nil {
		rows = make([]int, n)
		for i := range rows {
			rows[i] = i
		}
	}
	s := &Stats{Order: order, index: map[int]int{}}
	feeds := map[int32]int{}
	for _, r := range rows {
		if r < 0 || r >= n {
			return nil, fmt.Errorf("hf statistics: row %d is not in the data (%d rows)", r, n)
		}
		if _, dup := s.index[r]; dup {
			return nil, fmt.Errorf("hf statistics: row %d named twice", r)
		}
		s.index[r], feeds[int32(r)] = len(feeds), len(feeds)
	}
	var err error
	s.vecs, err = tr.propagate(ctx, data, feeds, make([][]float64, len(rows)), order)
	return s, err
}

// SetStatistic runs the recursion once with the summed source of every row of U: a^{-U},
// which Theorem 1 says equals Σ_{u∈U} a^{-u} (A_t does not depend on u).
func (tr *Trajectory) SetStatistic(ctx context.Context, data *multiclass.Data, rows []int, order Order) ([]float64, error) {
	feeds := map[int32]int{}
	for _, r := range rows {
		if r < 0 || r >= data.Len() {
			return nil, fmt.Errorf("hf set statistic: row %d is not in the data (%d rows)", r, data.Len())
		}
		feeds[int32(r)] = 0
	}
	vecs, err := tr.propagate(ctx, data, feeds, make([][]float64, 1), order)
	if err != nil {
		return nil, err
	}
	return vecs[0], nil
}

// propagate runs Stage II's recursion for the vectors vecs (updated in place and
// returned), record row's gradient feeding vector feeds[row], in the given order of map
// and gradient. A nil vector is 0: it is allocated at the first step one of its records is
// in; one never fed is 0 at the end.
func (tr *Trajectory) propagate(ctx context.Context, data *multiclass.Data, feeds map[int32]int, vecs [][]float64, order Order) ([][]float64, error) {
	c := tr.Config
	if c.Clip > 0 && c.ClipMode == ClipOff {
		return nil, fmt.Errorf("hf statistics: the trajectory clipped its gradients (clip %v) and ClipMode is off; HF's recursion is the derivative of unclipped SGD, so learn with clip 0 or choose ClipExactJacobian (or ClipCodeCompat, the official code's)", c.Clip)
	}
	if len(tr.Checkpoints) != tr.Schedule.Steps() {
		return nil, fmt.Errorf("hf: the trajectory holds %d checkpoints for %d steps", len(tr.Checkpoints), tr.Schedule.Steps())
	}
	d := c.Model.Dim()
	ops := newBatchOps(c.Model, data, c.BatchSize)
	hv, g, gt, tmp := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
	// jac applies the step's clipping Jacobian J_t = s(I − ĝĝᵀ) in place (s = 0: identity)
	var s float64
	jac := func(v []float64) {
		if s == 0 {
			return
		}
		floats.AddScaled(v, -floats.Dot(gt, v), gt)
		floats.Scale(s, v)
	}
	addSources := func(w []float64, batch []int32, eta float64) { // + (η_t/|B_t|)·(J_t or clip)∇ℓ(w_t; u) for each fed u ∈ B_t
		for _, i := range batch {
			k, ok := feeds[i]
			if !ok {
				continue
			}
			if vecs[k] == nil {
				vecs[k] = make([]float64, d)
			}
			c.Model.Gradient(g, w, data.Row(int(i)), data.Y[i])
			switch c.ClipMode {
			case ClipExactJacobian:
				jac(g)
			case ClipCodeCompat:
				if nrm := floats.Norm(g, 2); c.Clip > 0 && nrm > c.Clip {
					floats.Scale(c.Clip/nrm, g)
				}
			}
			floats.AddScaled(vecs[k], eta/float64(len(batch)), g)
		}
	}
	for t := range tr.Schedule.Steps() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		w, batch, eta := tr.Checkpoints[t], tr.Schedule.Batch(t), tr.Eta(t)
		s = 0
		if c.Clip > 0 { // the step's batch gradient, as Stage I clipped it
			clear(gt)
			for _, i := range batch {
				c.Model.Gradient(tmp, w, data.Row(int(i)), data.Y[i])
				floats.Add(gt, tmp)
			}
			floats.Scale(1/float64(len(batch)), gt)
			if nrm := floats.Norm(gt, 2); nrm > c.Clip {
				s = c.Clip / nrm
				floats.Scale(1/nrm, gt) // ĝ
			}
		}
		if order == CodeOrder {
			addSources(w, batch, eta)
		}
		if slices.ContainsFunc(vecs, func(a []float64) bool { return a != nil }) {
			ops.at(w, batch)
		}
		for _, a := range vecs { // a ← A_t a = a − η_t J_t H_t a
			if a != nil {
				ops.hvp(hv, a)
				jac(hv)
				floats.AddScaled(a, -eta, hv)
			}
		}
		if order == PaperOrder {
			addSources(w, batch, eta)
		}
	}
	for k, a := range vecs {
		if a == nil {
			vecs[k] = make([]float64, d)
		}
	}
	return vecs, nil
}

// drop forgets a statistic.
func (s *Stats) drop(row int) {
	if k, ok := s.index[row]; ok {
		if s.vecs32 != nil {
			s.vecs32[k] = nil
		} else {
			s.vecs[k] = nil
		}
		delete(s.index, row)
	}
}
