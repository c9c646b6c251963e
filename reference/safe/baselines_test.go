package safe

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference/hf"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/floats"
)

func streamOf(seed uint64) func(int) *rand.Rand {
	return func(round int) *rand.Rand { return rand.New(rand.NewPCG(seed, uint64(round))) }
}

// Every baseline refuses a record deleted before with ErrAlreadyDeleted and deleting every
// record left, and serves a duplicate once.
func TestBaselinesRefuseRepeats(t *testing.T) {
	pr := fixedProblem(t)
	ctx := context.Background()
	recipe := Recipe{Model: pr.m, Exact: true}
	d2dSub, err := NewD2D(pr.m, pr.data, pr.w0, 2, 1, 1e-5, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Streamer{
		NewRetrain(recipe, pr.data, streamOf(1)),
		NewUnroll(pr.m, pr.w0, make([]float64, pr.m.Dim()), 0.1, pr.data.Len()),
		NewCaMU(pr.m, pr.data, pr.w0, CaMUConfig{Epochs: 1, ImpairLR: 1e-3, KLLR: 1e-3, BatchSize: 8, NoiseScale: 1, RestartFromOrigin: true}, rand.New(rand.NewPCG(2, 2))),
		NewNewton(pr.m, pr.data, pr.w0, NewtonConfig{Fraction: 1}, rand.New(rand.NewPCG(3, 3))),
		d2dSub,
	} {
		if _, err := s.Round(ctx, RequestOf(pr.data, []int{4, 4, 9})); err != nil {
			t.Fatalf("%s: %v", s.Name(), err)
		}
		if _, err := s.Round(ctx, RequestOf(pr.data, []int{9})); !errors.Is(err, ErrAlreadyDeleted) && !errors.Is(err, hf.ErrAlreadyDeleted) {
			t.Errorf("%s: row 9 again: %v", s.Name(), err)
		}
		all := make([]int, 0, pr.data.Len())
		for i := range pr.data.Len() {
			if i != 4 && i != 9 {
				all = append(all, i)
			}
		}
		if _, err := s.Round(ctx, RequestOf(pr.data, all)); err == nil {
			t.Errorf("%s: deleting every record left accepted", s.Name())
		}
	}
}

// Retrain is the recipe fitted on the records left with the round's stream — bit for bit
// — and, exact, the minimiser of the loss over them (an independent gradient below
// 1e-10 per record).
func TestRetrainIsTheRecipe(t *testing.T) {
	pr := fixedProblem(t)
	ctx := context.Background()
	for _, recipe := range []Recipe{{Model: pr.m, Exact: true},
		{Model: pr.m, Train: multiclass.TrainConfig{Optimizer: multiclass.Adam, Epochs: 3, BatchSize: 16, LR: 0.01}}} {
		s := NewRetrain(recipe, pr.data, streamOf(7))
		w, err := s.Round(ctx, RequestOf(pr.data, []int{1, 2}))
		if err != nil {
			t.Fatal(err)
		}
		rows := remaining(pr.data.Len(), []int{1, 2})
		want, err := recipe.Fit(ctx, pr.data, rows, streamOf(7)(1))
		if err != nil || !floats.Equal(w, want) {
			t.Errorf("exact %v: the round's model is not the recipe's (%v)", recipe.Exact, err)
		}
		if recipe.Exact {
			g, tmp := make([]float64, pr.m.Dim()), make([]float64, pr.m.Dim())
			multiclass.MeanGradient(pr.m, g, tmp, w, pr.data, rows)
			if n := floats.Norm(g, 2); n > 1e-10 {
				t.Errorf("the exact retrain's mean gradient is %v", n)
			}
		}
	}
}

// Unroll adds η times the deleted records' gradients at the initial weights, and nothing
// else: after two rounds the model is w₀ + η·Σ_{F≤2}∇ℓ(w_init) to rounding.
func TestUnrollAddsTheGradients(t *testing.T) {
	pr := fixedProblem(t)
	ctx := context.Background()
	wInit := make([]float64, pr.m.Dim())
	for j := range wInit {
		wInit[j] = 0.01 * float64(j)
	}
	s := NewUnroll(pr.m, pr.w0, wInit, 0.05, pr.data.Len())
	var w []float64
	for _, req := range [][]int{{3, 8}, {11}} {
		var err error
		if w, err = s.Round(ctx, RequestOf(pr.data, req)); err != nil {
			t.Fatal(err)
		}
	}
	want, tmp := slices.Clone(pr.w0), make([]float64, pr.m.Dim())
	for _, r := range []int{3, 8, 11} {
		pr.m.Gradient(tmp, wInit, pr.data.Row(r), pr.data.Y[r])
		floats.AddScaled(want, 0.05, tmp)
	}
	if !floats.EqualApprox(w, want, 1e-15) {
		t.Errorf("unroll %v, w₀ + η·Σ∇ℓ(w_init) = %v", w, want)
	}
}

// The Newton baseline on every parameter, from the exact minimiser, is Guo et al.'s
// removal without its perturbation: the two implementations (safe's masked conjugate
// gradients, hf's Guo) agree to their solvers' tolerance (1e-12 relative each, on a
// step of norm about 1: 1e-9 with margin); with a fraction of the parameters it moves
// only those.
func TestNewtonIsGuosStep(t *testing.T) {
	pr := fixedProblem(t)
	ctx := context.Background()
	s := NewNewton(pr.m, pr.data, pr.w0, NewtonConfig{Fraction: 1, Tol: 1e-12}, rand.New(rand.NewPCG(1, 1)))
	w, err := s.Round(ctx, RequestOf(pr.data, []int{0, 5, 6}))
	if err != nil {
		t.Fatal(err)
	}
	g, err := hf.NewGuo(ctx, hf.GuoConfig{Model: pr.m, Sigma: 1, Epsilon: 1e12, Delta: 1e-4, Initial: make([]float64, pr.m.Dim())}, pr.data, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Delete(ctx, 0, 5, 6); err != nil {
		t.Fatal(err)
	}
	if d := floats.Distance(w, g.Model(), 2); d > 1e-9 {
		t.Errorf("Newton and Guo's step differ by %v", d)
	}
	part := NewNewton(pr.m, pr.data, pr.w0, NewtonConfig{Fraction: 0.25, Damping: 1e-3}, rand.New(rand.NewPCG(1, 1)))
	wp, err := part.Round(ctx, RequestOf(pr.data, []int{0, 5, 6}))
	if err != nil {
		t.Fatal(err)
	}
	moved := 0
	for j := range wp {
		if wp[j] != pr.w0[j] {
			moved++
		}
	}
	if want := int(math.Ceil(0.25 * float64(pr.m.Dim()))); moved > want || moved == 0 {
		t.Errorf("a quarter of the parameters: %d moved; want 1 … %d", moved, want)
	}
}

// CaMU without steps leaves the model as it was; on softmax regression its embedding step
// has no gradient, so with the impair step's rate and the weight decay at 0 nothing moves
// either, while on an MLP the embedding step moves it; the same source gives the same run.
func TestCaMUSteps(t *testing.T) {
	pr := fixedProblem(t)
	ctx := context.Background()
	req := RequestOf(pr.data, []int{2, 3, 4})
	still := NewCaMU(pr.m, pr.data, pr.w0, CaMUConfig{Epochs: 3, KLLR: 0.1, BatchSize: 2, NoiseScale: 1, RestartFromOrigin: true}, rand.New(rand.NewPCG(1, 1)))
	if w, err := still.Round(ctx, req); err != nil || !floats.Equal(w, pr.w0) {
		t.Errorf("softmax, impair rate 0: %v, moved %v", err, floats.Distance(w, pr.w0, 2))
	}
	mlp := multiclass.MLP{Sizes: []int{4, 5, 3}, Lambda: 0.01}
	w0 := make([]float64, mlp.Dim())
	r := rand.New(rand.NewPCG(5, 5))
	mlp.Init(w0, r.Float64)
	run := func() []float64 {
		c := NewCaMU(mlp, pr.data, w0, CaMUConfig{Epochs: 3, KLLR: 0.1, BatchSize: 2, NoiseScale: 1, RestartFromOrigin: true}, rand.New(rand.NewPCG(1, 1)))
		w, err := c.Round(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	a, b := run(), run()
	if floats.Equal(a, w0) || !floats.Equal(a, b) {
		t.Errorf("MLP: moved %v; the same source twice differs by %v", floats.Distance(a, w0, 2), floats.Distance(a, b, 2))
	}
}

// The streams: random rounds are disjoint and of the asked size; a class stream takes the
// whole class, and only it, over its rounds.
func TestStreams(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	s, err := RandomStream(50, 4, 10, r)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, req := range s {
		if len(req) != 10 {
			t.Fatalf("a round of %d", len(req))
		}
		for _, i := range req {
			if seen[i] {
				t.Fatalf("row %d twice", i)
			}
			seen[i] = true
		}
	}
	if _, err := RandomStream(50, 5, 10, r); err == nil {
		t.Error("deleting all 50 rows accepted")
	}
	labels := []int{0, 1, 0, 2, 0, 1, 0, 0, 2}
	cs, err := ClassStream(labels, 0, 3, r)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, req := range cs {
		got = append(got, req...)
	}
	slices.Sort(got)
	if !slices.Equal(got, []int{0, 2, 4, 6, 7}) {
		t.Errorf("class 0 stream took %v", got)
	}
	if _, err := ClassStream(labels, 2, 3, r); err == nil {
		t.Error("3 rounds for a class of 2 accepted")
	}
}
