package ensemble

import (
	"math"
	"os"
	"os/exec"
	"testing"
)

// scalarProducts computes LogisticGradient's and LogisticHVP's float64 results one row and
// one model at a time (edge over every row: the order every kernel sums in), with the
// scalar derivative and curvature on math.Exp.
func scalarProducts(X, y, Theta, V []float64, m, d, k int, lambda float64) (g, hv []float64) {
	g, hv = make([]float64, d*k), make([]float64, d*k)
	inv := 1 / float64(m)
	for i := range g {
		g[i], hv[i] = lambda*Theta[i], lambda*V[i]
	}
	edge(g, X, y, Theta, nil, 0, m, 0, k, d, k, func(u, _, yi float64) float64 { return inv * logisticDeriv(u, yi) })
	edge(hv, X, y, Theta, V, 0, m, 0, k, d, k, func(u, uv, _ float64) float64 { return inv * logisticCurv(u) * uv })
	return g, hv
}

// The float64 products are the scalar loop's bits under every CPU feature set the process
// may see: each GODEBUG case turns features off as a CPU without them would (AVX-512: the
// AVX2 panels; AVX2, FMA, AVX: the Go kernels, the derivatives in Go, math.Exp on its
// other path), in a child process. The problem has wide blocks, panels, half panels,
// single models, edge rows and one model's margins past ±708.
func TestFloat64IsTheScalarLoopsBitsOnEveryCPU(t *testing.T) {
	const m, d, k = 103, 20, 45
	X, y, Theta := problem(m, d, k, 31)
	_, _, V := problem(m, d, k, 32)
	for j := range d { // the last model's margins past ±708: its blocks' derivatives go to Go
		Theta[j*k+k-1] *= 4000
	}
	var large bool
	for i := range m {
		var u float64
		for j := range d {
			u += X[i*d+j] * Theta[j*k+k-1]
		}
		large = large || math.Abs(u) > 708
	}
	if !large {
		t.Fatal("no margin past ±708: the case misses the derivatives' Go lanes")
	}
	g, hv := make([]float64, d*k), make([]float64, d*k)
	LogisticGradient(g, X, y, Theta, m, d, k, 0.1)
	LogisticHVP(hv, X, y, Theta, V, m, d, k, 0.1)
	wg, whv := scalarProducts(X, y, Theta, V, m, d, k, 0.1)
	for i := range g {
		if math.Float64bits(g[i]) != math.Float64bits(wg[i]) || math.Float64bits(hv[i]) != math.Float64bits(whv[i]) {
			t.Fatalf("GODEBUG=%q, coordinate %d: kernels %v %v, scalar loop %v %v", os.Getenv("GODEBUG"), i, g[i], hv[i], wg[i], whv[i])
		}
	}
	if os.Getenv("ENSEMBLE_GODEBUG_CHILD") != "" {
		return
	}
	for _, godebug := range []string{"cpu.avx512f=off", "cpu.avx2=off", "cpu.fma=off", "cpu.avx=off", "cpu.all=off"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFloat64IsTheScalarLoopsBitsOnEveryCPU$", "-test.count=1")
		cmd.Env = append(os.Environ(), "GODEBUG="+godebug, "ENSEMBLE_GODEBUG_CHILD=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("GODEBUG=%s: %v\n%s", godebug, err, out)
		}
	}
}

// NoisyStep and NoisyStep32 are the scalar loop's bits under every CPU feature set the
// process may see (GODEBUG as in TestFloat64IsTheScalarLoopsBitsOnEveryCPU: without
// AVX-512 they take the Go loop), at the engine's shape and one with both tails.
func TestNoisyStepIsTheScalarLoopOnEveryCPU(t *testing.T) {
	for i, s := range [][2]int{{784, 32}, {101, 45}} {
		newStepCase(s[0], s[1], uint64(i), 1).check(t.Fatalf, HasAsm && HasAVX512)
	}
	if os.Getenv("ENSEMBLE_GODEBUG_CHILD") != "" {
		return
	}
	for _, godebug := range []string{"cpu.avx512f=off", "cpu.avx2=off", "cpu.all=off"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNoisyStepIsTheScalarLoopOnEveryCPU$", "-test.count=1")
		cmd.Env = append(os.Environ(), "GODEBUG="+godebug, "ENSEMBLE_GODEBUG_CHILD=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("GODEBUG=%s: %v\n%s", godebug, err, out)
		}
	}
}
