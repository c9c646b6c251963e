package multiclass

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// Softmax is multinomial logistic regression with L2 weight Lambda on every parameter:
// logits z = Wx + b for W ∈ R^{K×p}, b ∈ R^K, so Dim = K(p + 1) (7850 for MNIST). The flat
// parameter vector holds W row by row, then b. Per example, with π = softmax(z) and e_y
// the one-hot label (spec hf §2.3):
//
//	ℓ   = log Σ_k exp z_k − z_y + (λ/2)(‖W‖² + ‖b‖²)
//	∇_W = (π − e_y) xᵀ + λW,  ∇_b = π − e_y + λb
//	H(V, v_b) = (δπ xᵀ + λV, δπ + λv_b),  δz = Vx + v_b,  δπ = π ⊙ δz − π (πᵀδz)
//
// It is λ-strongly convex, and M-smooth with M ≤ ½(‖x‖² + 1) + λ.
type Softmax struct {
	K, P   int     // classes and input features
	Lambda float64 // L2 weight λ
}

// Name is "softmax(K=10, p=784, λ=0.5)".
func (s Softmax) Name() string { return fmt.Sprintf("softmax(K=%d, p=%d, λ=%g)", s.K, s.P, s.Lambda) }

// Dim is K(p + 1).
func (s Softmax) Dim() int { return s.K * (s.P + 1) }

// Inputs is p.
func (s Softmax) Inputs() int { return s.P }

// Classes is K.
func (s Softmax) Classes() int { return s.K }

// Regularization is λ.
func (s Softmax) Regularization() float64 { return s.Lambda }

// Smoothness is the bound ½(‖x‖²max + 1) + λ on the largest Hessian eigenvalue over rows
// of norm at most maxNorm: diag(π) − ππᵀ has eigenvalues ≤ ½, and the bias adds 1 to ‖x‖².
func (s Softmax) Smoothness(maxNorm float64) float64 { return 0.5*(maxNorm*maxNorm+1) + s.Lambda }

// logits sets z = Wx + b.
func (s Softmax) logits(z, w, x []float64) {
	b := w[s.K*s.P:]
	for k := range s.K {
		z[k] = b[k] + floats.Dot(w[k*s.P:(k+1)*s.P], x)
	}
}

// scratchClasses is the most classes whose per-example scratch lives on the stack: the
// per-example methods run once per record per step in HF's stages, and should not
// allocate there.
const scratchClasses = 16

// scratch returns four K-long vectors, in buf when K ≤ scratchClasses.
func (s Softmax) scratch(buf *[4 * scratchClasses]float64) (a, b, c, d []float64) {
	v := buf[:]
	if s.K > scratchClasses {
		v = make([]float64, 4*s.K)
	}
	k := s.K
	return v[:k], v[k : 2*k], v[2*k : 3*k], v[3*k : 4*k]
}

// Loss is ℓ(w; x, y).
func (s Softmax) Loss(w, x []float64, y int) float64 {
	var buf [4 * scratchClasses]float64
	z, p, _, _ := s.scratch(&buf)
	s.logits(z, w, x)
	return softmax(p, z) - z[y] + s.Lambda/2*sqNorm(w)
}

// Gradient sets dst = ∇ℓ(w; x, y).
func (s Softmax) Gradient(dst, w, x []float64, y int) {
	var buf [4 * scratchClasses]float64
	z, p, _, _ := s.scratch(&buf)
	s.logits(z, w, x)
	softmax(p, z)
	p[y]--
	s.outer(dst, p, x)
	for j := range dst {
		dst[j] += s.Lambda * w[j]
	}
}

// outer sets dst's W block to g xᵀ and its b block to g.
func (s Softmax) outer(dst, g, x []float64) {
	for k := range s.K {
		row := dst[k*s.P : (k+1)*s.P]
		for j, xj := range x {
			row[j] = g[k] * xj
		}
	}
	copy(dst[s.K*s.P:], g)
}

// HVP sets dst = ∇²ℓ(w; x, y)·v (the label does not enter the Hessian).
func (s Softmax) HVP(dst, w, x []float64, _ int, v []float64) {
	var buf [4 * scratchClasses]float64
	z, p, dz, dp := s.scratch(&buf)
	s.logits(z, w, x)
	softmax(p, z)
	s.logits(dz, v, x) // δz = Vx + v_b: the logits map is linear in the parameters
	softmaxJVP(dp, p, dz)
	s.outer(dst, dp, x)
	for j := range dst {
		dst[j] += s.Lambda * v[j]
	}
}

// Hessian is the explicit Dim × Dim Hessian of one example, row-major: the check the
// Hessian-free products are held to (and the second-order baselines' matrix). With
// x̃ = (x, 1) it is (diag(π) − ππᵀ) ⊗ x̃x̃ᵀ + λI, laid out as the parameters are.
func (s Softmax) Hessian(w, x []float64) []float64 {
	d := s.Dim()
	z, p := make([]float64, s.K), make([]float64, s.K)
	s.logits(z, w, x)
	softmax(p, z)
	idx := func(k, j int) int { // parameter of class k, input j (j = P is the bias)
		if j == s.P {
			return s.K*s.P + k
		}
		return k*s.P + j
	}
	xt := func(j int) float64 {
		if j == s.P {
			return 1
		}
		return x[j]
	}
	h := make([]float64, d*d)
	for k := range s.K {
		for l := range s.K {
			c := -p[k] * p[l]
			if k == l {
				c += p[k]
			}
			for i := 0; i <= s.P; i++ {
				for j := 0; j <= s.P; j++ {
					h[idx(k, i)*d+idx(l, j)] = c * (xt(i) * xt(j)) // exactly symmetric
				}
			}
		}
	}
	for i := range d {
		h[i*d+i] += s.Lambda
	}
	return h
}

// A Batch evaluates Softmax's mean gradient and Hessian–vector product over a block of
// rows in one pass: each row is read once, while it sits in cache, for its K logits (and
// their directional derivatives), then added into the K output rows. W (K × p, 62 KB for
// MNIST) stays in cache throughout, so the cost is one stream of the block plus 2–4·p·K
// flops a row, and nothing is allocated.
type Batch struct {
	s              Softmax
	z, p, dz, g, u []float64 // K each
	// Linearize's state: the rows and their probabilities at the point, for HVPAt
	at    blas64.General
	probs []float64
}

// NewBatch makes a Batch. The rows argument is kept for callers that size scratch by
// block; the fused pass needs only K-long scratch.
func (s Softmax) NewBatch(rows int) *Batch {
	k := s.K
	return &Batch{s: s, z: make([]float64, k), p: make([]float64, k), dz: make([]float64, k), g: make([]float64, k), u: make([]float64, k)}
}

// Gradient sets dst to the mean gradient over the rows of x (n × p) labelled y, and
// returns the mean loss.
func (b *Batch) Gradient(dst, w []float64, x blas64.General, y []int) float64 {
	s := b.s
	n := x.Rows
	clear(dst)
	loss := 0.0
	for i := range n {
		row := x.Data[i*x.Stride : i*x.Stride+s.P]
		s.logits(b.z, w, row)
		loss += softmax(b.g, b.z) - b.z[y[i]]
		b.g[y[i]]--
		s.addOuter(dst, b.g, row)
	}
	b.finish(dst, w, n)
	return loss/float64(n) + s.Lambda/2*sqNorm(w)
}

// HVP sets dst to the mean Hessian–vector product over the rows of x (n × p).
func (b *Batch) HVP(dst, w []float64, x blas64.General, v []float64) {
	s := b.s
	n := x.Rows
	clear(dst)
	for i := range n {
		row := x.Data[i*x.Stride : i*x.Stride+s.P]
		s.logits(b.z, w, row)
		softmax(b.p, b.z)
		s.logits(b.dz, v, row)
		softmaxJVP(b.g, b.p, b.dz)
		s.addOuter(dst, b.g, row)
	}
	b.finish(dst, v, n)
}

// Linearize fixes the point w and the rows of x (n × p, kept, not copied) at which HVPAt
// applies the mean Hessian: their probabilities are computed once, so that many vectors
// — HF's statistics, which all pass through the same step's map — cost only their own
// directional logits each.
func (b *Batch) Linearize(w []float64, x blas64.General) {
	s := b.s
	b.at = x
	if need := x.Rows * s.K; cap(b.probs) < need {
		b.probs = make([]float64, need)
	}
	b.probs = b.probs[:x.Rows*s.K]
	for i := range x.Rows {
		s.logits(b.z, w, x.Data[i*x.Stride:i*x.Stride+s.P])
		softmax(b.probs[i*s.K:(i+1)*s.K], b.z)
	}
}

// HVPAt sets dst to the mean Hessian–vector product at Linearize's point and rows: the
// same as HVP there, without recomputing the probabilities.
func (b *Batch) HVPAt(dst, v []float64) {
	s, x := b.s, b.at
	clear(dst)
	for i := range x.Rows {
		row := x.Data[i*x.Stride : i*x.Stride+s.P]
		s.logits(b.dz, v, row)
		softmaxJVP(b.g, b.probs[i*s.K:(i+1)*s.K], b.dz)
		s.addOuter(dst, b.g, row)
	}
	b.finish(dst, v, x.Rows)
}

// finish divides the sums by n and adds λ·reg.
func (b *Batch) finish(dst, reg []float64, n int) {
	inv := 1 / float64(n)
	for j := range dst {
		dst[j] = dst[j]*inv + b.s.Lambda*reg[j]
	}
}

// addOuter adds g xᵀ to dst's W block and g to its b block.
func (s Softmax) addOuter(dst, g, x []float64) {
	for k, gk := range g {
		floats.AddScaled(dst[k*s.P:(k+1)*s.P], gk, x)
	}
	floats.Add(dst[s.K*s.P:], g)
}

// AddHessianSum adds Σ_i ∇²ℓ(w; x_i) over the rows of x (n × p), λI terms included, to
// dst (Dim × Dim, row-major, laid out as the parameters are): the matrix the second-order
// baselines factorise. Block (k, l) is X̃ᵀ diag(π_k δ_kl − π_k π_l) X̃ with X̃ = (X, 1), so
// the sum costs K(K+1)/2 matrix products of n × (p+1) panels — 4e9 flops at n = 1000,
// p = 196, K = 10 — instead of n explicit Dim² Hessians.
func (s Softmax) AddHessianSum(dst, w []float64, x blas64.General) {
	n, p1, d := x.Rows, s.P+1, s.Dim()
	if n == 0 {
		return
	}
	xt := make([]float64, n*p1) // X̃, bias column last
	probs := make([]float64, n*s.K)
	z := make([]float64, s.K)
	for i := range n {
		row := x.Data[i*x.Stride : i*x.Stride+s.P]
		copy(xt[i*p1:], row)
		xt[i*p1+s.P] = 1
		s.logits(z, w, row)
		softmax(probs[i*s.K:(i+1)*s.K], z)
	}
	xg := blas64.General{Rows: n, Cols: p1, Stride: p1, Data: xt}
	scaled := blas64.General{Rows: n, Cols: p1, Stride: p1, Data: make([]float64, n*p1)}
	block := blas64.General{Rows: p1, Cols: p1, Stride: p1, Data: make([]float64, p1*p1)}
	idx := func(k, j int) int { // parameter of class k, input j (j = P is the bias)
		if j == s.P {
			return s.K*s.P + k
		}
		return k*s.P + j
	}
	for k := range s.K {
		for l := k; l < s.K; l++ {
			for i := range n {
				pi := probs[i*s.K : (i+1)*s.K]
				c := -pi[k] * pi[l]
				if k == l {
					c += pi[k]
				}
				for j := range p1 {
					scaled.Data[i*p1+j] = c * xt[i*p1+j]
				}
			}
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, xg, scaled, 0, block)
			for a := range p1 {
				for b := range p1 {
					v := block.Data[a*p1+b]
					dst[idx(k, a)*d+idx(l, b)] += v
					if k != l {
						dst[idx(l, b)*d+idx(k, a)] += v
					}
				}
			}
		}
	}
	for i := range d {
		dst[i*d+i] += float64(n) * s.Lambda
	}
}
