package hf

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/reference"
)

// ErrAlreadyDeleted is a deletion of a record deleted before: adding its statistic again
// would approximate giving it weight −1 (an anti-record), not deleting it.
var ErrAlreadyDeleted = errors.New("record already deleted")

// An Unlearner is Stage III online (spec hf §2.5): the noiseless state
// w̄_k = w_T + Σ_{j≤k} a^{-u_j} and the set of deleted records. Deleting is vector
// additions only; the statistics of deleted records are dropped, and a release adds fresh
// Gaussian noise sized for every deletion so far (one draw per release, as Algorithm 1
// describes; the official code's noise after every deletion compounds, which the paper
// does not account for).
type Unlearner struct {
	config   Config // Stage I's, for its model and its defaults
	w        []float64
	stats    *Stats
	deleted  map[int]bool
	repaired int // repairs run: after one, no certificate applies
}

// NewUnlearner starts from the learned model w_T with Stage II's statistics, which it
// takes over (deleting drops them).
func NewUnlearner(tr *Trajectory, stats *Stats) *Unlearner {
	return &Unlearner{config: tr.Config, w: slices.Clone(tr.Final), stats: stats, deleted: map[int]bool{}}
}

// Delete serves one request: every row in it is deleted, in order; a row named twice in
// the request counts once (spec hf I13: U is a set). A row deleted by an earlier request
// (ErrAlreadyDeleted) or without a statistic is an error, and then nothing of the request
// is applied.
func (u *Unlearner) Delete(rows ...int) error {
	seen := map[int]bool{}
	var unique []int
	for _, r := range rows {
		switch {
		case u.deleted[r]:
			return fmt.Errorf("hf delete: row %d: %w", r, ErrAlreadyDeleted)
		case seen[r]:
			continue
		}
		if !u.stats.Has(r) {
			return fmt.Errorf("hf delete: row %d has no statistic (Stage II did not compute it)", r)
		}
		seen[r] = true
		unique = append(unique, r)
	}
	for _, r := range unique {
		u.stats.addTo(u.w, r)
		u.stats.drop(r)
		u.deleted[r] = true
	}
	return nil
}

// Model is the noiseless state w̄ (a copy).
func (u *Unlearner) Model() []float64 { return slices.Clone(u.w) }

// Release is w̄ + N(0, σ²I), the published model, with σ sized by the caller for the
// number of deletions so far (dp.ClassicGaussianSigma or dp.AnalyticGaussianSigma of a
// bound on the approximation error).
func (u *Unlearner) Release(sigma float64, r *rand.Rand) []float64 {
	out := make([]float64, len(u.w))
	reference.FillNormal(out, sigma, r)
	for j, v := range u.w {
		out[j] += v
	}
	return out
}
