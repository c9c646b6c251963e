package d2d

import (
	"errors"
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
)

// The parameter rules of perturbed distributed descent (Neel et al. 2020, Section 4,
// Theorem 4.5; spec d2d §2.10 and §3.9). Functions taking real B and K follow the theorem,
// which treats B = n^ξ and K = √B as reals; DistSizes applies the integer rules.

// DistRealSizes is B = n^ξ, K = √B and a = K n² I / B² = I·n^{(4−3ξ)/2} as reals.
func DistRealSizes(n int, xi, I float64) (B, K, a float64) {
	B = fexp.Pow(float64(n), xi)
	K = math.Sqrt(B)
	return B, K, K * float64(n) * float64(n) * I / (B * B)
}

// DistSizes applies the integer rules of spec d2d §2.10: K = ⌊√⌈n^ξ⌉⌋ partitions of
// B/K slots each, B = K·⌈⌈n^ξ⌉/K⌉, and a recomputed from them. The proof needs B ≥ n and
// K n² ≥ B² (a ≥ I); either failing is an error.
func DistSizes(n int, xi, I float64) (B, K int, a float64, err error) {
	return DistSizesWithPartitions(n, xi, I, 0)
}

// DistSizesWithPartitions is DistSizes with K chosen by the caller (0: the rule's K).
func DistSizesWithPartitions(n int, xi, I float64, partitions int) (B, K int, a float64, err error) {
	b0 := int(math.Ceil(fexp.Pow(float64(n), xi) - 1e-9))
	K = partitions
	if K <= 0 {
		K = int(math.Floor(math.Sqrt(float64(b0)) + 1e-9))
	}
	if K < 1 {
		K = 1
	}
	B = K * int(math.Ceil(float64(b0)/float64(K)))
	a = float64(K) * float64(n) * float64(n) * I / (float64(B) * float64(B))
	var errs []error
	if B < n {
		errs = append(errs, fmt.Errorf("bootstrap size B = %d is below n = %d (ξ ≥ 1 is needed)", B, n))
	}
	if a < I {
		errs = append(errs, fmt.Errorf("partitions too few: K·n² = %d·%d² < B² = %d² (a = %.4g < I = %g; ξ ≤ 4/3 is needed)", K, n, B, a, I))
	}
	return B, K, a, errors.Join(errs...)
}

// DistLearnIterationsReal is the learner's T ≥ a + ln(D·m·B·(1 + 10 ln(2/δ))/L)/ln(1/γ)
// (Theorem 4.5).
func DistLearnIterationsReal(a, diam, m, B, L, delta, gamma float64) float64 {
	extra := math.Log(diam*m*B*(1+10*math.Log(2/delta))/L) / math.Log(1/gamma)
	return a + math.Max(0, extra)
}

// DistUpdateBudget is Theorem 4.5's per-copy update budget in units of n gradients,
// T_i = 10 ln(2i/δ)·(I + (B²/(K n²))·ln(1 + 10 i ln(2i/δ))/ln(1/γ)).
func DistUpdateBudget(i int, I float64, n int, B, K, delta, gamma float64) float64 {
	l := math.Log(2 * float64(i) / delta)
	return 10 * l * (I + B*B/(K*float64(n)*float64(n))*math.Log(1+10*float64(i)*l)/math.Log(1/gamma))
}

// DistUpdateBudgetFixed is the summable schedule of spec d2d §3.9.4 [EXT], which repairs
// the proof gap for partitions an update does not touch: 10 i ln(2i/δ) inside the log
// becomes 10 i² ln(π² i²/(3δ)) and the leading factor 10 ln(π² i²/(3δ)); the per-round
// failure probabilities 3δ/(π² i²) sum to at most δ/2. The cost per update stays O(log i).
func DistUpdateBudgetFixed(i int, I float64, n int, B, K, delta, gamma float64) float64 {
	fi := float64(i)
	l := math.Log(math.Pi * math.Pi * fi * fi / (3 * delta))
	return 10 * l * (I + B*B/(K*float64(n)*float64(n))*math.Log(1+10*fi*fi*l)/math.Log(1/gamma))
}

// DistPartitionIters is T' = ⌈K·n·T_i/(B·|ind|)⌉, the iterations of each of the |ind|
// partitions an update modified, so that the copy spends n·T_i gradients (Algorithm 6;
// the ceiling is the spec's rounding, §2.8).
func DistPartitionIters(Ti float64, n, B, K, modified int) int {
	if modified == 0 {
		return 0
	}
	return int(math.Ceil(float64(K) * float64(n) * Ti / (float64(B) * float64(modified))))
}

// DistSensitivity is the Δ of Theorem 4.5's proof, (8L/(mn))·γ^a/(1 − γ^a) (Eq. 26).
func DistSensitivity(L, m, gamma float64, n int, a float64) float64 {
	// 4L/(m·(n/2)) is 8L/(mn) to the bit: halving the divisor is exact
	return DistSensitivityFloor(L, m, gamma, float64(n)/2, a)
}

// DistSensitivityFloor is DistSensitivity with Assumption 2.6's n/2 replaced by a
// guaranteed floor on every n_i (spec d2d §1.4): (4L/(m·floor))·γ^a/(1 − γ^a).
func DistSensitivityFloor(L, m, gamma, floor, a float64) float64 {
	g := powGamma(gamma, a)
	return 4 * L / (m * floor) * g / (1 - g)
}

// Floor is the size every n_i is assumed to keep: NFloor, or n/2 (Assumption 2.6).
func (p DistParams) Floor() float64 {
	if p.NFloor > 0 {
		return float64(p.NFloor)
	}
	return float64(p.N) / 2
}

// DistSigma is Theorem 4.5's noise,
// 4√2·L·γ^a / (m n (1 − γ^a)(√(ln(2/δ) + ε) − √ln(2/δ))) = GaussianSigma(Δ, ε, δ/2).
func DistSigma(L, m, M float64, n int, a, eps, delta float64) float64 {
	return dp.GaussianSigma(DistSensitivity(L, m, Contraction(M, m), n, a), eps, delta/2)
}

// DistFixedFactor is (2 + π²/6)/2 ≈ 1.822, the factor by which the fixed schedule's
// certified Δ exceeds the paper's (spec d2d §3.9.4).
const DistFixedFactor = (2 + math.Pi*math.Pi/6) / 2

// DistCopies is C = ⌈ln(2/β)/ln 2⌉, the copies Theorem 4.5 boosts accuracy with.
func DistCopies(beta float64) int { return int(math.Ceil(math.Log(2/beta) / math.Ln2)) }

// ReservoirChangedBound is Lemma 4.3: with B ≥ n and δ' ≤ 1/e, an update changes at most
// (10B/n)·ln(1/δ') slots with probability ≥ 1 − δ'.
func ReservoirChangedBound(B float64, n int, deltaPrime float64) float64 {
	return 10 * B / float64(n) * math.Log(1/deltaPrime)
}

// ReservoirChangedBoundChernoff is the tighter Chernoff form the proof of Lemma 4.3 passes
// through: μ + (ℓ' + √(ℓ'² + 8μℓ'))/2 with μ = 2B/n and ℓ' = ln(1/δ').
func ReservoirChangedBoundChernoff(B float64, n int, deltaPrime float64) float64 {
	mu := 2 * B / float64(n)
	l := math.Log(1 / deltaPrime)
	return mu + (l+math.Sqrt(l*l+8*mu*l))/2
}

// Schedule selects the distributed update budget.
type Schedule int

const (
	// PaperSchedule is Theorem 4.5's T_i and σ (the default, as the spec recommends; the
	// audit reports what its proof gap costs).
	PaperSchedule Schedule = iota
	// FixedSchedule is the summable T_i of spec §3.9.4 with σ·(2 + π²/6)/2.
	FixedSchedule
)

func (s Schedule) String() string {
	if s == FixedSchedule {
		return "fixed"
	}
	return "paper"
}

// ParseSchedule reads "paper" or "fixed".
func ParseSchedule(s string) (Schedule, error) {
	switch s {
	case "paper":
		return PaperSchedule, nil
	case "fixed":
		return FixedSchedule, nil
	}
	return 0, fmt.Errorf("unknown schedule %s; want paper or fixed", clip.Quote(s))
}

// Selection says how the published copy is chosen when C > 1 (spec d2d §3.9.6).
type Selection int

const (
	// NoiseFreeSelection is the paper's rule: the copy whose noise-free average has the
	// least loss on 𝒟_i. The unlearning proof does not cover this data-dependent choice;
	// reports label it "unproven".
	NoiseFreeSelection Selection = iota
	// NoisySelection adds independent N(0, Cσ²I) noise to every copy's average (zCDP
	// composition) and publishes the noisy candidate of least loss: post-processing,
	// covered by the proof [EXT].
	NoisySelection
)

// DistParams are the declared inputs of distributed descent (Theorem 4.5).
type DistParams struct {
	reference.Constants         // of f: L, M, m (strongly convex)
	Radius              float64 // Θ is the ball of this radius
	N                   int     // n
	Dim                 int     // d
	Xi                  float64 // ξ ∈ [1, 4/3]: B = n^ξ
	Budget              float64 // I
	Epsilon, Delta      float64
	// NFloor is a guaranteed lower bound on every n_i; 0 means n/2 (Assumption 2.6).
	// Δ's 8L/(mn) is 4L/(m·n_floor) (spec d2d §1.4), so a floor below n/2 enlarges Δ and σ.
	NFloor     int
	Copies     int // C; 0 means 1 (the setting the unlearning proof covers)
	Partitions int // K; 0 means ⌊√⌈n^ξ⌉⌋ (spec §2.10)
	Selection  Selection
	Schedule   Schedule
}

// DistPlan is a validated distributed configuration with everything derived from it.
type DistPlan struct {
	Params   DistParams
	B, K     int     // bootstrap slots and partitions
	A        float64 // a = K n² I / B², the per-partition base iterations
	Gamma    float64
	StepSize float64
	Sigma    float64 // per published average (NoisySelection adds √C on top)
	T        int     // the learner's iterations per partition
}

// NewDistPlan validates the parameters and derives the plan.
func NewDistPlan(p DistParams) (DistPlan, error) {
	var errs []error
	check := func(ok bool, field, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
		}
	}
	check(p.StrongConvexity > 0, "strong-convexity", "m = %v; Theorem 4.5 needs m > 0", p.StrongConvexity)
	check(p.Smoothness >= p.StrongConvexity && !math.IsInf(p.Smoothness, 0), "smoothness", "M = %v; want finite M ≥ m", p.Smoothness)
	check(p.Lipschitz > 0 && !math.IsInf(p.Lipschitz, 0), "lipschitz", "L = %v; want 0 < L < ∞", p.Lipschitz)
	check(p.Radius > 0 && !math.IsInf(p.Radius, 0), "radius", "R = %v; want 0 < R < ∞", p.Radius)
	check(p.N >= 2, "n", "n = %d; want n ≥ 2", p.N)
	check(p.Dim >= 1, "dimension", "d = %d; want d ≥ 1", p.Dim)
	check(p.Xi >= 1 && p.Xi <= 4.0/3, "xi", "ξ = %v; Theorem 4.5 needs 1 ≤ ξ ≤ 4/3", p.Xi)
	check(p.Budget > 0, "iterations", "I = %v; want I > 0", p.Budget)
	check(p.Epsilon > 0 && !math.IsInf(p.Epsilon, 0), "epsilon", "ε = %v; want 0 < ε < ∞", p.Epsilon)
	check(p.Delta > 0 && p.Delta < 1, "delta", "δ = %v; want 0 < δ < 1", p.Delta)
	check(p.NFloor >= 0 && p.NFloor <= p.N, "n-floor", "n_floor = %d; want 0 (meaning n/2) or 1 ≤ n_floor ≤ n = %d", p.NFloor, p.N)
	check(p.Copies >= 0, "copies", "C = %d; want C ≥ 1 (0 means 1)", p.Copies)
	check(p.Partitions >= 0, "partitions", "K = %d; want K ≥ 1 (0 means the rule's K)", p.Partitions)
	if err := errors.Join(errs...); err != nil {
		return DistPlan{}, fmt.Errorf("d2d distributed: %w", err)
	}
	B, K, a, err := DistSizesWithPartitions(p.N, p.Xi, p.Budget, p.Partitions)
	if err != nil {
		return DistPlan{}, fmt.Errorf("d2d distributed: %w", err)
	}
	if p.Copies == 0 {
		p.Copies = 1
	}
	pl := DistPlan{Params: p, B: B, K: K, A: a, Gamma: Contraction(p.Smoothness, p.StrongConvexity), StepSize: StepSize(p.Smoothness, p.StrongConvexity)}
	pl.Sigma = dp.GaussianSigma(pl.floorSensitivity(), p.Epsilon, p.Delta/2) // DistSigma's, at the floor
	if p.Schedule == FixedSchedule {
		pl.Sigma *= DistFixedFactor
	}
	pl.T = int(math.Ceil(DistLearnIterationsReal(a, 2*p.Radius, p.StrongConvexity, float64(B), p.Lipschitz, p.Delta, pl.Gamma)))
	return pl, nil
}

// UpdateBudget is T_i of the plan's schedule, in units of n gradients per copy.
func (pl DistPlan) UpdateBudget(i int) float64 {
	p := pl.Params
	if p.Schedule == FixedSchedule {
		return DistUpdateBudgetFixed(i, p.Budget, p.N, float64(pl.B), float64(pl.K), p.Delta, pl.Gamma)
	}
	return DistUpdateBudget(i, p.Budget, p.N, float64(pl.B), float64(pl.K), p.Delta, pl.Gamma)
}

// Sensitivity is the Δ σ is calibrated to: the paper's (8L/(mn))γ^a/(1 − γ^a), with
// 4L/(m·n_floor) for 8L/(mn) when a floor is declared, times (2 + π²/6)/2 with the fixed
// schedule.
func (pl DistPlan) Sensitivity() float64 {
	d := pl.floorSensitivity()
	if pl.Params.Schedule == FixedSchedule {
		d *= DistFixedFactor
	}
	return d
}

// floorSensitivity is Theorem 4.5's Δ at the plan's floor on n_i (n/2 unless declared),
// before the fixed schedule's factor.
func (pl DistPlan) floorSensitivity() float64 {
	p := pl.Params
	return DistSensitivityFloor(p.Lipschitz, p.StrongConvexity, pl.Gamma, p.Floor(), pl.A)
}

// SlotSensitivity is 4LK/(mB): how far one changed slot can move a partition's minimiser
// (a deletion and an addition in a partition of B/K slots, Lemma 2.12 twice).
func (pl DistPlan) SlotSensitivity() float64 {
	p := pl.Params
	return 4 * p.Lipschitz * float64(pl.K) / (p.StrongConvexity * float64(pl.B))
}
