package multiclass

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"pgregory.net/rapid"
)

// Full-batch SGD at η = 1/M on λ-strongly convex, M-smooth softmax regression contracts
// toward the minimiser by 1 − ηλ per step (the mean loss: Smoothness gives M): after T
// steps ‖w_T − w*‖ ≤ (1 − ηλ)^T·‖w₀ − w*‖, with w* from Minimize (within its residual/(λn))
// — a theorem's bound, not a tuned tolerance. The batch order does not matter at full
// batch, so the bound holds for any shuffle.
func TestTrainSGDContracts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, data, _ := drawProblem(t)
		maxNorm := 0.0
		for i := range data.Len() {
			maxNorm = math.Max(maxNorm, floats.Norm(data.Row(i), 2))
		}
		eta := 1 / s.Smoothness(maxNorm)
		steps := rapid.IntRange(1, 60).Draw(t, "steps")
		w0 := drawScaled(t, s.Dim(), "w0")
		w, err := Train(context.Background(), s, data, nil, w0, TrainConfig{Epochs: steps, BatchSize: data.Len(), LR: eta}, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		o, _ := NewObjective(s, data, nil, nil)
		opt, err := Minimize(context.Background(), o, nil, MinimizeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		slack := opt.Residual / (s.Lambda * float64(data.Len()))
		lim := math.Pow(1-eta*s.Lambda, float64(steps))*(floats.Distance(w0, opt.W, 2)+slack) + slack + 1e-12
		if dist := floats.Distance(w, opt.W, 2); dist > lim {
			t.Fatalf("after %d steps at η = %v: ‖w − w*‖ = %v > (1 − ηλ)^T·‖w₀ − w*‖ = %v", steps, eta, dist, lim)
		}
	})
}

// The same recipe and random source give the same parameters bit for bit; mini-batches
// visit every row once an epoch, so one epoch of SGD with batch 1 and η tiny moves w by
// η times the sum of every row's gradient to first order.
func TestTrainDeterministicAndCoversRows(t *testing.T) {
	x := mat.NewDense(5, 2, []float64{1, 0, 0, 1, -1, 0, 0, -1, 1, 1})
	data, _ := NewData(x, []int{0, 1, 0, 1, 2}, 3)
	s := Softmax{K: 3, P: 2, Lambda: 0.1}
	c := TrainConfig{Optimizer: Adam, Epochs: 3, BatchSize: 2, LR: 0.01}
	a, err := Train(context.Background(), s, data, nil, make([]float64, s.Dim()), c, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Train(context.Background(), s, data, nil, make([]float64, s.Dim()), c, rand.New(rand.NewPCG(5, 6)))
	if !floats.Equal(a, b) {
		t.Fatal("the same recipe and source gave two models")
	}
	const eta = 1e-7
	w, _ := Train(context.Background(), s, data, nil, make([]float64, s.Dim()), TrainConfig{Epochs: 1, BatchSize: 1, LR: eta}, rand.New(rand.NewPCG(1, 1)))
	sum := make([]float64, s.Dim())
	MeanGradient(s, sum, make([]float64, s.Dim()), make([]float64, s.Dim()), data, nil)
	floats.Scale(-eta*5, sum)
	// second-order terms: η²·n²·M·max‖g‖ ≈ 1e-13
	if dist := floats.Distance(w, sum, 2); dist > 1e-12 {
		t.Fatalf("one epoch of batch-1 SGD moved w by %v, not −η·Σ∇ℓ = %v (gap %v)", w, sum, dist)
	}
}

// Bad recipes are refused before any step, naming the setting; a learning rate that
// diverges says so rather than returning NaN.
func TestTrainRefuses(t *testing.T) {
	x := mat.NewDense(2, 1, []float64{1, -1})
	data, _ := NewData(x, []int{0, 1}, 2)
	s := Softmax{K: 2, P: 1, Lambda: 0.1}
	w0 := make([]float64, s.Dim())
	r := rand.New(rand.NewPCG(1, 1))
	for _, c := range []TrainConfig{{Epochs: 0, BatchSize: 1, LR: 1}, {Epochs: 1, BatchSize: 0, LR: 1}, {Epochs: 1, BatchSize: 1, LR: 0},
		{Epochs: 1, BatchSize: 1, LR: 1, Beta1: 1}} {
		if _, err := Train(context.Background(), s, data, nil, w0, c, r); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if _, err := Train(context.Background(), s, data, []int{}, w0, TrainConfig{Epochs: 1, BatchSize: 1, LR: 1}, r); err == nil {
		t.Error("no rows accepted")
	}
	if _, err := Train(context.Background(), s, data, nil, w0, TrainConfig{Epochs: 50, BatchSize: 2, LR: 1e300}, r); err == nil {
		t.Error("a diverging learning rate returned no error")
	}
}

// adamGolden is PyTorch's full-batch Adam (testdata/make_adam.py).
type adamGolden struct {
	Adam struct {
		X      []float64
		Y      []int
		Lambda float64
		LR     float64
		Steps  int
		Cases  []struct {
			Sizes []int
			W0, W []float64
		}
	}
}

// Train's Adam against torch.optim.Adam itself, full batch from the same start on a
// softmax regression and a tanh MLP: both run the same float64 arithmetic in another
// order, so 40 steps agree to 1e-10 (Adam divides by √v̂ + ε, which can amplify rounding
// where a gradient entry is tiny; measured: 1e-15).
func TestTrainAdamAgainstPyTorch(t *testing.T) {
	g := testenv.ReadGolden[adamGolden](t).Adam
	n := len(g.Y)
	p := len(g.X) / n
	data, err := NewData(mat.NewDense(n, p, g.X), g.Y, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range g.Cases {
		var m Model = Softmax{K: c.Sizes[len(c.Sizes)-1], P: p, Lambda: g.Lambda}
		if len(c.Sizes) > 2 {
			m = MLP{Sizes: c.Sizes, Lambda: g.Lambda}
		}
		w, err := Train(context.Background(), m, data, nil, c.W0, TrainConfig{Optimizer: Adam, Epochs: g.Steps, BatchSize: n, LR: g.LR}, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if dist := floats.Distance(w, c.W, math.Inf(1)); dist > 1e-10 {
			t.Errorf("%s: Adam's parameters differ from PyTorch's by %v (max entry)", m.Name(), dist)
		}
	}
}
