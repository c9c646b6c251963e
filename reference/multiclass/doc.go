// Package multiclass holds the multi-class models the second-order and streaming
// unlearning methods run on — multinomial logistic (softmax) regression and a small
// multi-layer perceptron — each a per-example loss over one flat parameter vector with
// its exact gradient and exact Hessian–vector product (Model). HF never forms a Hessian:
// it pushes vectors through products with it, so those products must be right to
// rounding, not to a finite-difference step.
//
// Softmax is the convex model (the HF paper's "LR": 784 → 10, d = 7850): cross-entropy of
// softmax(Wx + b) plus (λ/2)‖w‖² on every parameter, λ-strongly convex and M-smooth with
// M = ½(‖x‖² + 1) + λ (Smoothness). Its Hessian has a closed form (Hessian), which the
// Hessian-free product is tested against, and a Batch evaluates gradients and products
// over a block of rows in one fused pass (each row read once, W kept in cache), without
// allocating.
//
// MLP is the non-convex one: tanh hidden layers (Sizes = [p, h₁, …, K]) and a softmax
// output, with gradients by backpropagation and products by Pearlmutter's R-operator. It
// claims no certified constants.
//
//	m := multiclass.Softmax{K: 10, P: 784, Lambda: 0.5}
//	g := make([]float64, m.Dim())
//	m.Gradient(g, w, x, label)      // ∇ℓ(w; x, y)
//	m.HVP(hv, w, x, label, v)        // ∇²ℓ(w; x, y)·v
//	b := m.NewBatch(32)              // a mini-batch at a time:
//	loss := b.Gradient(g, w, xb, yb) //   mean gradient and loss over the rows of xb
//	b.HVP(hv, w, xb, v)              //   mean Hessian–vector product
//
// Data pairs features with labels 0 … K−1 (NewData checks them); MeanLoss, MeanGradient
// and MeanHVP average any Model over rows. The tests hold every model to central
// differences of its loss and gradient, to the symmetry uᵀHv = vᵀHu, and Softmax to its
// explicit Hessian. Softmax.AddHessianSum adds the explicit Hessian summed over rows by
// blocked products, for second-order methods that factorise it.
//
// A Network (both models are) also exposes its logits and its penultimate embedding with
// their vector–Jacobian products, for losses other than the labelled cross-entropy:
// SAFE's divergence from a target distribution, CaMU's between embeddings. Train runs a
// mini-batch recipe — SGD or Adam (held to PyTorch's own torch.optim.Adam,
// testdata/make_adam.py) — from a start, drawing each epoch's order from a random source;
// Accuracy and Predict read the largest logit.
//
//	w, _ := multiclass.Train(ctx, m, data, rows, w0, multiclass.TrainConfig{Optimizer: multiclass.Adam, Epochs: 20, BatchSize: 32, LR: 1e-3}, rng)
//	acc := multiclass.Accuracy(m, w, test, nil)
//
// An Objective sums a model's loss over chosen rows and adds a linear term, F(w) =
// Σ ℓ(w; z_i) + bᵀw; its Solve runs conjugate gradients on Hessian–vector products, and
// Minimize finds the exact minimiser of a strongly convex objective by truncated Newton
// steps — the training of Guo et al.'s certified removal (reference/hf) and the exact
// retraining oracle it is measured against. The tests prove its accuracy rather than
// compare it: an independent gradient below the tolerance puts the result within
// tol/(λn) of the minimiser, and least squares is held to its closed form.
//
//	o, _ := multiclass.NewObjective(m, data, rows, b)
//	res, _ := multiclass.Minimize(ctx, o, nil, multiclass.MinimizeOptions{}) // res.W, res.Residual
//
// Linear (a zero Hessian) and LeastSquares (a constant one) are oracle models: on them
// first-order unlearning is exact, or exact within one batch of one epoch, which is what
// the tests of reference/hf and props hold HF to.
package multiclass
