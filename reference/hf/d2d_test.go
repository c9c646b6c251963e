package hf

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"pgregory.net/rapid"
)

// minimiser is the exact minimiser of the mean loss over rows in the ball of radius R:
// projected GD at D2D's own step until a step moves it less than 1e-13 (γ < 1, so the
// iterate is then within 1e-13/(1 − γ) of the fixed point).
func minimiser(t *rapid.T, m multiclass.Model, data *multiclass.Data, rows []int, plan d2d.Plan) []float64 {
	w := make([]float64, m.Dim())
	g, tmp, prev := make([]float64, m.Dim()), make([]float64, m.Dim()), make([]float64, m.Dim())
	for range 200000 {
		copy(prev, w)
		multiclass.MeanGradient(m, g, tmp, w, data, rows)
		floats.AddScaled(w, -plan.StepSize, g)
		reference.ProjectBall(w, plan.Params.Radius)
		if floats.Distance(w, prev, 2) < 1e-13 {
			return w
		}
	}
	t.Skip("minimiser not reached")
	return nil
}

// D2D on softmax keeps Descent-to-Delete's guarantees with reference/d2d's plan for the
// declared constants (SoftmaxD2DParams): the learner within LearnRadius(n) of the exact
// minimiser (Eq. 2), and after every deletion i the secret model within RadiusAt(i) of the
// minimiser on the rows left (Eq. 3). The minimisers are exact to 1e-13/(1 − γ) ≤ 1e-9 at
// the γ drawn here; a request served without its descent misses the radius.
func TestD2DOnSoftmax(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(6, 20).Draw(t, "n")
		p, k := rapid.IntRange(1, 3).Draw(t, "p"), rapid.IntRange(2, 3).Draw(t, "K")
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 1))
		x := mat.NewDense(n, p, nil)
		y := make([]int, n)
		maxNorm := 0.0
		for i := range n {
			for j := range p {
				x.Set(i, j, r.NormFloat64()/math.Sqrt(float64(p)))
			}
			y[i] = r.IntN(k)
			maxNorm = math.Max(maxNorm, mat.Norm(x.RowView(i), 2))
		}
		data, _ := multiclass.NewData(x, y, k)
		s := multiclass.Softmax{K: k, P: p, Lambda: rapid.Float64Range(0.2, 1).Draw(t, "λ")}
		requests := rapid.IntRange(1, n/2).Draw(t, "requests")
		params := SoftmaxD2DParams(s, maxNorm, d2d.Params{N: n, NFloor: n - requests, Dim: s.Dim(),
			Budget: rapid.IntRange(1, 6).Draw(t, "I"), Epsilon: 1, Delta: 1e-3})
		plan, err := d2d.NewPlan(d2d.SecretState, params)
		if err != nil {
			t.Fatal(err)
		}
		if plan.Gamma > 0.99 {
			t.Skip("slow contraction")
		}
		u, err := NewD2D(ctx, s, data, plan, r)
		if err != nil {
			t.Fatal(err)
		}
		rows := seqInts(n)
		if gap := floats.Distance(u.Secret(), minimiser(t, s, data, rows, plan), 2); gap > plan.LearnRadius(n)+1e-9 {
			t.Fatalf("learner %.3g from the minimiser; Eq. 2 allows %.3g", gap, plan.LearnRadius(n))
		}
		order := rapid.Permutation(seqInts(n)).Draw(t, "order")
		for i, row := range order[:requests] {
			if err := u.Delete(ctx, row, r); err != nil {
				t.Fatal(err)
			}
			rows = deleteRow(rows, row)
			if gap := floats.Distance(u.Secret(), minimiser(t, s, data, rows, plan), 2); gap > plan.RadiusAt(i+1)+1e-9 {
				t.Fatalf("after request %d the secret model is %.3g from the minimiser; Eq. 3 allows %.3g", i+1, gap, plan.RadiusAt(i+1))
			}
		}
		if err := u.Delete(ctx, order[0], r); err == nil {
			t.Fatal("a record deleted twice was accepted")
		}
	})
}

func deleteRow(rows []int, row int) []int {
	out := rows[:0:0]
	for _, r := range rows {
		if r != row {
			out = append(out, r)
		}
	}
	return out
}
