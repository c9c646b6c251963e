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
// Notation: the paper writes L for smoothness and M for the Lipschitz constant of the
// per-sample data gradient; this package names them Smoothness and Lipschitz.
//
//	p := sglu.Params{Problem: sglu.Problem{Smoothness: 0.25 + lambda, Lipschitz: 1, StrongConvexity: lambda,
//		StepSize: 1 / (0.25 + lambda), N: n, Batch: 128, Radius: math.Inf(1)}, Sigma: 0.03, Epochs: 20}
//	m, err := sglu.Learn(ctx, p, reference.Logistic{Lambda: lambda, Clip: 1}, ds, r)
//	K, eps, err := (&sglu.Accountant{Problem: p.Problem, Target: 1, Delta: 1 / float64(n), Sigma: 0.03}).Next()
//	_, err = m.Unlearn(ctx, id, K, r)
package sglu
