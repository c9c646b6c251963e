// Package hf implements Hessian-Free online certified unlearning (Qiao, Zhang, Tang, Wei;
// "spec §" cites the project's notes on the paper, hf-hessian-free-unlearning.md) on the
// models of reference/multiclass.
//
// Stage I (Learn) trains with mini-batch SGD at step η_t = η·q^t and keeps what the later
// stages replay: the batch order (Schedule: a permutation per epoch, or one for all epochs
// as the official code does) and the iterate before every step (Trajectory.Checkpoints).
//
// Stage II (Trajectory.Statistics) computes, for every record u, the statistic a^{-u}: the
// first-order change of the final model when u is dropped from every batch it was in,
// pushed through the linearised SGD maps A_t = I − η_t H_t by Hessian–vector products at
// the checkpoints — never a Hessian. All statistics advance through a step together. The
// step's own gradient enters after its map (PaperOrder, the exact derivative: a^{-u} =
// −dw_T/dω for u's weight 1 + ω) or before it (CodeOrder, the official code's, O(η²)
// off). SetStatistic runs the recursion once for a set; Theorem 1 says it equals the sum.
//
// Stage III (Unlearner) deletes by vector additions, w̄ = w_T + Σ a^{-u}, one request
// after another: a record deleted twice is refused (ErrAlreadyDeleted), statistics of
// deleted records are dropped, and Release adds N(0, σ²I) with σ from reference/dp's
// classic or analytic Gaussian calibration.
//
// What HF approximates is the paper's retraining (Trajectory.Retrain with PaperRule): the
// same start, the same batches, the removed records dropped with the divisor |B_t| kept.
// CodeRule averages over the records left instead, as the official code does; HF is not
// its first-order approximation, and the audit shows the difference. Reweighted is the
// weighted replay whose ω-derivative is a^{-u}, the tests' oracle.
//
//	tr, _ := hf.Learn(ctx, hf.Config{Model: m, Epochs: 15, BatchSize: 32, Eta: 0.05, Decay: 0.995}, data, w0, rng)
//	stats, _ := tr.Statistics(ctx, data, nil, hf.PaperOrder)
//	u := hf.NewUnlearner(tr, stats)
//	_ = u.Delete(17, 42)
//	published := u.Release(sigma, rng)
//
// The statistics dominate HF's memory (n × d values). Stats.StoreFloat32 halves them after
// Stage II has run in float64; each entry is then within 2⁻²⁴ relative, and deletions
// still sum in float64.
//
// Unlearner.Repair is Algorithm 3, the unlearning–repairing heuristic: fine-tune on the
// records left, carry every held statistic through the repair phase's maps and add the
// phase's own contributions. The paper certifies none of it, and Repaired says a repair
// ran so that an audit can refuse a certificate.
//
// The second-order baselines of the paper's comparison (spec §2.7) precompute the Hessian
// sum at the learned model (NewSecondOrder): NewtonStep is Eq. 15 (Sekhari et al.), a new
// d × d solve per request; Jackknife is Eq. 16 (Suriyakumar et al.), one factorisation
// for all. SecondOrderOptions.CodeCompat follows the official code instead (cross-entropy
// only, mean gradient over U).
//
//	so, _ := hf.NewSecondOrder(ctx, m, data, tr.Final, hf.SecondOrderOptions{Damping: 0.01})
//	ns, _ := so.NewtonStep(ctx, []int{17, 42})
//	ij, _ := so.Jackknife([]int{17, 42})
//
// Guo is the certified removal of Guo, Goldstein, Hannun and van der Maaten (ICML 2020),
// the Newton step with a certificate: training minimises the loss plus a random linear
// term bᵀw exactly (b ~ N(0, σ²I), by multiclass.Minimize), a request takes one Newton
// step on the records left, and a data-dependent bound on the step's gradient residual is
// added up against the budget σε/c of Theorem 3 (c = √(2 ln(1.5/δ))); past it the model is
// retrained with a fresh b. The paper's bound (Corollary 1) is for binary logistic
// regression; here it is derived for softmax from the Lipschitz constant 1/√2 of the
// softmax Jacobian, in the integral form (GuoIntegral, the default) or the paper's shape
// (GuoPrinted). The accumulated bound also charges the solvers' own residuals. The tests
// hold the true residual below the bound on random problems and every quantity to a
// NumPy/SciPy implementation (testdata/make_guo.py).
//
//	g, _ := hf.NewGuo(ctx, hf.GuoConfig{Model: m, Sigma: 10, Epsilon: 1, Delta: 1e-4}, data, rng)
//	rem, _ := g.Delete(ctx, 17) // rem.Spent: the bound so far; rem.Retrained: the budget ran out
//
// Clipped training (Config.Clip) needs a ClipMode for Stage II: ClipExactJacobian is the
// derivative of the clipped run (the maps and sources pass through the clipping
// Jacobian); ClipCodeCompat is the official code's (clipped maps, per-sample clipped
// sources); with ClipOff, the default, Statistics refuses a clipped trajectory.
package hf
