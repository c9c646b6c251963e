package olu

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
)

// DPCalibration chooses how the online-DP baseline sizes its noise for k deletions.
type DPCalibration int

const (
	// ExactGroup sizes σ for the group of k deleted functions directly: the tree's node
	// sums move by at most kL at each of its levels, so D_α ≤ α·levels·(kL)²/(2σ²), at most
	// αε for σ = kL√(levels/(2ε)).
	ExactGroup DPCalibration = iota
	// Prop1 is the paper's route (Proposition 1): make the learner (α, ε/k^{2.6})-RDP per
	// record, which group privacy turns into an (α/k, αε/k)-OLU, k^{0.3} times the noise.
	Prop1
)

func (c DPCalibration) String() string {
	if c == Prop1 {
		return "Proposition 1"
	}
	return "exact group"
}

// DPConfig is the online differentially private baseline: DP-FTRL (Kairouz et al. 2021,
// after Guha Thakurta and Smith 2013) — follow-the-regularised-leader on the linearised
// costs, x_t = Π_K(x₀ − η·Ŝ_t), where Ŝ_t is the binary tree mechanism's noisy prefix sum
// of the gradients, each clipped to norm L. It never acts on a request: its privacy
// already covers every function, so for k deletions it is an OLU by group privacy.
type DPConfig struct {
	X0          []float64
	Domain      Domain
	Eta         float64 // FTRL's step: the regulariser is ‖z − x₀‖²/(2η)
	Lipschitz   float64 // L, the gradients' clip norm
	Epsilon     float64 // the target: D_α ≤ αε for the k deletions at every α
	K           int     // the number of deletions the noise is sized for
	Calibration DPCalibration
	// Sigma, when positive, overrides the calibration (σ = 0 is not allowed: use OGD).
	Sigma float64
}

// TreeLevels is the number of levels ⌊log₂ T⌋ + 1 of the binary tree over T rounds: each
// round's gradient enters one released node per level.
func TreeLevels(T int) int { return bits.Len(uint(T)) }

// DPSigma is the node noise DPConfig's calibration gives over T rounds.
func (c DPConfig) DPSigma(T int) float64 {
	if c.Sigma > 0 {
		return c.Sigma
	}
	levels := float64(TreeLevels(T))
	k := float64(max(c.K, 1))
	if c.Calibration == Prop1 {
		return fexp.Pow(k, 1.3) * c.Lipschitz * math.Sqrt(levels/(2*c.Epsilon))
	}
	return k * c.Lipschitz * math.Sqrt(levels/(2*c.Epsilon))
}

// DPFTRLStep is a step balancing the regulariser against the linearised losses and the
// tree's noise: η = D/√(T(L² + d·σ²·levels)).
func DPFTRLStep(D, L, sigma float64, d, T int) float64 {
	return D / math.Sqrt(float64(T)*(L*L+float64(d)*sigma*sigma*float64(TreeLevels(T))))
}

// DPFTRL runs the baseline over the stream (a ⊥ round contributes a zero gradient; the
// tree and its noise are public and do not change). Requests are recorded, not acted on.
func DPFTRL(ctx context.Context, c DPConfig, stream []Cost, sched Schedule, r *rand.Rand) (*Run, error) {
	T, d := len(stream), len(c.X0)
	switch {
	case T == 0:
		return nil, errors.New("olu: an empty stream")
	case c.Domain == nil || !c.Domain.Contains(c.X0, 1e-12):
		return nil, errors.New("olu: DP-FTRL: x₀ outside the domain")
	case !(c.Eta > 0) || math.IsInf(c.Eta, 0):
		return nil, fmt.Errorf("olu: DP-FTRL: η = %v", c.Eta)
	case !(c.Lipschitz > 0) || math.IsInf(c.Lipschitz, 0):
		return nil, fmt.Errorf("olu: DP-FTRL: clip norm L = %v", c.Lipschitz)
	case c.Sigma <= 0 && !(c.Epsilon > 0):
		return nil, fmt.Errorf("olu: DP-FTRL: ε = %v", c.Epsilon)
	}
	if err := sched.check(stream, true); err != nil {
		return nil, err
	}
	sigma := c.DPSigma(T)
	levels := TreeLevels(T)
	exact := make([][]float64, levels) // α_ℓ: exact partial sums per level
	noisy := make([][]float64, levels) // their released noisy versions
	for l := range levels {
		exact[l], noisy[l] = make([]float64, d), make([]float64, d)
	}
	x := slices.Clone(c.X0)
	g, sum := make([]float64, d), make([]float64, d)
	run := &Run{Etas: make([]float64, T), Played: make([]float64, T)}
	at := map[int][]int{}
	for i, q := range sched {
		at[q.Tau] = append(at[q.Tau], i)
	}
	for t := 1; t <= T; t++ {
		if t%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		clear(g)
		if f := stream[t-1]; f != nil {
			run.Played[t-1] = f.Value(x)
			f.Gradient(g, x)
			run.Gradients++
			if n := math.Sqrt(dot(g, g)); n > c.Lipschitz {
				for j := range g {
					g[j] *= c.Lipschitz / n
				}
			}
		} else {
			run.Played[t-1] = math.NaN()
		}
		// the binary mechanism: the node at the lowest set bit of t closes
		low := bits.TrailingZeros(uint(t))
		node := exact[low]
		copy(node, g)
		for l := range low {
			for j := range node {
				node[j] += exact[l][j]
			}
			clear(exact[l])
			clear(noisy[l])
		}
		for j := range node {
			noisy[low][j] = node[j] + sigma*r.NormFloat64()
		}
		run.Draws += d
		clear(sum)
		for l := range levels {
			if t>>l&1 == 1 {
				for j := range sum {
					sum[j] += noisy[l][j]
				}
			}
		}
		for j := range x {
			x[j] = c.X0[j] - c.Eta*sum[j]
		}
		c.Domain.Project(x)
		run.Etas[t-1] = c.Eta
		for _, i := range at[t] {
			run.Served = append(run.Served, Served{Request: sched[i], Sigma: sigma, Noisy: slices.Clone(x), Released: slices.Clone(x)})
		}
	}
	run.Final = x
	return run, nil
}

// TreeExposure is Σ_v |v ∩ rounds|² over the binary tree's nodes on T rounds: how much the
// released node sums can move, in units of L², when the functions at those rounds are
// replaced by ⊥ — D_α ≤ α·L²·TreeExposure/(2σ²) for a non-adaptive stream. At most
// levels·|rounds|².
func TreeExposure(T int, rounds []int) float64 {
	total := 0.0
	for l := range TreeLevels(T) {
		count := map[int]int{}
		for _, s := range rounds {
			// level l releases the dyadic blocks (2m·2^l, (2m+1)·2^l] — at the rounds whose
			// lowest set bit is l — once complete; the odd blocks are folded into level l+1
			block := (s - 1) >> l
			if block%2 == 0 && (block+1)<<l <= T {
				count[block]++
			}
		}
		for _, c := range count {
			total += float64(c * c)
		}
	}
	return total
}
