package multiclass

import (
	"fmt"
	"math"
	"strings"
)

// MLP is a fully connected network with tanh hidden layers and a softmax output, the
// non-convex model of the HF and SAFE papers' small experiments (UCI Wine: 13 → 64 → 3).
// Sizes lists the widths from the input to the output, [p, h₁, …, K], with one or more
// hidden layers. The flat parameter vector holds, layer by layer, W_l (out × in, row by
// row) then b_l. The loss is the cross-entropy of softmax(z_L) plus (λ/2)‖w‖² over every
// parameter. Gradients are backpropagation; Hessian–vector products are Pearlmutter's
// R-operator (forward and backward passes of the directional derivative), exact to
// rounding. No certified constants are claimed: the loss is not convex.
type MLP struct {
	Sizes  []int
	Lambda float64
}

// Name is "mlp(13-64-3, tanh, λ=0.0001)".
func (m MLP) Name() string {
	s := make([]string, len(m.Sizes))
	for i, v := range m.Sizes {
		s[i] = fmt.Sprint(v)
	}
	return fmt.Sprintf("mlp(%s, tanh, λ=%g)", strings.Join(s, "-"), m.Lambda)
}

// Check reports sizes that do not make a network with a hidden layer.
func (m MLP) Check() error {
	if len(m.Sizes) < 3 {
		return fmt.Errorf("mlp: sizes %v; want [inputs, hidden…, classes] with at least one hidden layer", m.Sizes)
	}
	for _, v := range m.Sizes {
		if v < 1 {
			return fmt.Errorf("mlp: sizes %v; every width must be at least 1", m.Sizes)
		}
	}
	return nil
}

// Dim is Σ_l out_l·(in_l + 1).
func (m MLP) Dim() int {
	d := 0
	for l := 1; l < len(m.Sizes); l++ {
		d += m.Sizes[l] * (m.Sizes[l-1] + 1)
	}
	return d
}

// Inputs is p.
func (m MLP) Inputs() int { return m.Sizes[0] }

// Classes is K.
func (m MLP) Classes() int { return m.Sizes[len(m.Sizes)-1] }

// Regularization is λ.
func (m MLP) Regularization() float64 { return m.Lambda }

// Init sets w to the usual random start: W_l entries uniform in ±1/√in_l, biases 0.
func (m MLP) Init(w []float64, uniform func() float64) {
	off := 0
	for l := 1; l < len(m.Sizes); l++ {
		in, out := m.Sizes[l-1], m.Sizes[l]
		r := 1 / math.Sqrt(float64(in))
		for j := range out * in {
			w[off+j] = r * (2*uniform() - 1)
		}
		clear(w[off+out*in : off+out*(in+1)])
		off += out * (in + 1)
	}
}

// layer is the parameter block of layer l (1-based): W (out × in) and b.
func (m MLP) layer(w []float64, l int) (W, b []float64) {
	off := 0
	for k := 1; k < l; k++ {
		off += m.Sizes[k] * (m.Sizes[k-1] + 1)
	}
	in, out := m.Sizes[l-1], m.Sizes[l]
	return w[off : off+out*in], w[off+out*in : off+out*(in+1)]
}

// pass holds one example's activations: a[0] = x, a[l] = tanh(z_l) for hidden layers,
// and the output probabilities.
type pass struct {
	a [][]float64
	z []float64 // output logits
	p []float64 // softmax(z)
}

// affine sets out = W·in + b.
func affine(out, W, b, in []float64) {
	n := len(in)
	for i := range out {
		v := b[i]
		for j, x := range W[i*n : (i+1)*n] {
			v += x * in[j]
		}
		out[i] = v
	}
}

func (m MLP) forward(w, x []float64) pass {
	L := len(m.Sizes) - 1
	ps := pass{a: make([][]float64, L)}
	ps.a[0] = x
	for l := 1; l < L; l++ {
		W, b := m.layer(w, l)
		ps.a[l] = make([]float64, m.Sizes[l])
		affine(ps.a[l], W, b, ps.a[l-1])
		for i, v := range ps.a[l] {
			ps.a[l][i] = math.Tanh(v)
		}
	}
	W, b := m.layer(w, L)
	ps.z, ps.p = make([]float64, m.Classes()), make([]float64, m.Classes())
	affine(ps.z, W, b, ps.a[L-1])
	return ps
}

// Loss is ℓ(w; x, y).
func (m MLP) Loss(w, x []float64, y int) float64 {
	ps := m.forward(w, x)
	return softmax(ps.p, ps.z) - ps.z[y] + m.Lambda/2*sqNorm(w)
}

// backward writes into dst the gradient of the data term for output error g (dℓ/dz_L),
// given the activations; it overwrites g layer by layer.
func (m MLP) backward(dst, w []float64, ps pass, g []float64) {
	m.backwardFrom(dst, w, ps, g, len(m.Sizes)-1)
}

// backwardFrom writes into dst's layers 1 … top the gradient for error g at layer top's
// pre-activation z_top; the layers above are left as they are.
func (m MLP) backwardFrom(dst, w []float64, ps pass, g []float64, top int) {
	for l := top; l >= 1; l-- {
		dW, db := m.layer(dst, l)
		in := ps.a[l-1]
		for i, gi := range g {
			row := dW[i*len(in) : (i+1)*len(in)]
			for j, x := range in {
				row[j] = gi * x
			}
		}
		copy(db, g)
		if l == 1 {
			break
		}
		W, _ := m.layer(w, l)
		prev := make([]float64, len(in))
		for i, gi := range g {
			for j, x := range W[i*len(in) : (i+1)*len(in)] {
				prev[j] += x * gi
			}
		}
		for j, a := range in {
			prev[j] *= 1 - a*a // tanh′ = 1 − tanh²
		}
		g = prev
	}
}

// Gradient sets dst = ∇ℓ(w; x, y) by backpropagation.
func (m MLP) Gradient(dst, w, x []float64, y int) {
	ps := m.forward(w, x)
	softmax(ps.p, ps.z)
	g := append([]float64(nil), ps.p...)
	g[y]--
	m.backward(dst, w, ps, g)
	for j := range dst {
		dst[j] += m.Lambda * w[j]
	}
}

// HVP sets dst = ∇²ℓ(w; x, y)·v by Pearlmutter's R-operator, R{·} = d/dr (·)(w + r v) at
// r = 0: a forward pass carries R{z_l} = V_l a_{l−1} + W_l R{a_{l−1}} + v_{b,l} and
// R{a_l} = (1 − a_l²) ⊙ R{z_l}; the output gives R{g_L} = J_softmax R{z_L}; a backward pass
// carries R{g_{l−1}} = (V_lᵀ g_l + W_lᵀ R{g_l}) ⊙ (1 − a²) − 2 (W_lᵀ g_l) ⊙ a ⊙ R{a}, and
// R{∇_{W_l}} = R{g_l} a_{l−1}ᵀ + g_l R{a_{l−1}}ᵀ, R{∇_{b_l}} = R{g_l}.
func (m MLP) HVP(dst, w, x []float64, y int, v []float64) {
	L := len(m.Sizes) - 1
	ps := m.forward(w, x)
	// forward R pass
	ra := make([][]float64, L) // R{a_l}; R{a_0} = 0
	ra[0] = make([]float64, len(x))
	for l := 1; l < L; l++ {
		ra[l] = m.rz(w, v, l, ps.a[l-1], ra[l-1])
		for i, a := range ps.a[l] {
			ra[l][i] *= 1 - a*a
		}
	}
	rz := m.rz(w, v, L, ps.a[L-1], ra[L-1])
	softmax(ps.p, ps.z)
	rg := make([]float64, len(rz))
	softmaxJVP(rg, ps.p, rz)
	g := append([]float64(nil), ps.p...)
	g[y]--
	// backward pass of g and R{g} together
	for l := L; l >= 1; l-- {
		dW, db := m.layer(dst, l)
		in, rin := ps.a[l-1], ra[l-1]
		for i := range g {
			row := dW[i*len(in) : (i+1)*len(in)]
			for j := range in {
				row[j] = rg[i]*in[j] + g[i]*rin[j]
			}
		}
		copy(db, rg)
		if l == 1 {
			break
		}
		W, _ := m.layer(w, l)
		V, _ := m.layer(v, l)
		wg, vg, wrg := make([]float64, len(in)), make([]float64, len(in)), make([]float64, len(in))
		for i := range g {
			for j := range in {
				wg[j] += W[i*len(in)+j] * g[i]
				vg[j] += V[i*len(in)+j] * g[i]
				wrg[j] += W[i*len(in)+j] * rg[i]
			}
		}
		ng, nrg := make([]float64, len(in)), make([]float64, len(in))
		for j, a := range in {
			s := 1 - a*a
			ng[j] = wg[j] * s
			nrg[j] = (vg[j]+wrg[j])*s - 2*wg[j]*a*rin[j]
		}
		g, rg = ng, nrg
	}
	for j := range dst {
		dst[j] += m.Lambda * v[j]
	}
}

// rz is R{z_l} = V_l a_{l−1} + W_l R{a_{l−1}} + v_{b,l}.
func (m MLP) rz(w, v []float64, l int, a, ra []float64) []float64 {
	W, _ := m.layer(w, l)
	V, vb := m.layer(v, l)
	out := make([]float64, m.Sizes[l])
	affine(out, V, vb, a)
	n := len(a)
	for i := range out {
		for j, x := range W[i*n : (i+1)*n] {
			out[i] += x * ra[j]
		}
	}
	return out
}
