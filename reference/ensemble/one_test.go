package ensemble

import (
	"math"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
)

// The one-model gradient is reference.Logistic's within RoundingBound (any two summation
// orders): shapes with edge rows (m mod 4) and features past the last 16 (d mod 16), on the
// assembly and the Go path.
func TestLogisticGradientOneMatchesReference(t *testing.T) {
	for _, c := range []struct{ m, d int }{{37, 19}, {64, 40}, {9, 5}, {130, 33}, {3, 7}, {128, 784}} {
		X, y, theta := problem(c.m, c.d, 1, uint64(c.m*c.d))
		const lambda = 0.05
		ds := dataset(t, X, y, c.m, c.d)
		want := make([]float64, c.d)
		reference.Logistic{Lambda: lambda}.Objective(ds).Gradient(want, theta)
		onEachPath(func(asm bool) {
			g := make([]float64, c.d)
			LogisticGradientOne(g, X, y, theta, c.m, c.d, lambda)
			for j := range c.d {
				bound := RoundingBound(X, y, theta, c.m, c.d, 1, j, 0, lambda)
				if diff := math.Abs(g[j] - want[j]); diff > bound {
					t.Fatalf("%+v (assembly %v): coordinate %d: %v against the reference's %v (off by %.3g, bound %.3g)", c, asm, j, g[j], want[j], diff, bound)
				}
			}
		})
	}
}

// The assembly and Go sum in the same order (dotOne's lanes, the rows in order into g): the
// same bits, at d a multiple of 16 and not, m a multiple of 4 and not.
// (AVX-512 where the CPU has it, and AVX2 with HasAVX512 off, against the Go loops.)
func TestLogisticGradientOneAsmMatchesGo(t *testing.T) {
	if !HasAsm {
		t.Skip("no AVX2 and FMA here: the Go loops are the only path")
	}
	for _, c := range []struct{ m, d int }{{101, 50}, {128, 784}, {45, 16}, {8, 3}, {3, 40}} {
		X, y, theta := problem(c.m, c.d, 1, uint64(c.m+c.d))
		var got [2][]float64
		for _, wide := range []bool{true, false} {
			if wide && !hasAVX512 {
				continue
			}
			func() {
				HasAVX512 = wide
				defer func() { HasAVX512 = hasAVX512 }()
				onEachPath(func(asm bool) {
					g := make([]float64, c.d)
					LogisticGradientOne(g, X, y, theta, c.m, c.d, 0.1)
					got[map[bool]int{true: 0, false: 1}[asm]] = g
				})
			}()
			for j := range c.d {
				if math.Float64bits(got[0][j]) != math.Float64bits(got[1][j]) {
					t.Fatalf("%+v (AVX-512 %v): coordinate %d: assembly %v, Go %v", c, wide, j, got[0][j], got[1][j])
				}
			}
		}
	}
}

func TestLogisticGradientOneAllocatesNothing(t *testing.T) {
	const m, d = 45, 37
	X, y, theta := problem(m, d, 1, 2)
	g := make([]float64, d)
	onEachPath(func(asm bool) {
		if n := testing.AllocsPerRun(10, func() { LogisticGradientOne(g, X, y, theta, m, d, 0.1) }); n != 0 {
			t.Errorf("assembly %v: %v allocations a call", asm, n)
		}
	})
}
