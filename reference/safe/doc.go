// Package safe implements SAFE, streaming forgetting (Shen, Zhang, Zhao, Bialkowski,
// Chen, Xu; "spec §" cites the project's notes, safe-streaming-forgetting.md), and the
// baselines its paper compares it with, on the models of reference/multiclass.
//
// An original model w₀ is trained once on D₀. Deletion requests F₁, F₂, … then arrive one
// round at a time, and every round SAFE publishes
//
//	w_t = w₀ − γ·g_t/‖g_t‖ − b_t,   γ = √W/(K√T),   b_t ~ N(0, σ²I)
//
// — one normalised step from the original model, never from the previous round's. The
// direction g_t is the gradient at w₀ of a surrogate of the retrained model's risk: a
// retention term, the mean loss over the records left, whose gradient is kept by a
// recursion over the deleted points' gradients (Eq. 15) so that the records left are never
// read; and a forgetting term, (λ/m_t)·Σ KL(f(x; w) ‖ p̃_t(·|x)) over every point deleted
// so far, pulling the prediction toward an estimate p̃_t of what a retrained model would
// say: the original prediction reweighted by the change of the label proportions and of
// class-conditional Gaussian densities of the features in a random projection (Eq. 24),
// whose means and covariances are downdated as points leave.
//
// New reads D₀ once — the mean gradient at w₀, the class counts, the projection V and the
// class Gaussians — and keeps no reference to it; Round serves a Request (the deleted
// records with their features and labels, all that SAFE sees afterwards):
//
//	u, _ := safe.New(ctx, m, data, w0, safe.Config{Lambda: 1000, K: 2.5, T: 20}, rng)
//	res, _ := u.Round(ctx, safe.RequestOf(data, rows)) // res.W: the published model
//
// Every method of the paper's comparison is a Streamer — one request a round, a model
// published after each: SAFE (Unlearner.Streamer), Retrain (the original Recipe fitted
// from scratch on the records left, the reference), Unroll (Thudi et al.'s single-gradient
// unrolling), CaMU (the authors' counterfactual unlearning), Newton (L-CODEC-style: a
// Newton step on a selected share of the parameters) and D2D (Descent-to-Delete through
// reference/hf's multiclass D2D). RandomStream and ClassStream make the paper's two
// protocols: random subsets, and one class deleted over the rounds.
//
// Where the paper is ambiguous or wrong, the spec's reading is the default and the others
// are options (Config): the targets reweight every class (PerClass; the paper's notation
// read literally, LiteralScalar, gives a forgetting gradient of exactly zero); the
// divergence is KL(f_w ‖ p̃) (the proof's) or KL(p̃ ‖ f_w) (the authors' other code's); the
// covariance downdate is exact (FixedEq23; the printed Eq. 23, PrintedEq23, is off by a
// large share of the covariance); every target is recomputed each round (Eq. 25) or frozen
// at its deletion (CacheQ); φ is a standard deviation (PhiIsStd) or a variance; and the
// ablations of Table 2 (NoTR, NoRetention, NoDS). A request naming a record deleted before
// is refused (IgnoreRepeats passes over it, as the paper does). The tests hold every
// round to the spec's invariants: the retention recursion equals the gradient recomputed
// on the records left, the Gaussians equal their recomputation, the step is exactly γ,
// the targets do not depend on the fixed standardiser, the same deleted set in any
// partition gives the same model, and the gradients are the derivatives of the risks
// (RetentionRisk, ForgettingRisk) that the audit evaluates with the data.
package safe
