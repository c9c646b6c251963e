package hfaudit

import (
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
)

// The bounds of the HF paper (spec hf §3) as pure functions. Each returns +Inf or an error
// where a hypothesis fails; sums are preferred to closed forms, which divide by ρ − q.

// DriftBound is Lemma 2: ‖w^{-U}_t − w_t‖ ≤ 2ηG(1 − q^t)/(1 − q) (2ηGt when q = 1), for
// any U, with G bounding every per-record gradient norm on both trajectories.
func DriftBound(eta, G, q float64, t int) float64 {
	if q == 1 {
		return 2 * eta * G * float64(t)
	}
	return 2 * eta * G * (1 - fexp.Pow(q, float64(t))) / (1 - q)
}

// Rho is Lemma 3's contraction max(|1 − ηλ|, |1 − ηM|) of I − ηH when λI ⪯ H ⪯ MI.
func Rho(eta, lambda, M float64) float64 {
	return math.Max(math.Abs(1-eta*lambda), math.Abs(1-eta*M))
}

// Thm4Params are Theorem 4's constants: η, G, q, ρ, the steps T, the batches per epoch B
// and the nominal batch size |𝓑|. RemainderScale multiplies the remainder term c1: 1 is
// the paper's unproven ‖remainder‖ ≤ ‖Δw‖; a rigorous reading needs 2M (spec hf §3.4).
type Thm4Params struct {
	Eta, G, Q, Rho  float64
	T, B, BatchSize int
	RemainderScale  float64 // 0 means 1
}

// Thm4PerSample is Eq. 56 for a record at position bU of its epoch, in the sum forms:
//
//	c1 = s·(2η²G/(1 − q))·Σ_{k<T} ρ^{T−1−k}(q^k − q^{2k})
//	c2 = (2ηG/|𝓑|)·Σ_{e=0}^{T/B−1} ρ^{T−eB−b_u−1} q^{eB+b_u}
//
// Its hypotheses are 0 < q < 1 and T a multiple of B; q < ρ makes the closed forms finite
// but the sums need it not. ρ > 1 (non-convex, large η) is evaluated as is and may be +Inf.
func Thm4PerSample(p Thm4Params, bU int) (c1, c2 float64, err error) {
	switch {
	case !(p.Q > 0 && p.Q < 1):
		return math.Inf(1), math.Inf(1), fmt.Errorf("theorem 4: q = %v; it needs 0 < q < 1", p.Q)
	case p.B < 1 || p.T%p.B != 0:
		return math.Inf(1), math.Inf(1), fmt.Errorf("theorem 4: T = %d steps is not a whole number of epochs of B = %d", p.T, p.B)
	case bU < 0 || bU >= p.B:
		return math.Inf(1), math.Inf(1), fmt.Errorf("theorem 4: b(u) = %d; want 0 … %d", bU, p.B-1)
	}
	scale := p.RemainderScale
	if scale == 0 {
		scale = 1
	}
	sum := 0.0
	for k := range p.T {
		// the k = 0 term is 0; skipping it keeps ρ^{T−1} = +Inf (ρ > 1, spec §4.6 case 9)
		// from making the sum Inf·0 = NaN
		if f := fexp.Pow(p.Q, float64(k)) - fexp.Pow(p.Q, float64(2*k)); f != 0 {
			sum += fexp.Pow(p.Rho, float64(p.T-1-k)) * f
		}
	}
	c1 = scale * 2 * p.Eta * p.Eta * p.G / (1 - p.Q) * sum
	sum = 0
	for e := range p.T / p.B {
		sum += fexp.Pow(p.Rho, float64(p.T-e*p.B-bU-1)) * fexp.Pow(p.Q, float64(e*p.B+bU))
	}
	c2 = 2 * p.Eta * p.G / float64(p.BatchSize) * sum
	return c1, c2, nil
}

// Thm4Closed is Eq. 56 in the paper's closed forms (for checking the sums; it needs ρ ≠ q,
// ρ ≠ q² and ρ^B ≠ q^B).
func Thm4Closed(p Thm4Params, bU int) (c1, c2 float64) {
	scale := p.RemainderScale
	if scale == 0 {
		scale = 1
	}
	r, q, T, B := p.Rho, p.Q, float64(p.T), float64(p.B)
	c1 = scale * 2 * p.Eta * p.Eta * p.G / (1 - q) * ((fexp.Pow(r, T)-fexp.Pow(q, T))/(r-q) - (fexp.Pow(r, T)-fexp.Pow(q, 2*T))/(r-q*q))
	c2 = 2 * p.Eta * p.G / float64(p.BatchSize) * (fexp.Pow(r, T) - fexp.Pow(q, T)) / (fexp.Pow(r, B) - fexp.Pow(q, B)) *
		fexp.Pow(r, B-float64(bU)-1) * fexp.Pow(q, float64(bU))
	return c1, c2
}

// Thm4Simplified is Eq. 57, 2ηG(ρ^T − q^{2T})·(ηq/((ρ − q)(ρ − q²)) + 1/(|𝓑|(ρ − q))), which
// bounds c1 + c2 when q < ρ; +Inf otherwise.
func Thm4Simplified(p Thm4Params) float64 {
	r, q := p.Rho, p.Q
	if !(q < r) {
		return math.Inf(1)
	}
	return 2 * p.Eta * p.G * (fexp.Pow(r, float64(p.T)) - fexp.Pow(q, float64(2*p.T))) *
		(p.Eta*q/((r-q)*(r-q*q)) + 1/(float64(p.BatchSize)*(r-q)))
}

// Thm4SetPaper is the set-level bound m·(c1 + max_b c2(b)) for m deleted records, the max
// at b = 0 when q < ρ (and taken over every b otherwise).
func Thm4SetPaper(p Thm4Params, m int) (float64, error) {
	c1, worst := 0.0, 0.0
	for b := range p.B {
		a, c, err := Thm4PerSample(p, b)
		if err != nil {
			return math.Inf(1), err
		}
		c1, worst = a, math.Max(worst, c)
		if p.Q < p.Rho {
			break // c2 falls with b
		}
	}
	return float64(m) * (c1 + worst), nil
}

// CodeSteps are the step count and batches per epoch the official code puts into its bound
// (utils/perturbation.py, spec hf §3.12): T = n(epochs+1)/|𝓑|, one epoch too many and not
// rounded up, and B = ⌈n/|𝓑|⌉ (the code's math.ceil(n/args.batch_size)).
func CodeSteps(n, epochs, batchSize int) (T float64, B int) {
	return float64(n) * float64(epochs+1) / float64(batchSize), (n + batchSize - 1) / batchSize
}

// CodeBound is the bound the official code computes (utils/perturbation.py, spec hf §3.12),
// at CodeSteps' T and B: the paper's c1 multiplied by (1 − q)² (it divides by 1 − q where
// the code multiplies), and c2 with ρ^B·q^B for every record where the paper has
// ρ^{B−b(u)−1}q^{b(u)}, times m/|𝓑|. At the paper's LR settings it is 0.093 where Eq. 56
// gives 413.
//
// Its quotients of differences of powers are geometric sums, finite as ρ → q (or q²);
// the code's closed forms are 0/0 there, so where the two are close they are taken in
// the stable form of powerGap, as the sums the code's closed forms stand for.
func CodeBound(lr, clip, q, rho float64, n, epochs, batchSize, m int) float64 {
	T, nb := CodeSteps(n, epochs, batchSize)
	B := float64(nb)
	first := 2 * lr * lr * clip * (powerGap(rho, q, T) - powerGap(rho, q*q, T)) * (1 - q)
	second := 2 * lr * clip * float64(m) / float64(batchSize) * powerGap(rho, q, T) / powerGap(rho, q, B) * fexp.Pow(rho, B) * fexp.Pow(q, B)
	return first + second
}

// powerGap is (a^T − b^T)/(a − b) for a, b > 0, Σ_{k<T} a^{T−1−k}·b^k for a whole T:
// the closed form where a and b differ by more than a millionth (bit for bit the code's),
// else b^{T−1}·expm1(T·log1p(h))/h with h = (a − b)/b (a − b exact, Sterbenz), whose limit
// at a = b is T·b^{T−1}: the closed form's difference of powers cancels there, to 0/0.
func powerGap(a, b, T float64) float64 {
	if math.Abs(a-b) > 1e-6*b {
		return (fexp.Pow(a, T) - fexp.Pow(b, T)) / (a - b)
	}
	if a == b {
		return T * fexp.Pow(b, T-1)
	}
	h := (a - b) / b
	return fexp.Pow(b, T-1) * math.Expm1(T*math.Log1p(h)) / h
}

// ERMExcessRisk is Lemma 9: 4L²/(λ(n − m)).
func ERMExcessRisk(L, lambda float64, n, m int) float64 { return 4 * L * L / (lambda * float64(n-m)) }

// GDDistanceBound is Lemma 10 as its proof ends: ρ^T·2L/λ (the statement's 2M/λ is a slip).
func GDDistanceBound(rho float64, T int, L, lambda float64) float64 {
	return fexp.Pow(rho, float64(T)) * 2 * L / lambda
}

// ExcessRiskBound is Theorem 6's Eq. 77, the excess population risk of the noised unlearned
// model: 4L²/(λ(n−m)) + ρ^T·2L²/λ + (√d·√(2 ln(1.25/δ))/ε + 1)·L·‖Δ‖.
func ExcessRiskBound(L, lambda float64, n, m, d int, rho float64, T int, eps, delta, deltaNorm float64) float64 {
	return ERMExcessRisk(L, lambda, n, m) + fexp.Pow(rho, float64(T))*2*L*L/lambda +
		(math.Sqrt(float64(d))*math.Sqrt(2*math.Log(1.25/delta))/eps+1)*L*deltaNorm
}

// ExcessRiskBoundRegularized is Eq. 77 repaired for a loss whose L2 term is part of F
// (spec hf §3.8, as the paper's models are): F is not L-Lipschitz where the Gaussian noise
// takes w̃, since (λ/2)‖w‖² grows quadratically. Splitting F(w̃) − F(w̄) into the
// data term (L-Lipschitz: L·E‖n‖ ≤ L√d·σ) and the regulariser (λ⟨w̄, n⟩ + (λ/2)‖n‖², mean
// (λ/2)dσ²) adds (λ/2)·d·σ² to Eq. 77, σ the classic Gaussian noise
// √(2 ln(1.25/δ))·‖Δ‖/ε. The paper's Eq. 77 omits it; a measured run shows the omission
// (props' TestHFTheorem6OnAMeasuredRun).
func ExcessRiskBoundRegularized(L, lambda float64, n, m, d int, rho float64, T int, eps, delta, deltaNorm float64) float64 {
	sigma := deltaNorm * math.Sqrt(2*math.Log(1.25/delta)) / eps
	return ExcessRiskBound(L, lambda, n, m, d, rho, T, eps, delta, deltaNorm) + lambda/2*float64(d)*sigma*sigma
}

// DeletionCapacity is the largest m in [0, n) with bound(m) ≤ γ (App. B.2, computed, since
// the paper gives only an order); −1 when even m = 0 exceeds γ. bound must not fall with m.
func DeletionCapacity(gamma float64, bound func(m int) float64, n int) int {
	lo, hi := -1, n // bound(lo) ≤ γ (or lo = −1), bound(hi) > γ (or hi = n)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if bound(mid) <= gamma {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// GaussianAUC is the optimal test's AUC between N(0, σ²I) and N(Δ, σ²I) at μ = ‖Δ‖/σ:
// Φ(μ/√2) (spec hf §3.11).
func GaussianAUC(mu float64) float64 { return dp.StdNormalCDF(mu / math.Sqrt2) }
