package sgluaudit

import (
	"context"
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/sglu"
)

// The coupled replay checks that the deployment really serves its requests: that each
// replacement enters the data and that the K_s epochs it claims are run.
//
// It runs the subject's unlearning (A: T epochs on D, then each replacement and its K_s
// epochs) and a replay (B: T + ΣK_s epochs on the final data D_S, in the same slots) with
// the same noise, step by step. Projection is non-expansive and a gradient step on an
// m-strongly convex, L-smooth batch loss with η ≤ 1/L contracts distances by c = 1 − ηm,
// while a batch in which the two data sets differ in k records moves them at most
// η·k·2M/b further apart (Remark 3.7). So, deterministically,
//
//	‖A − B‖ ≤ D,  D ← c·D + η·2M·k_j/b  at every step j,  D₀ = 0,
//
// with k_j the records of batch j in which A's data differ from D_S at that step. A
// deployment that ignores a request, skips its epochs or runs fewer than it claims stays
// near the old data's law and, once the claimed epochs would have contracted D, lands
// outside it.

// coupledRuns is how many coupled pairs are run: the bound holds for every pair.
const coupledRuns = 4

// coupledBound is D after the claimed schedule: learning, then each request's epochs.
func (s *Subject) coupledBound() float64 {
	p := s.problem
	c := p.C()
	per := p.StepsPerEpoch()
	kick := p.StepSize * 2 * p.Lipschitz / float64(p.Batch)
	batch := make([]int, len(s.setup.Removals)) // the batch of each request's slot
	for i, id := range s.setup.Removals {
		row, _ := s.ordered.Lookup(id)
		batch[i] = row / p.Batch
	}
	D := 0.0
	epochs := func(K, served int) {
		differs := make([]int, per)
		for _, j := range batch[served:] {
			differs[j]++
		}
		for range K {
			for j := range per {
				D = c*D + kick*float64(differs[j])
			}
		}
	}
	epochs(s.setup.Epochs, 0)
	for i, k := range s.ks {
		epochs(k, i+1)
	}
	return D
}

// replay is B: T + ΣK_s epochs on the final data with the stream A draws its noise from,
// on the subject's code path; it returns the published models of the given trials. Its
// epochs run in A's calls (T, then K_1, K_2, …): each Epochs call draws one noise key
// and addresses its steps from 0, so B has A's noise at every step only if its calls
// are A's.
func (s *Subject) replay(ctx context.Context, seed uint64, indices []int) ([][]float64, error) {
	out := make([][]float64, len(indices))
	if s.setup.Lockstep > 0 {
		e, err := s.learnEnsemble(ctx, s.final, ensembleStreams(seed, indices, "sglu/unlearned"))
		if err != nil {
			return nil, err
		}
		for _, k := range s.ks { // A's calls, so each draws A's key
			if err := e.Epochs(ctx, k); err != nil {
				return nil, err
			}
		}
		for k := range indices {
			out[k] = e.Published(k)
		}
		return out, nil
	}
	for k, i := range indices {
		r := reference.Streams{Seed: seed, Trial: i}.Rand("sglu/unlearned") // one stream, drawn in A's order
		m, err := sglu.LearnOrdered(ctx, s.params(), s.setup.Loss, s.final, r)
		if err != nil {
			return nil, err
		}
		for _, k := range s.ks { // A's calls, so each draws A's key
			if err := m.Epochs(ctx, k, r); err != nil {
				return nil, err
			}
		}
		out[k] = m.Published()
	}
	return out, nil
}

// coupledFinding runs the pairs and compares their distances with the bound.
func (s *Subject) coupledFinding(ctx context.Context, seed uint64) (verdict.Finding, error) {
	pairSeed := reference.Stream(seed, 0, "sglu/coupled-replay").Uint64()
	idx := make([]int, coupledRuns)
	for i := range idx {
		idx[i] = i
	}
	var a [][]float64
	if s.setup.Lockstep > 0 {
		u, err := s.unlearnedEnsemble(ctx, pairSeed, idx)
		if err != nil {
			return verdict.Finding{}, fmt.Errorf("sglu coupled replay: %w", err)
		}
		for k := range idx {
			a = append(a, u.Published(k))
		}
	} else {
		for _, i := range idx {
			r, err := s.Unlearned(ctx, reference.Streams{Seed: pairSeed, Trial: i})
			if err != nil {
				return verdict.Finding{}, fmt.Errorf("sglu coupled replay: %w", err)
			}
			a = append(a, r.Published)
		}
	}
	b, err := s.replay(ctx, pairSeed, idx)
	if err != nil {
		return verdict.Finding{}, fmt.Errorf("sglu coupled replay: %w", err)
	}
	worst := 0.0
	for k := range a {
		worst = math.Max(worst, reference.Distance(a[k], b[k]))
	}
	bound := s.coupledBound()
	v := verdict.Pass
	if worst > bound+s.roundingSlack() {
		v = verdict.Fail
	}
	return verdict.Finding{Check: "sglu/coupled-replay", Title: "requests served (coupled replay)", Kind: verdict.Implementation, Verdict: v,
		Measured: worst, Bound: bound, Comparison: "≤", Confidence: 1, Trials: coupledRuns,
		Detail: fmt.Sprintf("%d runs of the deployment against T + ΣK_s = %d epochs on the final data with the same noise: the farthest pair is %.4g apart; contraction by c = %.6g a step and Remark 3.7's 2M a differing record bound it by %.4g for the claimed K = %v%s",
			coupledRuns, s.setup.Epochs+sum(s.ks), worst, s.problem.C(), bound, compactInts(s.ks), map[bool]string{true: "; so a request is not served as claimed", false: ""}[v == verdict.Fail])}, nil
}

// roundingSlack bounds what rounding adds to the pair's distance: a step's batch gradient
// is a length-d dot product inside φ' (1/4-Lipschitz) times a row, plus λθ, so in unit
// roundoff u its error is at most (d + 2)u·G with G = M(1 + MR/4) + λR over the ball;
// each run's error enters through η and contracts by c a step, so the pair's sum is at
// most 2η(d + 2)u·G/(1 − c). u is the gradients' precision: 2⁻²⁴ in float32, 2⁻⁵³ else.
func (s *Subject) roundingSlack() float64 {
	p := s.problem
	u := 0x1p-53
	if s.setup.Float32 {
		u = 0x1p-24
	}
	G := p.Lipschitz*(1+p.Lipschitz*p.Radius/4) + p.StrongConvexity*p.Radius
	d := float64(s.ordered.Dim())
	return 2 * p.StepSize * (d + 2) * u * G / (1 - p.C())
}

func sum(ks []int) int {
	t := 0
	for _, k := range ks {
		t += k
	}
	return t
}
