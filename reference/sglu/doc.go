// Package sglu is Stochastic Gradient Langevin Unlearning (Chien, Wang, Chen, Li 2024):
// projected noisy mini-batch SGD (PNSGD) over a fixed ordered partition of the data, which
// unlearns a removal by running more epochs on the updated data from the published model.
//
// Learn draws the partition and runs T epochs; Model.Unlearn replaces the removed record
// in its batch slot (the paper's adjacency) and runs K more epochs. The accounting the
// algorithm needs lives here too: Problem.ZB (Corollary 3.8's W∞ bound), PABIFactor
// (Lemma 3.4, paper and exact-shift forms), Problem.Epsilon, the (ϵ, δ) conversion with
// the closed-form optimal α, Problem.LeastK, and the Accountant that drives sequential
// requests through Theorem 3.11's W∞ recursion. The remaining bounds of the paper are in
// audit/sgluaudit.
//
// Langevin Unlearning, the paper's full-batch baseline (§2.9), is this learner with
// Batch = N.
//
// # Where the noise comes from
//
// Every random draw of a run comes from the *rand.Rand it is given, in this order: Learn
// draws the permutation (r.Perm), the initial law draws θ₀ (d normals from r under
// GaussianInit, nothing otherwise), and every call of Epochs (learning's, each
// Unlearn's, UnlearnBatch's, or a caller's own) draws one uint64 from r, its noise key,
// before its first step, even when K = 0; Remove and RandomReplacement draw the
// replacement's d features and its label before the Epochs call that follows them. The
// Langevin noise itself is not drawn from r: step s of an Epochs call (s = 0, 1, …,
// K·n/b − 1, every batch step of the call counted) adds √(2ησ²)·z with z =
// ars.FillWide(·, key, 0, s), the counter-based stream NoiseStream. So a run's noise at
// any step is a function of its stream and its call, shards and lockstep draw the same
// values without coordinating, and an Ensemble's run t (which draws its key from rs[t] at
// the start of each call, runs in order) is its Model. Two consequences for callers: the
// noise of a step depends on how the epochs are cut into calls (one call of 2 epochs is
// not two calls of 1), so two runs meant to share noise must make the same calls; and
// one call runs at most 2³² steps.
//
// Notation: the paper writes L for smoothness and M for the Lipschitz constant of the
// per-sample data gradient; this package names them Smoothness and Lipschitz.
//
//	p := sglu.Params{Problem: sglu.Problem{Smoothness: 0.25 + lambda, Lipschitz: 1, StrongConvexity: lambda,
//		StepSize: 1 / (0.25 + lambda), N: n, Batch: 128, Radius: math.Inf(1)}, Sigma: 0.03, Epochs: 20}
//	m, err := sglu.Learn(ctx, p, reference.Logistic{Lambda: lambda, Clip: 1}, ds, r)
//	K, eps, err := (&sglu.Accountant{Problem: p.Problem, Target: 1, Delta: 1 / float64(n), Sigma: 0.03}).Next()
//	_, err = m.Unlearn(ctx, id, K, r)
package sglu
