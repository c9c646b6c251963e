package hf

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
)

// RepairConfig is Algorithm 3's fine-tuning phase (spec hf §2.6): plain mini-batch SGD on
// the records not deleted, at step η_τ = Eta·Decay^τ. The paper leaves the phase's steps
// unspecified; DefaultRepair continues Stage I's schedule.
type RepairConfig struct {
	Epochs, BatchSize int
	Eta, Decay        float64
	Reshuffle         bool
}

// DefaultRepair is one epoch at Stage I's batch size, continuing its step sizes where
// Stage I stopped (η q^{T+τ}).
func DefaultRepair(tr *Trajectory) RepairConfig {
	c := tr.Config
	return RepairConfig{Epochs: 1, BatchSize: c.BatchSize, Eta: tr.Eta(tr.Schedule.Steps()), Decay: c.Decay, Reshuffle: c.Reshuffle}
}

// Repair is Algorithm 3, the unlearning–repairing strategy: a heuristic the paper gives no
// certificate for, and after which this Unlearner claims none (Repaired). From start (the
// noiseless state when nil; Algorithm 3 fine-tunes the released model) it fine-tunes on
// the records not yet deleted, drawing the batch order from r, and makes the result the
// new state. Every statistic still held is carried through the repair phase's maps and
// gains the phase's own contributions — the Stage II recursion continued from its old
// value, a_new = Φ_rep(T_r, 0)·a_old + Σ_{τ: r∈B_τ} (η_τ/|B_τ|) Φ_rep(T_r, τ+1)∇ℓ(w_τ; r),
// the reading the spec's FLAG on line 16 asks for. The old statistics were linearised
// around a trajectory that still held the deleted records; Algorithm 3 reuses them
// anyway, and so does this. It returns the repair phase's trajectory.
func (u *Unlearner) Repair(ctx context.Context, data *multiclass.Data, start []float64, rc RepairConfig, r *rand.Rand) (*Trajectory, error) {
	var rows []int32
	for i := range data.Len() {
		if !u.deleted[i] {
			rows = append(rows, int32(i))
		}
	}
	c := Config{Model: u.config.Model, Epochs: rc.Epochs, BatchSize: rc.BatchSize, Eta: rc.Eta, Decay: rc.Decay, Reshuffle: rc.Reshuffle}
	if len(rows) == 0 {
		return nil, fmt.Errorf("hf repair: every record is deleted; nothing to fine-tune on")
	}
	if err := c.Check(len(rows)); err != nil {
		return nil, fmt.Errorf("hf repair: %w", err)
	}
	if start == nil {
		start = u.w
	}
	if len(start) != c.Model.Dim() {
		return nil, fmt.Errorf("hf repair: the start has %d entries, the model %d parameters", len(start), c.Model.Dim())
	}
	tr := &Trajectory{Config: c, Schedule: scheduleOver(rows, c, r), W0: slices.Clone(start)}
	final, err := tr.run(ctx, data, nil, PaperRule, func(_ int, w []float64) {
		tr.Checkpoints = append(tr.Checkpoints, slices.Clone(w))
	})
	if err != nil {
		return nil, fmt.Errorf("hf repair: %w", err)
	}
	tr.Final = final

	// continue every held statistic; the store keeps its precision
	s := u.stats
	compact := s.Float32()
	held := make([]int, 0, s.Len())
	for row := range s.index {
		held = append(held, row)
	}
	slices.Sort(held)
	feeds := make(map[int32]int, len(held))
	vecs := make([][]float64, len(held))
	for k, row := range held {
		a, _ := s.Of(row)
		vecs[k], feeds[int32(row)] = slices.Clone(a), k
	}
	if vecs, err = tr.propagate(ctx, data, feeds, vecs, s.Order); err != nil {
		return nil, fmt.Errorf("hf repair: %w", err)
	}
	next := &Stats{Order: s.Order, index: feeds2index(held), vecs: vecs}
	if compact {
		next.StoreFloat32()
	}
	u.stats, u.w = next, slices.Clone(final)
	u.repaired++
	return tr, nil
}

func feeds2index(rows []int) map[int]int {
	idx := make(map[int]int, len(rows))
	for k, r := range rows {
		idx[r] = k
	}
	return idx
}

// Repaired is the number of repairs run. After one, the state is Algorithm 3's heuristic:
// no certificate of the paper covers it.
func (u *Unlearner) Repaired() int { return u.repaired }
