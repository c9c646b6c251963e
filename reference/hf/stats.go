package hf

import (
	"context"
	"fmt"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
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
	Order Order
	index map[int]int
	vecs  [][]float64
}

// Of returns a^{-row} (not a copy) and whether it was computed.
func (s *Stats) Of(row int) ([]float64, bool) {
	k, ok := s.index[row]
	if !ok {
		return nil, false
	}
	return s.vecs[k], true
}

// Len is the number of statistics held.
func (s *Stats) Len() int { return len(s.vecs) }

// Statistics runs Stage II for rows (every row when nil): the affine recursion
// a ← A_t a (+ the step's gradient of u when u ∈ B_t), A_t = I − η_t H_t with H_t the batch
// Hessian at the checkpoint w_t over the full batch, by Hessian–vector products only. All
// statistics advance through a step together, at the checkpoint they share; a statistic
// starts at the first step its record is in (before it, it is 0 and A_t·0 = 0). It costs
// Σ_t (records started by t) batch products and holds one d-vector per record.
func (tr *Trajectory) Statistics(ctx context.Context, data *multiclass.Data, rows []int, order Order) (*Stats, error) {
	if tr.Config.Clip > 0 {
		return nil, fmt.Errorf("hf statistics: the trajectory clipped its gradients (clip %v); HF's recursion is the derivative of unclipped SGD (the spec's ClipMode Off), so learn with clip 0", tr.Config.Clip)
	}
	n := data.Len()
	if rows == nil {
		rows = make([]int, n)
		for i := range rows {
			rows[i] = i
		}
	}
	s := &Stats{Order: order, index: map[int]int{}}
	for _, r := range rows {
		if r < 0 || r >= n {
			return nil, fmt.Errorf("hf statistics: row %d is not in the data (%d rows)", r, n)
		}
		if _, dup := s.index[r]; dup {
			return nil, fmt.Errorf("hf statistics: row %d named twice", r)
		}
		s.index[r] = len(s.vecs)
		s.vecs = append(s.vecs, nil) // allocated when the record starts
	}
	err := tr.recurse(ctx, data, func(t int, batch []int32, step func(a []float64), source func(a []float64, row int, scale float64)) {
		eta := tr.Eta(t) / float64(len(batch))
		if order == CodeOrder {
			for _, i := range batch {
				if k, ok := s.index[int(i)]; ok {
					if s.vecs[k] == nil {
						s.vecs[k] = make([]float64, tr.Config.Model.Dim())
					}
					source(s.vecs[k], int(i), eta)
				}
			}
		}
		for _, a := range s.vecs {
			if a != nil {
				step(a)
			}
		}
		if order == PaperOrder {
			for _, i := range batch {
				if k, ok := s.index[int(i)]; ok {
					if s.vecs[k] == nil {
						s.vecs[k] = make([]float64, tr.Config.Model.Dim())
					}
					source(s.vecs[k], int(i), eta)
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	for k, a := range s.vecs { // a record in no batch (impossible for permutations) has a = 0
		if a == nil {
			s.vecs[k] = make([]float64, tr.Config.Model.Dim())
		}
	}
	return s, nil
}

// SetStatistic runs the recursion once with the summed source of every row of U: a^{-U},
// which Theorem 1 says equals Σ_{u∈U} a^{-u} (A_t does not depend on u).
func (tr *Trajectory) SetStatistic(ctx context.Context, data *multiclass.Data, rows []int, order Order) ([]float64, error) {
	in := map[int]bool{}
	for _, r := range rows {
		if r < 0 || r >= data.Len() {
			return nil, fmt.Errorf("hf set statistic: row %d is not in the data (%d rows)", r, data.Len())
		}
		in[r] = true
	}
	a := make([]float64, tr.Config.Model.Dim())
	err := tr.recurse(ctx, data, func(t int, batch []int32, step func(a []float64), source func(a []float64, row int, scale float64)) {
		eta := tr.Eta(t) / float64(len(batch))
		add := func() {
			for _, i := range batch {
				if in[int(i)] {
					source(a, int(i), eta)
				}
			}
		}
		if order == CodeOrder {
			add()
		}
		step(a)
		if order == PaperOrder {
			add()
		}
	})
	return a, err
}

// recurse walks the trajectory's steps, handing visit the step's batch, a function that
// applies A_t = I − η_t H_t in place and one that adds scale·∇ℓ(w_t; row) in place.
func (tr *Trajectory) recurse(ctx context.Context, data *multiclass.Data, visit func(t int, batch []int32, step func([]float64), source func([]float64, int, float64))) error {
	c := tr.Config
	d := c.Model.Dim()
	if len(tr.Checkpoints) != tr.Schedule.Steps() {
		return fmt.Errorf("hf: the trajectory holds %d checkpoints for %d steps", len(tr.Checkpoints), tr.Schedule.Steps())
	}
	ops := newBatchOps(c.Model, data, c.BatchSize)
	hv, g := make([]float64, d), make([]float64, d)
	for t := range tr.Schedule.Steps() {
		if err := ctx.Err(); err != nil {
			return err
		}
		w, batch, eta := tr.Checkpoints[t], tr.Schedule.Batch(t), tr.Eta(t)
		visit(t, batch,
			func(a []float64) {
				ops.hvp(hv, w, batch, a)
				for j := range a {
					a[j] -= eta * hv[j]
				}
			},
			func(a []float64, row int, scale float64) {
				c.Model.Gradient(g, w, data.Row(row), data.Y[row])
				for j := range a {
					a[j] += scale * g[j]
				}
			})
	}
	return nil
}

// Rows lists the rows that have statistics, in increasing order.
func (s *Stats) Rows() []int {
	out := make([]int, 0, len(s.index))
	for r := range s.index {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}
