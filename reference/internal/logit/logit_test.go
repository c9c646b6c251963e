package logit

import (
	"math"
	"math/rand/v2"
	"testing"
)

// margins are margins for the assembly: every range math.Exp's normal path covers (down to
// its edge near −708.4), its edges, the ties of its argument reduction, and what leaves it
// (|t| > 708, infinities, NaN, signed zeros, any bit pattern).
func margins() []float64 {
	r := rand.New(rand.NewPCG(11, 12))
	cases := []float64{0, math.Copysign(0, -1), 1, -1, 708, -708, 708.0000000001, -708.0000000001, 708.39, -708.39,
		708.4, -708.4, 709.8, -745.2, 1e308, -1e308, math.Inf(1), math.Inf(-1), math.NaN(), 5e-324, -5e-324, 1e-300}
	for k := -1022; k <= 0; k++ { // t·log2(e) = k ± ½: the reduction's round-to-nearest ties
		x := (float64(k) + 0.5) * math.Ln2
		cases = append(cases, x, math.Nextafter(x, 0), math.Nextafter(x, -1e9), -x)
	}
	for _, scale := range []float64{1e-8, 1e-3, 0.1, 1, 3, 10, 40, 100, 300, 700} {
		for range 400 {
			cases = append(cases, scale*r.NormFloat64())
		}
	}
	for range 2000 {
		cases = append(cases, math.Float64frombits(r.Uint64()))
	}
	return cases
}

// sameBits reports whether a and b are the same float64 bit pattern (NaNs included).
func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// Derivs gives Deriv's bits for every margin, label and clip level, on the assembly's
// lanes, its tail and its redone blocks; and the assembly says "redo" exactly when a
// margin leaves math.Exp's normal path. If Go's math.Exp changed on amd64, this is the test
// that would say so.
func TestDerivsMatchDeriv(t *testing.T) {
	u := margins()
	n := len(u)
	r := rand.New(rand.NewPCG(3, 4))
	y, c := make([]float64, n), make([]float64, n)
	for i := range n {
		y[i] = float64(1 - 2*r.IntN(2))
		switch i % 5 {
		case 0, 1:
			c[i] = math.Inf(1)
		case 2:
			c[i] = r.Float64()
		case 3:
			c[i] = 0.5
		default:
			c[i] = math.NaN() // never clips: s > NaN is false
		}
	}
	const inv = 1.0 / 1000
	var lanes, redone int
	for lo := 0; lo < n; lo += 8 {
		hi := min(lo+8+lo%3, n) // lengths 8 to 10: whole lanes and a Go tail
		w := make([]float64, hi-lo)
		Derivs(w, u[lo:hi], y[lo:hi], c[lo:hi], inv)
		for i := range w {
			if want := inv * Deriv(u[lo+i], y[lo+i], c[lo+i]); !sameBits(w[i], want) {
				t.Fatalf("u = %v, y = %v, c = %v: Derivs %v, Deriv %v", u[lo+i], y[lo+i], c[lo+i], w[i], want)
			}
		}
		if !HasAsm || hi-lo < 4 {
			continue
		}
		head := (hi - lo) &^ 3
		normal := true
		for i := lo; i < lo+head; i++ {
			normal = normal && math.Abs(-y[i]*u[i]) <= 708
		}
		got := derivsAVX2(&w[0], &u[lo], &y[lo], &c[lo], head, inv) == 0
		if got != normal {
			t.Fatalf("margins %v: the assembly says normal %v, they are %v", u[lo:lo+head], got, normal)
		}
		if got {
			lanes += head
		} else {
			redone++
		}
	}
	if HasAsm && (lanes < 5000 || redone == 0) {
		t.Fatalf("%d lanes on the assembly, %d blocks redone: the cases do not cover both paths", lanes, redone)
	}
	t.Logf("%d margins agree bit for bit (%d lanes on the assembly, %d blocks redone in Go)", n, lanes, redone)
}

// Any margin, label and clip level: Derivs's bits are Deriv's (four lanes of the same
// values, so the assembly runs them, and a tail of one).
func FuzzDerivs(f *testing.F) {
	f.Add(0.5, 1.0, math.Inf(1))
	f.Add(-707.9, -1.0, 0.25)
	f.Add(708.3, 1.0, math.NaN())
	f.Fuzz(func(t *testing.T, u, y, c float64) {
		us := []float64{u, -u, u / 3, u * 1.5, u}
		ys := []float64{y, y, -y, y, y}
		cs := []float64{c, c, c, math.Inf(1), c}
		w := make([]float64, 5)
		Derivs(w, us, ys, cs, 0.125)
		for i := range w {
			if want := 0.125 * Deriv(us[i], ys[i], cs[i]); !sameBits(w[i], want) {
				t.Fatalf("u = %v, y = %v, c = %v: Derivs %v, Deriv %v", us[i], ys[i], cs[i], w[i], want)
			}
		}
	})
}

func TestDerivsAllocatesNothing(t *testing.T) {
	u, y, c, w := make([]float64, 64), make([]float64, 64), make([]float64, 64), make([]float64, 64)
	if a := testing.AllocsPerRun(10, func() { Derivs(w, u, y, c, 1) }); a != 0 {
		t.Fatalf("%v allocations a call", a)
	}
}

// BenchmarkDerivs times 1024 derivatives at margins of a trained model's scale: Derivs
// against Deriv in a loop (the floor it is measured against, in the same run).
func BenchmarkDerivs(b *testing.B) {
	const n = 1024
	r := rand.New(rand.NewPCG(1, 2))
	u, y, c, w := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		u[i], y[i], c[i] = 3*r.NormFloat64(), float64(1-2*r.IntN(2)), math.Inf(1)
	}
	b.Run("Derivs", func(b *testing.B) {
		for b.Loop() {
			Derivs(w, u, y, c, 0.5)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/derivative")
	})
	b.Run("Deriv-loop", func(b *testing.B) {
		for b.Loop() {
			for i := range w {
				w[i] = 0.5 * Deriv(u[i], y[i], c[i])
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/derivative")
	})
}
