package hf

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/floats"
	"pgregory.net/rapid"
)

// clipped relearns an instance with the batch gradient clipped at a fraction of its
// largest norm, so that some steps clip and others may not, and returns how many clipped.
// A run with a step within 1e-3 of the threshold is skipped: the central differences
// (h = 1e-5) move a batch gradient by about h·‖∇ℓ‖, and one that crosses the kink, where
// no derivative exists, averages the two one-sided slopes (rapid's boundary values put
// steps there on purpose). So is one that clips a batch gradient below 1e-3.
func clipped(t *rapid.T, in instance, mode ClipMode) (*Trajectory, int) {
	c := in.tr.Config
	d := c.Model.Dim()
	g, tmp := make([]float64, d), make([]float64, d)
	norms := []float64{}
	for step := range in.tr.Schedule.Steps() {
		multiclass.MeanGradient(c.Model, g, tmp, in.tr.Checkpoints[step], in.data, int32s(in.tr.Schedule.Batch(step)))
		norms = append(norms, floats.Norm(g, 2))
	}
	c.Clip = rapid.Float64Range(0.3, 1.2).Draw(t, "clip fraction") * floats.Max(norms)
	c.ClipMode = mode
	tr, err := Learn(ctx, c, in.data, in.tr.W0, rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "order"), 3)))
	if err != nil {
		t.Fatal(err)
	}
	active := 0
	for step := range tr.Schedule.Steps() {
		multiclass.MeanGradient(c.Model, g, tmp, tr.Checkpoints[step], in.data, int32s(tr.Schedule.Batch(step)))
		nrm := floats.Norm(g, 2)
		if math.Abs(nrm-c.Clip) < 1e-3 {
			t.Skip("a step at the clipping threshold")
		}
		// g/‖g‖ curves like 1/‖g‖: central differences err by about h²/‖g‖³, so a clipped
		// step whose batch gradient nearly cancels (0 to rounding, when the labels balance)
		// has no usable difference quotient
		if nrm > c.Clip && nrm < 1e-3 {
			t.Skip("a clipped step with a vanishing batch gradient")
		}
		if nrm > c.Clip {
			active++
		}
	}
	return tr, active
}

func int32s(b []int32) []int {
	out := make([]int, len(b))
	for i, v := range b {
		out[i] = int(v)
	}
	return out
}

// ClipExactJacobian is the ω-derivative of the clipped run (I4 with clipping on): central
// differences of the clipped replay, 1e-6·max(1, ‖a‖) as in I4. The map is not smooth
// where ‖g_t‖ = C; a step lands within h of that kink with probability of order h, so the
// property holds off a null set. The code's mode (per-sample clipped sources) and the
// unclipped recursion miss it wherever clipping is active, which
// TestClipModesDifferWhereClipping shows.
func TestClipExactJacobianIsTheDerivative(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := draw(t, "softmax", "mlp")
		tr, active := clipped(t, in, ClipExactJacobian)
		if active == 0 {
			t.Skip("no step clipped")
		}
		stats, err := tr.Statistics(ctx, in.data, nil, PaperOrder)
		if err != nil {
			t.Fatal(err)
		}
		const h = 1e-5
		for u := range in.data.Len() {
			minus, _ := tr.Reweighted(ctx, in.data, u, -h)
			plus, _ := tr.Reweighted(ctx, in.data, u, h)
			fd := sub(minus, plus)
			floats.Scale(1/(2*h), fd)
			a, _ := stats.Of(u)
			if gap := norm(sub(a, fd)); gap > 1e-6*math.Max(1, norm(a)) {
				t.Fatalf("row %d: a %v, derivative of the clipped run %v (gap %.3g, %d steps clipped)", u, a, fd, gap, active)
			}
		}
	})
}

// Where clipping is active, the three readings differ: off is refused, and the code's
// per-sample clipped sources are not the exact Jacobian's (on a fixed problem that clips).
func TestClipModesDifferWhereClipping(t *testing.T) {
	var moved bool
	rapid.Check(t, func(t *rapid.T) {
		in := draw(t, "softmax")
		tr, active := clipped(t, in, ClipExactJacobian)
		off := *tr
		off.Config.ClipMode = ClipOff
		if _, err := off.Statistics(ctx, in.data, nil, PaperOrder); !contains(err, "ClipMode is off") {
			t.Fatalf("clipped trajectory with ClipOff: %v", err)
		}
		if active == 0 {
			return
		}
		exact, err := tr.Statistics(ctx, in.data, nil, PaperOrder)
		if err != nil {
			t.Fatal(err)
		}
		code := *tr
		code.Config.ClipMode = ClipCodeCompat
		cs, err := code.Statistics(ctx, in.data, nil, PaperOrder)
		if err != nil {
			t.Fatal(err)
		}
		for u := range in.data.Len() {
			a, _ := exact.Of(u)
			b, _ := cs.Of(u)
			if norm(sub(a, b)) > 1e-9*(1+norm(a)) {
				moved = true
			}
		}
	})
	if !moved {
		t.Error("the code's clip mode never differed from the exact Jacobian on clipped runs")
	}
}
