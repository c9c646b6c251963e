package multiclass

import "gonum.org/v1/gonum/floats"

// Linear is ℓ(w; x, y) = (y + 1)·xᵀw on p inputs, with no L2 term: a zero Hessian, so every
// gradient step is the same map and first-order methods such as HF are exact for it — the
// oracle case of their tests. Its Classes is 3 so that labels 0 … 2 weight the rows.
type Linear struct{ P int }

func (l Linear) Name() string                       { return "linear" }
func (l Linear) Dim() int                           { return l.P }
func (l Linear) Inputs() int                        { return l.P }
func (l Linear) Classes() int                       { return 3 }
func (l Linear) Regularization() float64            { return 0 }
func (l Linear) Loss(w, x []float64, y int) float64 { return float64(y+1) * floats.Dot(x, w) }
func (l Linear) Gradient(dst, w, x []float64, y int) {
	for j := range dst {
		dst[j] = float64(y+1) * x[j]
	}
}
func (l Linear) HVP(dst, w, x []float64, y int, v []float64) { clear(dst) }

// LeastSquares is ℓ = ½(wᵀx − y)² + (λ/2)‖w‖², the label read as a number: a constant
// Hessian, so one epoch's final model is affine in the weight of records sharing a batch
// (HF's exactness case I6), and a Newton step from the minimiser is exact.
type LeastSquares struct {
	P      int
	Lambda float64
}

func (l LeastSquares) Name() string            { return "least-squares" }
func (l LeastSquares) Dim() int                { return l.P }
func (l LeastSquares) Inputs() int             { return l.P }
func (l LeastSquares) Classes() int            { return 3 }
func (l LeastSquares) Regularization() float64 { return l.Lambda }
func (l LeastSquares) Loss(w, x []float64, y int) float64 {
	r := floats.Dot(w, x) - float64(y)
	return r*r/2 + l.Lambda/2*floats.Dot(w, w)
}
func (l LeastSquares) Gradient(dst, w, x []float64, y int) {
	r := floats.Dot(w, x) - float64(y)
	for j := range dst {
		dst[j] = r*x[j] + l.Lambda*w[j]
	}
}
func (l LeastSquares) HVP(dst, w, x []float64, y int, v []float64) {
	s := floats.Dot(x, v)
	for j := range dst {
		dst[j] = s*x[j] + l.Lambda*v[j]
	}
}
