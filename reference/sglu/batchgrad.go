package sglu

import (
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/ensemble"
	"gonum.org/v1/gonum/blas/blas64"
)

// A batchObjective is one batch's objective as the Model steps on it. For logistic
// regression without clipping (the SGLU paper's loss) its gradient is
// ensemble.LogisticGradientOne: one pass over the batch's rows, each read from memory once
// (margins, derivatives and terms four rows at a time while they are in L1), where the
// Objective's takes two (margins row by row, then a BLAS product over the block). The two
// differ only by rounding (within ensemble.RoundingBound). Other losses use the Objective.
type batchObjective struct {
	*reference.Objective
	x, y   []float64 // the batch's rows (stride d) and labels, when the kernel applies
	m, d   int
	lambda float64
}

// newBatchObjective wraps obj, the objective of rows lo..hi of the slot-ordered matrix r
// (labels from obj's dataset).
func newBatchObjective(obj *reference.Objective, loss reference.Loss, r blas64.General, lo, hi int) *batchObjective {
	b := &batchObjective{Objective: obj}
	if lg, ok := loss.(reference.Logistic); ok && !(lg.Clip > 0) && r.Stride == r.Cols {
		b.x, b.y = r.Data[lo*r.Stride:hi*r.Stride], obj.Data().Labels()
		b.m, b.d, b.lambda = hi-lo, r.Cols, lg.Lambda
	}
	return b
}

// Gradient sets dst = ∇f_B(θ), the batch's mean gradient plus λθ.
func (b *batchObjective) Gradient(dst, theta []float64) {
	if b.x == nil {
		b.Objective.Gradient(dst, theta)
		return
	}
	ensemble.LogisticGradientOne(dst, b.x, b.y, theta, b.m, b.d, b.lambda)
}
