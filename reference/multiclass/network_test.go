package multiclass

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// drawNetwork draws a small Softmax or MLP (one or two tanh layers) with λ in [0, 1].
func drawNetwork(t *rapid.T) Network {
	m := drawModel(t)
	return m.(Network)
}

// A Network's logits are the ones its loss takes the softmax of, ℓ = logsumexp(z) − z_y +
// (λ/2)‖w‖², to rounding; and BackLogits and BackEmbedding are the transposed Jacobians of
// the logits and the embedding: ⟨g, z(w + hv) − z(w − hv)⟩/(2h) = ⟨BackLogits(g), v⟩ to
// central differences' error (h²/6·|z‴| plus rounding ε·|z|/h, about 1e-8 here; tolerance
// 1e-6·(1 + |value|), as TestDerivativesMatchFiniteDifferences derives).
func TestNetworkJacobians(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := drawNetwork(t)
		d := m.Dim()
		w, v := drawVec(t, d, "w"), drawVec(t, d, "v")
		x := drawVec(t, m.Inputs(), "x")
		y := rapid.IntRange(0, m.Classes()-1).Draw(t, "y")
		z, p := make([]float64, m.Classes()), make([]float64, m.Classes())
		m.Logits(z, w, x)
		if want, got := m.Loss(w, x, y), softmax(p, z)-z[y]+m.Regularization()/2*sqNorm(w); math.Abs(want-got) > 1e-12*(1+math.Abs(want)) {
			t.Fatalf("loss %v, from the logits %v", want, got)
		}
		const h = 1e-5
		plus, minus := make([]float64, d), make([]float64, d)
		for j := range d {
			plus[j], minus[j] = w[j]+h*v[j], w[j]-h*v[j]
		}
		for _, c := range []struct {
			name string
			dim  int
			fwd  func(out, w, x []float64)
			back func(dst, w, x, g []float64)
		}{{"logits", m.Classes(), m.Logits, m.BackLogits}, {"embedding", m.EmbeddingDim(), m.Embedding, m.BackEmbedding}} {
			g := drawVec(t, c.dim, "g "+c.name)
			zp, zm := make([]float64, c.dim), make([]float64, c.dim)
			c.fwd(zp, plus, x)
			c.fwd(zm, minus, x)
			fd := 0.0
			for k := range c.dim {
				fd += g[k] * (zp[k] - zm[k]) / (2 * h)
			}
			jt := make([]float64, d)
			c.back(jt, w, x, g)
			if got := dot(jt, v); math.Abs(got-fd) > 1e-6*(1+math.Abs(fd)) {
				t.Fatalf("%s %s: ⟨Jᵀg, v⟩ = %v, central difference %v", m.Name(), c.name, got, fd)
			}
		}
	})
}
