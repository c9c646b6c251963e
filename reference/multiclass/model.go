package multiclass

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
)

// A Model is a K-class classifier's per-example loss over one flat parameter vector:
// cross-entropy of the softmax of its logits plus (λ/2)‖w‖² over every parameter (biases
// included, as the HF paper's code does), with its exact gradient and exact
// Hessian–vector product. Labels are 0 … K−1.
type Model interface {
	// Name identifies the model in reports, e.g. "softmax(K=10, p=784, λ=0.5)".
	Name() string
	// Dim is the number of parameters; Inputs and Classes the shape it maps.
	Dim() int
	Inputs() int
	Classes() int
	// Regularization is λ.
	Regularization() float64
	// Loss, Gradient and HVP evaluate one example: ℓ(w; x, y), dst = ∇ℓ and dst = ∇²ℓ·v.
	// dst has Dim entries and may not alias w or v.
	Loss(w, x []float64, y int) float64
	Gradient(dst, w, x []float64, y int)
	HVP(dst, w, x []float64, y int, v []float64)
}

// Data are the rows a Model trains on: features n × p and labels in 0 … K−1.
type Data struct {
	X *mat.Dense
	Y []int
}

// NewData checks that the labels are classes of a K-class model and pairs them with x.
func NewData(x *mat.Dense, y []int, classes int) (*Data, error) {
	n, _ := x.Dims()
	if len(y) != n {
		return nil, fmt.Errorf("multiclass data: %d rows and %d labels", n, len(y))
	}
	for i, c := range y {
		if c < 0 || c >= classes {
			return nil, fmt.Errorf("multiclass data: row %d has label %d; want 0 … %d", i, c, classes-1)
		}
	}
	return &Data{X: x, Y: y}, nil
}

// Len is the number of rows.
func (d *Data) Len() int { return len(d.Y) }

// Row is row i's features (a view).
func (d *Data) Row(i int) []float64 { return d.X.RawRowView(i) }

// MeanLoss is (1/|rows|) Σ ℓ(w; row) over rows (every row when rows is nil).
func MeanLoss(m Model, w []float64, d *Data, rows []int) float64 {
	s, n := 0.0, 0
	each(d, rows, func(i int) {
		s += m.Loss(w, d.Row(i), d.Y[i])
		n++
	})
	return s / float64(n)
}

// MeanGradient sets dst to (1/|rows|) Σ ∇ℓ(w; row); tmp is scratch of Dim entries. A
// model with a faster batch form (Softmax) is better called through it.
func MeanGradient(m Model, dst, tmp, w []float64, d *Data, rows []int) {
	clear(dst)
	n := 0
	each(d, rows, func(i int) {
		m.Gradient(tmp, w, d.Row(i), d.Y[i])
		for j, g := range tmp {
			dst[j] += g
		}
		n++
	})
	scale(dst, 1/float64(n))
}

// MeanHVP sets dst to (1/|rows|) Σ ∇²ℓ(w; row)·v; tmp is scratch of Dim entries.
func MeanHVP(m Model, dst, tmp, w []float64, d *Data, rows []int, v []float64) {
	clear(dst)
	n := 0
	each(d, rows, func(i int) {
		m.HVP(tmp, w, d.Row(i), d.Y[i], v)
		for j, g := range tmp {
			dst[j] += g
		}
		n++
	})
	scale(dst, 1/float64(n))
}

func each(d *Data, rows []int, f func(int)) {
	if rows == nil {
		for i := range d.Len() {
			f(i)
		}
		return
	}
	for _, i := range rows {
		f(i)
	}
}

func scale(v []float64, c float64) {
	for i := range v {
		v[i] *= c
	}
}

// softmax writes the probabilities of logits z into p and returns log Σ exp z, computed
// from the largest logit so that neither overflows.
func softmax(p, z []float64) (logSumExp float64) {
	top := math.Inf(-1)
	for _, v := range z {
		top = math.Max(top, v)
	}
	s := 0.0
	for k, v := range z {
		p[k] = fexp.Exp(v - top)
		s += p[k]
	}
	for k := range p {
		p[k] /= s
	}
	return top + math.Log(s)
}

// LogOdds is log p_y − log Σ_{k≠y} p_k, the log-odds of class y under m at x (LiRA's
// logit-scaled confidence), from the logits: z_y − LogSumExp of the others. It stays
// accurate however confident the model, where log p − log(1 − p) from the loss less its L2
// term cancels to rounding. z is scratch of Classes entries, overwritten.
func LogOdds(m Network, w, x []float64, y int, z []float64) float64 {
	m.Logits(z, w, x)
	zy := z[y]
	z[y] = math.Inf(-1) // out of the sum: e^(−∞) adds 0
	return zy - LogSumExp(z)
}

// LogSumExp is log Σ_k e^{z_k}, the sum shifted by its largest term so that no term
// overflows and the largest is exact; −Inf if every z_k is (an empty sum) and +Inf if one
// is, where the shift would give NaN.
func LogSumExp(z []float64) float64 {
	top := math.Inf(-1)
	for _, v := range z {
		top = math.Max(top, v)
	}
	if math.IsInf(top, 0) {
		return top
	}
	s := 0.0
	for _, v := range z {
		s += fexp.Exp(v - top)
	}
	return top + math.Log(s)
}

// softmaxJVP sets dp = J_softmax·dz = π ⊙ dz − π (πᵀdz): how the probabilities move when
// the logits move by dz.
func softmaxJVP(dp, p, dz []float64) {
	dot := 0.0
	for k := range p {
		dot += p[k] * dz[k]
	}
	for k := range p {
		dp[k] = p[k] * (dz[k] - dot)
	}
}

func sqNorm(w []float64) float64 {
	s := 0.0
	for _, v := range w {
		s += v * v
	}
	return s
}
