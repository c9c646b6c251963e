package multiclass

// A Network is a Model whose logits and embedding are exposed with their vector–Jacobian
// products: what losses other than the labelled cross-entropy need — SAFE's divergence
// between the model's prediction and a target distribution, CaMU's divergence between
// embeddings. Softmax and MLP are Networks.
type Network interface {
	Model
	// Logits sets z (Classes entries) to the example's logits.
	Logits(z, w, x []float64)
	// BackLogits sets dst = (∂z/∂w)ᵀ g: the gradient in the parameters of a loss whose
	// gradient in the logits is g, without the L2 term.
	BackLogits(dst, w, x, g []float64)
	// EmbeddingDim is the width of the penultimate representation: the last hidden layer
	// of an MLP, the input itself for Softmax (whose embedding has no parameters).
	EmbeddingDim() int
	// Embedding sets h (EmbeddingDim entries) to the example's penultimate representation.
	Embedding(h, w, x []float64)
	// BackEmbedding sets dst = (∂h/∂w)ᵀ g for a loss whose gradient in the embedding is g
	// (zero for Softmax).
	BackEmbedding(dst, w, x, g []float64)
}

// Logits sets z = Wx + b.
func (s Softmax) Logits(z, w, x []float64) { s.logits(z, w, x) }

// BackLogits sets dst's W block to g xᵀ and its b block to g.
func (s Softmax) BackLogits(dst, w, x, g []float64) { s.outer(dst, g, x) }

// EmbeddingDim is p: softmax regression's penultimate representation is its input.
func (s Softmax) EmbeddingDim() int { return s.P }

// Embedding copies x.
func (s Softmax) Embedding(h, w, x []float64) { copy(h, x) }

// BackEmbedding is zero: the input does not depend on the parameters.
func (s Softmax) BackEmbedding(dst, w, x, g []float64) { clear(dst) }

// Logits sets z to the output layer's pre-softmax values.
func (m MLP) Logits(z, w, x []float64) { copy(z, m.forward(w, x).z) }

// BackLogits backpropagates the logit gradient g through the network.
func (m MLP) BackLogits(dst, w, x, g []float64) {
	m.backward(dst, w, m.forward(w, x), append([]float64(nil), g...))
}

// EmbeddingDim is the last hidden layer's width.
func (m MLP) EmbeddingDim() int { return m.Sizes[len(m.Sizes)-2] }

// Embedding sets h to the last hidden layer's activations.
func (m MLP) Embedding(h, w, x []float64) {
	ps := m.forward(w, x)
	copy(h, ps.a[len(ps.a)-1])
}

// BackEmbedding backpropagates the embedding gradient g from the last hidden layer down;
// the output layer's parameters get zero.
func (m MLP) BackEmbedding(dst, w, x, g []float64) {
	clear(dst)
	L := len(m.Sizes) - 1
	ps := m.forward(w, x)
	// into the last hidden layer's pre-activation: g ⊙ (1 − a²)
	top := ps.a[L-1]
	gz := make([]float64, len(top))
	for j, a := range top {
		gz[j] = g[j] * (1 - a*a)
	}
	m.backwardFrom(dst, w, ps, gz, L-1)
}
