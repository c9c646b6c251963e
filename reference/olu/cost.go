package olu

import (
	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// A Cost is one round's convex cost function f_t on R^d. A nil Cost in a stream is the
// paper's skip symbol ⊥: a deleted function replaced in place, on which a learner does not
// move.
type Cost interface {
	// Value is f(z).
	Value(z []float64) float64
	// Gradient sets dst = ∇f(z).
	Gradient(dst, z []float64)
	// Hessian sets dst = ∇²f(z) (Algorithm 3's Newton step and the exact checks use it).
	Hessian(dst *mat.SymDense, z []float64)
}

// Quadratic is f(z) = ½ Σ_j A_j (z_j − C_j)², a separable quadratic with curvatures A_j
// (spec olu §4.1 genQuadSC): its minimiser over a box is the coordinate-wise weighted mean,
// clamped, so every comparator is exact.
type Quadratic struct{ A, C []float64 }

func (q Quadratic) Value(z []float64) float64 {
	v := 0.0
	for j, a := range q.A {
		e := z[j] - q.C[j]
		v += a * e * e
	}
	return v / 2
}

func (q Quadratic) Gradient(dst, z []float64) {
	for j, a := range q.A {
		dst[j] = a * (z[j] - q.C[j])
	}
}

func (q Quadratic) Hessian(dst *mat.SymDense, _ []float64) {
	dst.Zero()
	for j, a := range q.A {
		dst.SetSym(j, j, a)
	}
}

// LeastSquares is f(z) = ½(⟨A, z⟩ − B)²: convex, not strongly convex on its own.
type LeastSquares struct {
	A []float64
	B float64
}

func (l LeastSquares) residual(z []float64) float64 { return dot(l.A, z) - l.B }

func (l LeastSquares) Value(z []float64) float64 {
	r := l.residual(z)
	return r * r / 2
}

func (l LeastSquares) Gradient(dst, z []float64) {
	r := l.residual(z)
	for j, a := range l.A {
		dst[j] = r * a
	}
}

func (l LeastSquares) Hessian(dst *mat.SymDense, _ []float64) {
	for i, a := range l.A {
		for j := i; j < len(l.A); j++ {
			dst.SetSym(i, j, a*l.A[j])
		}
	}
}

// Linear is f(z) = ⟨G, z⟩ + Offset. With no projection, online gradient descent on linear
// costs is a translation, so its noisy outputs are exactly Gaussian (spec olu §4.1
// genLinear): the exact check of several deletions at once.
type Linear struct {
	G      []float64
	Offset float64
}

func (l Linear) Value(z []float64) float64              { return dot(l.G, z) + l.Offset }
func (l Linear) Gradient(dst, _ []float64)              { copy(dst, l.G) }
func (l Linear) Hessian(dst *mat.SymDense, _ []float64) { dst.Zero() }

// Example is one labelled record under one of the toolkit's losses: f(z) = ℓ(z; x, y) with
// reference.Logistic (labels ±1) or reference.Ridge, L2 weight included, unclipped. It is
// the per-round loss of a stream built from a dataset's rows.
type Example struct {
	Loss reference.Loss // reference.Logistic or reference.Ridge, Clip 0
	X    []float64
	Y    float64
}

func (e Example) Value(z []float64) float64 { return e.Loss.ExampleLoss(z, e.X, e.Y) }
func (e Example) Gradient(dst, z []float64) { e.Loss.ExampleGradient(dst, z, e.X, e.Y) }

// Hessian is φ”(xᵀz)·xxᵀ + λI, with φ” = s(1 − s), s = 1/(1 + e^{−y xᵀz}), for the
// logistic loss and 1 for ridge.
func (e Example) Hessian(dst *mat.SymDense, z []float64) {
	var curv float64
	switch e.Loss.(type) {
	case reference.Logistic:
		s := 1 / (1 + fexp.Exp(-e.Y*dot(e.X, z)))
		curv = s * (1 - s)
	case reference.Ridge:
		curv = 1
	default:
		panic("olu: Example.Hessian needs reference.Logistic or reference.Ridge")
	}
	lambda := e.Loss.Regularization()
	for i, a := range e.X {
		for j := i; j < len(e.X); j++ {
			v := curv * a * e.X[j]
			if i == j {
				v += lambda
			}
			dst.SetSym(i, j, v)
		}
	}
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
