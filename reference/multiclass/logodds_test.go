package multiclass

import (
	"math"
	"math/rand/v2"
	"testing"
)

// LogOdds is log p_y − log Σ_{k≠y} p_k with the probabilities from the model's loss
// (p_k = e^(−(ℓ(w; x, k) − λ‖w‖²/2))), on Softmax and an MLP at ordinary weights, where
// that route is accurate too: to 1e-12 relative (its roundings are a few ulps of values of
// order one). Planted and caught: z_y left in the sum (the log-odds of p_y against every
// class, its own included).
func TestLogOddsFromTheLoss(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, m := range []Network{Softmax{K: 4, P: 3, Lambda: 0.1}, MLP{Sizes: []int{3, 5, 4}, Lambda: 0.1}} {
		for range 50 {
			w := make([]float64, m.Dim())
			for i := range w {
				w[i] = r.NormFloat64()
			}
			x := []float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
			y := r.IntN(m.Classes())
			reg := m.Regularization() / 2 * sqNorm(w)
			var rest float64
			for k := range m.Classes() {
				if k != y {
					rest += math.Exp(-(m.Loss(w, x, k) - reg))
				}
			}
			want := -(m.Loss(w, x, y) - reg) - math.Log(rest)
			got := LogOdds(m, w, x, y, make([]float64, m.Classes()))
			if math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) {
				t.Fatalf("%s, class %d: LogOdds %v, from the loss %v", m.Name(), y, got, want)
			}
		}
	}
}

// LogSumExp, held to what defines it on draws of 1–6 logits: within 8 ulps of the direct
// log Σ e^z where the direct sum neither overflows nor underflows (|z| ≤ 30: each e^z and
// the log round once, the sum n − 1 times, so a few ulps of a value of order one and a
// sum of terms ≥ e⁻³⁰); at least max z (the shifted sum is at least 1: its log is not
// negative) and at most max z + log n, up to the sum's n + 1 roundings (relative, carried
// through the log) and the last addition's; moved by c when every z is (|z| ≤ 1400: to 8
// roundings at the scale of |c| + max |z|, from the subtractions z − c, z − max and the
// last additions); and −Inf for an empty sum (every z −Inf, or none), +Inf for any +Inf.
// Planted and caught: the
// shift dropped (overflow at z = 710 gives +Inf), the −Inf guard dropped (NaN), the log
// of the shifted sum not added back to the shift.
func TestLogSumExp(t *testing.T) {
	ulps := func(a, b float64) float64 {
		return math.Abs(a-b) / (0x1p-52 * math.Max(1, math.Abs(b)))
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		n := 1 + r.IntN(6)
		z := make([]float64, n)
		top := math.Inf(-1)
		for i := range z {
			z[i] = 60*r.Float64() - 30
			top = math.Max(top, z[i])
		}
		direct := 0.0
		for _, v := range z {
			direct += math.Exp(v)
		}
		got := LogSumExp(z)
		if u := ulps(got, math.Log(direct)); u > 8 {
			t.Fatalf("LogSumExp(%v) = %v, log Σ e^z = %v: %.1f ulps apart", z, got, math.Log(direct), u)
		}
		logN := math.Log(float64(n))
		upper := top + logN + float64(n+1)*0x1p-53 + 0x1p-52*(math.Abs(top)+logN)
		if got < top || got > upper {
			t.Fatalf("LogSumExp(%v) = %v outside [max, max + log n] = [%v, %v]", z, got, top, top+logN)
		}
		c := 1400*r.Float64() - 700
		big := make([]float64, n)
		scale := math.Abs(c)
		for i, v := range z {
			big[i] = v*700/30 + c
			scale = max(scale, math.Abs(big[i]))
		}
		shifted := make([]float64, n)
		for i, v := range big {
			shifted[i] = v - c
		}
		if d := math.Abs(LogSumExp(big) - c - LogSumExp(shifted)); d > 8*0x1p-53*(scale+1) {
			t.Fatalf("LogSumExp(%v) − %v = %v, LogSumExp of the unshifted logits %v: %.3g apart, allowed %.3g", big, c, LogSumExp(big)-c, LogSumExp(shifted), d, 8*0x1p-53*(scale+1))
		}
	}
	inf := math.Inf(1)
	for _, c := range []struct {
		z    []float64
		want float64
	}{
		{nil, -inf},
		{[]float64{-inf, -inf}, -inf},
		{[]float64{-inf, 2}, 2},
		{[]float64{710, 710}, 710 + math.Ln2},
		{[]float64{1, inf}, inf},
	} {
		if got := LogSumExp(c.z); got != c.want && !(math.Abs(got-c.want) <= 0x1p-52*math.Abs(c.want)) {
			t.Errorf("LogSumExp(%v) = %v, want %v", c.z, got, c.want)
		}
	}
}
