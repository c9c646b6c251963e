package multiclass

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
)

// Optimizer is Train's update rule.
type Optimizer int

const (
	// SGD is w ← w − η·g on each mini-batch's mean gradient g.
	SGD Optimizer = iota
	// Adam is Kingma and Ba's update with bias-corrected moments (PyTorch's defaults;
	// its weight decay is the model's L2 term, which is in g).
	Adam
)

func (o Optimizer) String() string {
	if o == Adam {
		return "Adam"
	}
	return "SGD"
}

// TrainConfig is a mini-batch training recipe. Every epoch draws a fresh order of the rows
// from the random source, so the same source gives the same run.
type TrainConfig struct {
	Optimizer         Optimizer
	Epochs, BatchSize int
	LR                float64
	// Adam's moment decays and ε; 0 means 0.9, 0.999 and 1e-8.
	Beta1, Beta2, Eps float64
}

// Check reports a recipe that cannot run.
func (c TrainConfig) Check() error {
	switch {
	case c.Epochs < 1:
		return fmt.Errorf("train: %d epochs; want at least 1", c.Epochs)
	case c.BatchSize < 1:
		return fmt.Errorf("train: batch size %d; want at least 1", c.BatchSize)
	case !(c.LR > 0) || math.IsInf(c.LR, 0):
		return fmt.Errorf("train: learning rate %v; want a positive number", c.LR)
	case c.Beta1 < 0 || c.Beta1 >= 1 || c.Beta2 < 0 || c.Beta2 >= 1 || c.Eps < 0:
		return fmt.Errorf("train: Adam's β₁ = %v, β₂ = %v, ε = %v; want β in [0, 1) and ε ≥ 0", c.Beta1, c.Beta2, c.Eps)
	}
	return nil
}

// Train runs the recipe on the rows of data (every row when nil) from w0 (copied) and
// returns the final parameters. Each step uses the mean gradient of the model's loss —
// its L2 term included — over a mini-batch; Softmax evaluates it through a Batch.
func Train(ctx context.Context, m Model, data *Data, rows []int, w0 []float64, c TrainConfig, r *rand.Rand) ([]float64, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if len(w0) != m.Dim() {
		return nil, fmt.Errorf("train: w0 has %d entries, the model %d parameters", len(w0), m.Dim())
	}
	if rows == nil {
		rows = make([]int, data.Len())
		for i := range rows {
			rows[i] = i
		}
	}
	if len(rows) == 0 {
		return nil, errors.New("train: no rows to train on")
	}
	b1, b2, eps := c.Beta1, c.Beta2, c.Eps
	if b1 == 0 {
		b1 = 0.9
	}
	if b2 == 0 {
		b2 = 0.999
	}
	if eps == 0 {
		eps = 1e-8
	}
	d := m.Dim()
	w := slices.Clone(w0)
	g, tmp := make([]float64, d), make([]float64, d)
	var mom, vel []float64
	if c.Optimizer == Adam {
		mom, vel = make([]float64, d), make([]float64, d)
	}
	sm, isSoftmax := m.(Softmax)
	var batch *Batch
	var xb []float64
	var yb []int
	if isSoftmax {
		batch = sm.NewBatch(c.BatchSize)
		xb, yb = make([]float64, c.BatchSize*sm.P), make([]int, c.BatchSize)
	}
	order := slices.Clone(rows)
	step := 0
	for range c.Epochs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for start := 0; start < len(order); start += c.BatchSize {
			part := order[start:min(start+c.BatchSize, len(order))]
			if isSoftmax {
				for k, i := range part {
					copy(xb[k*sm.P:(k+1)*sm.P], data.Row(i))
					yb[k] = data.Y[i]
				}
				batch.Gradient(g, w, blas64.General{Rows: len(part), Cols: sm.P, Stride: sm.P, Data: xb[:len(part)*sm.P]}, yb[:len(part)])
			} else {
				MeanGradient(m, g, tmp, w, data, part)
			}
			step++
			if c.Optimizer == SGD {
				floats.AddScaled(w, -c.LR, g)
				continue
			}
			c1, c2 := 1-fexp.Pow(b1, float64(step)), 1-fexp.Pow(b2, float64(step))
			for j, gj := range g {
				mom[j] = b1*mom[j] + (1-b1)*gj
				vel[j] = b2*vel[j] + (1-b2)*gj*gj
				w[j] -= c.LR * (mom[j] / c1) / (math.Sqrt(vel[j]/c2) + eps)
			}
		}
	}
	for _, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("train: the parameters diverged (%v) at learning rate %v; lower it", v, c.LR)
		}
	}
	return w, nil
}

// Predict is the class of the largest logit.
func Predict(m Network, w, x []float64, z []float64) int {
	m.Logits(z, w, x)
	best := 0
	for k, v := range z {
		if v > z[best] {
			best = k
		}
	}
	return best
}

// Accuracy is the share of the rows (every row when nil) whose largest logit is their
// label; NaN for no rows.
func Accuracy(m Network, w []float64, data *Data, rows []int) float64 {
	z := make([]float64, m.Classes())
	right, n := 0, 0
	each(data, rows, func(i int) {
		if Predict(m, w, data.Row(i), z) == data.Y[i] {
			right++
		}
		n++
	})
	if n == 0 {
		return math.NaN()
	}
	return float64(right) / float64(n)
}

// Probabilities sets p to softmax of the example's logits.
func Probabilities(m Network, p, w, x []float64) {
	z := make([]float64, len(p))
	m.Logits(z, w, x)
	softmax(p, z)
}
