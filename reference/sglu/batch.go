package sglu

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/unlearnaudit/unlearnaudit/reference"
)

// BatchCount is how many of the records replaced in one request sit in batch J.
type BatchCount struct{ J, Count int }

// PlacementWeight is Σ_g c^{n/b−j_g−1}·S_g over the batches of a placement: how many
// records' worth of W∞ the placement adds per epoch, each discounted by the steps between
// its batch and the epoch's end (one record in the last batch weighs 1). A batch may hold
// at most b of them.
func (p Problem) PlacementWeight(placement []BatchCount) (float64, error) {
	per := p.StepsPerEpoch()
	perBatch := map[int]int{}
	var w float64
	for _, bc := range placement {
		perBatch[bc.J] += bc.Count
		if bc.J < 0 || bc.J >= per || bc.Count < 1 || perBatch[bc.J] > p.Batch {
			return 0, fmt.Errorf("batch placement %+v: want 0 ≤ J < %d and 1 ≤ records per batch ≤ b = %d", bc, per, p.Batch)
		}
		w += PowC(p.StepSize, p.StrongConvexity, float64(per-bc.J-1)) * float64(bc.Count)
	}
	return w, nil
}

// WorstPlacement is the placement of S records that weighs most: the last batches filled
// first, Σ_{g<⌈S/b⌉} c^g·min(b, S − g·b).
func (p Problem) WorstPlacement(S int) []BatchCount {
	per := p.StepsPerEpoch()
	var placement []BatchCount
	for g := 0; g*p.Batch < S && g < per; g++ {
		placement = append(placement, BatchCount{J: per - 1 - g, Count: min(p.Batch, S-g*p.Batch)})
	}
	return placement
}

// ZBatch is Corollary 3.12's W∞ bound between the stationary laws of datasets that
// differ in several records, placed in batches as given:
// min(2ηM/b·PlacementWeight/(1 − c^{n/b}), 2R). The prefactor is the convergent
// 1/(1 − c^{n/b}); the printed (1 − c^T)/(1 − c) is a slip (spec sglu §3.8 FLAG).
func (p Problem) ZBatch(placement []BatchCount) (float64, error) {
	w, err := p.PlacementWeight(placement)
	if err != nil {
		return 0, err
	}
	eta, m := p.StepSize, p.StrongConvexity
	if eta*m == 0 {
		return 2 * p.Radius, nil
	}
	return math.Min(2*eta*p.Lipschitz/float64(p.Batch)*w/oneMinusPowC(eta, m, float64(p.StepsPerEpoch())), 2*p.Radius), nil
}

// ZBatchWorstCase is ZBatch at the worst placement of S records:
// Z_S = min(Z_B·Σ_{g<G} c^g·min(b, S − g·b), 2R) with G = ⌈S/b⌉. At most min(S·Z_B, 2R);
// Z_B for S = 1.
func (p Problem) ZBatchWorstCase(S int) float64 {
	z, _ := p.ZBatch(p.WorstPlacement(S))
	return z
}

// UnlearnBatch serves one request that removes several records at once (Corollary
// 3.12): each is removed by the model's Removal mode, then K epochs run on the updated
// data. Every ID is checked first, so a bad request changes nothing. It returns the
// records that took the slots (none under DeleteRemoval). From r it draws each
// replacement in ids' order, then the K epochs' one noise key.
func (m *Model) UnlearnBatch(ctx context.Context, ids []int64, K int, r *rand.Rand) ([]reference.Record, error) {
	left := map[int]int{} // rows left per batch under DeleteRemoval
	seen := make(map[int64]bool, len(ids))
	for _, id := range ids {
		k, ok := m.slot[id]
		switch {
		case !ok:
			return nil, fmt.Errorf("sglu unlearn batch: record ID %d is not in the dataset: %w", id, reference.ErrUnknownID)
		case seen[id]:
			return nil, fmt.Errorf("sglu unlearn batch: record ID %d is named twice", id)
		}
		seen[id] = true
		j := k / m.params.Batch
		if _, ok := left[j]; !ok {
			left[j] = m.size[j]
		}
		if left[j]--; m.params.Removal == DeleteRemoval && left[j] == 0 {
			return nil, fmt.Errorf("sglu unlearn batch: the request empties batch %d", j)
		}
	}
	var recs []reference.Record
	for _, id := range ids {
		rec, err := m.Remove(id, r)
		if err != nil {
			return recs, err
		}
		if m.params.Removal == ReplaceRemoval {
			recs = append(recs, rec)
		}
	}
	return recs, m.Epochs(ctx, K, r)
}

// Placement is where the records of ids sit, batch by batch: Corollary 3.12's input.
func (m *Model) Placement(ids []int64) ([]BatchCount, error) {
	count := map[int]int{}
	var order []int
	for _, id := range ids {
		j, ok := m.BatchOf(id)
		if !ok {
			return nil, fmt.Errorf("sglu placement: record ID %d is not in the dataset: %w", id, reference.ErrUnknownID)
		}
		if count[j] == 0 {
			order = append(order, j)
		}
		count[j]++
	}
	out := make([]BatchCount, len(order))
	for i, j := range order {
		out[i] = BatchCount{J: j, Count: count[j]}
	}
	return out, nil
}
