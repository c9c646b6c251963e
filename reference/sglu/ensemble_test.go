package sglu

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/ars"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/ensemble"
	"gonum.org/v1/gonum/mat"
	"pgregory.net/rapid"
)

// stepBound bounds, for one run at one step, how far the ensemble's computed step and the
// Model's may each stray from the exact step: η·½·RoundingBound of the gradient at each
// iterate, the update θ + (ξ − ηg) (three operations: γ₃ of its absolute terms) and, with
// a finite radius, the projection's scaling (γ_{d+3} of the vector's norm). The exact step
// θ ↦ Π(θ − η∇f_B(θ) + ξ) is non-expansive for η ≤ 2/L (a gradient step of a convex
// L-smooth function, a translation, a projection onto a convex set), so the two
// trajectories' distance grows by at most the sum of these every step.
func stepBound(x, y []float64, m, d int, lambda, eta, radius float64, a, b, noise, ga, gb []float64) float64 {
	one := func(theta, g []float64) float64 {
		rb, abs := 0.0, 0.0
		for j := range d {
			v := ensemble.RoundingBound(x, y, theta, m, d, 1, j, 0, lambda) / 2
			rb += v * v
			w := math.Abs(theta[j]) + math.Abs(noise[j]) + eta*math.Abs(g[j])
			abs += w * w
		}
		s := eta*math.Sqrt(rb) + ensemble.Gamma(3)*math.Sqrt(abs)
		if !math.IsInf(radius, 1) {
			s += ensemble.Gamma(d+3) * math.Sqrt(abs)
		}
		return s
	}
	return one(a, ga) + one(b, gb)
}

// Runs in lockstep are the Models of the same streams up to rounding: after every step of
// learning and of unlearning (records replaced in their slots), each run's iterate is
// within the accumulated rounding bound of its Model's.
func TestEnsembleMatchesModels(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		b := rapid.IntRange(1, 8).Draw(rt, "b")
		n := b * rapid.IntRange(max(1, 3-b), 5).Draw(rt, "batches") // n ≥ 2: the synthetic data's least
		d := rapid.IntRange(1, 7).Draw(rt, "d")
		k := rapid.IntRange(1, 10).Draw(rt, "runs")
		epochs := rapid.IntRange(0, 3).Draw(rt, "epochs")
		seed := rapid.Uint64().Draw(rt, "seed")
		radius := rapid.SampledFrom([]float64{math.Inf(1), 0.5, 5}).Draw(rt, "radius")
		init := rapid.SampledFrom([]Init{ZeroInit, GaussianInit}).Draw(rt, "init")
		sigma := rapid.Float64Range(1e-3, 0.5).Draw(rt, "sigma")
		lambda := rapid.Float64Range(1e-3, 1).Draw(rt, "lambda")
		ds, err := reference.SyntheticClassification(n, d, seed)
		if err != nil {
			rt.Fatal(err)
		}
		ds = ds.NormalizeRows()
		L := 0.25 + lambda
		p := Params{Problem: Problem{Smoothness: L, Lipschitz: 1, StrongConvexity: lambda, StepSize: 1 / L, N: n, Batch: b, Radius: radius},
			Sigma: sigma, Init: init}
		loss := reference.Logistic{Lambda: lambda}
		streams := func() []*rand.Rand {
			rs := make([]*rand.Rand, k)
			for i := range rs {
				rs[i] = reference.Stream(seed, i, "ensemble-test")
			}
			return rs
		}
		rs := streams()
		e, err := LearnOrderedEnsemble(context.Background(), p, loss, ds, rs)
		if err != nil {
			rt.Fatal(err)
		}
		ms := make([]*Model, k)
		mrs := streams()
		for i := range ms {
			if ms[i], err = LearnOrdered(context.Background(), p, loss, ds, mrs[i]); err != nil {
				rt.Fatal(err)
			}
		}
		bound := make([]float64, k)
		check := func(when string) {
			for i, m := range ms {
				got := e.Published(i)
				if dist := reference.Distance(got, m.theta); dist > bound[i] {
					rt.Fatalf("%s: run %d is %.3g from its Model, beyond the rounding bound %.3g", when, i, dist, bound[i])
				}
			}
		}
		check("start")
		run := func(epochs int) { // what Epochs does, with a check after every step
			e.drawKeys()
			keys := make([]uint64, k)
			for i := range ms {
				keys[i] = mrs[i].Uint64()
			}
			var s uint32
			for range epochs {
				for j := range n / b {
					x := e.x[j*b*d : (j+1)*b*d]
					yb := e.y[j*b : (j+1)*b]
					before := make([][]float64, k)
					for i := range ms {
						before[i] = e.Published(i)
					}
					// the two steps, then the bound from their iterates and gradients
					e.step(j, s)
					for i, m := range ms {
						prev := append([]float64(nil), m.theta...)
						m.stepBatch(j, keys[i], s)
						noise := m.noise // the step's noise, which the ensemble drew alike
						ga := column(e.grad, d, k, i)
						gb := append([]float64(nil), m.grad...)
						bound[i] += stepBound(x, yb, b, d, lambda, p.StepSize, radius, before[i], prev, noise, ga, gb)
					}
					check("after a step")
					s++
				}
			}
		}
		run(epochs)
		for r := range 2 {
			id := ds.ID(rapid.IntRange(0, n-1).Draw(rt, "remove"))
			if _, ok := e.slot[id]; !ok {
				continue
			}
			rec := RandomReplacement(int64(1000+r), ds.Features().RawRowView(0), rand.New(rand.NewPCG(seed, uint64(r))))
			if err := e.Replace(id, rec); err != nil {
				rt.Fatal(err)
			}
			for _, m := range ms {
				if err := m.Replace(id, rec); err != nil {
					rt.Fatal(err)
				}
			}
			run(1)
		}
	})
}

func column(a []float64, d, k, t int) []float64 {
	out := make([]float64, d)
	for i := range out {
		out[i] = a[i*k+t]
	}
	return out
}

func TestEnsembleRefuses(t *testing.T) {
	ds, _ := reference.SyntheticClassification(8, 2, 1)
	p := Params{Problem: Problem{Smoothness: 1, Lipschitz: 1, StrongConvexity: 0.1, StepSize: 1, N: 8, Batch: 2, Radius: 1}, Sigma: 0.1, Init: ZeroInit}
	rs := []*rand.Rand{reference.Stream(1, 0, "x")}
	if _, err := LearnOrderedEnsemble(context.Background(), p, reference.Ridge{Lambda: 0.1}, ds, rs); err == nil {
		t.Error("ridge accepted")
	}
	if _, err := LearnOrderedEnsemble(context.Background(), p, reference.Logistic{Lambda: 0.1, Clip: 1}, ds, rs); err == nil {
		t.Error("clipped logistic accepted")
	}
	if _, err := LearnOrderedEnsemble(context.Background(), p, reference.Logistic{Lambda: 0.1}, ds, nil); err == nil {
		t.Error("no runs accepted")
	}
	_ = mat.Dense{}
}

// Runs with float32 gradients stay within a derived bound of the float64 runs on the same
// streams. Each step adds η times the float32 evaluation's error (ensemble.RoundingBound32
// at the float32-rounded inputs) and the inputs' own rounding to float32 — θ by u₃₂‖θ‖
// through the gradient's Lipschitz constant ¼·max‖xᵢ‖² + λ, each row by u₃₂‖xᵢ‖ through
// |φ'| ≤ 1 and φ” ≤ ¼: (1/b)Σᵢ u₃₂‖xᵢ‖(1 + ¼‖xᵢ‖‖θ‖) — and each update's rounding, at
// most γ₃(2‖θ_new‖ + ‖θ_prev‖ + η‖g‖) with ‖g‖ ≤ max‖xᵢ‖ + λ‖θ‖ (no projection here, so the
// stored iterate is the update's result). The steps are non-expansive, so the bounds add.
func TestEnsemble32NearEnsemble64(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		b := rapid.IntRange(2, 8).Draw(rt, "b")
		n := b * rapid.IntRange(1, 4).Draw(rt, "batches")
		d := rapid.IntRange(1, 6).Draw(rt, "d")
		k := rapid.IntRange(1, 20).Draw(rt, "runs")
		seed := rapid.Uint64().Draw(rt, "seed")
		lambda := rapid.Float64Range(1e-2, 1).Draw(rt, "lambda")
		ds, err := reference.SyntheticClassification(n, d, seed)
		if err != nil {
			rt.Fatal(err)
		}
		ds = ds.NormalizeRows()
		L := 0.25 + lambda
		p := Params{Problem: Problem{Smoothness: L, Lipschitz: 1, StrongConvexity: lambda, StepSize: 1 / L, N: n, Batch: b, Radius: math.Inf(1)},
			Sigma: 0.1, Init: ZeroInit}
		loss := reference.Logistic{Lambda: lambda}
		streams := func() []*rand.Rand {
			rs := make([]*rand.Rand, k)
			for i := range rs {
				rs[i] = reference.Stream(seed, i, "ensemble32-test")
			}
			return rs
		}
		e64, err := LearnOrderedEnsemble(context.Background(), p, loss, ds, streams())
		if err != nil {
			rt.Fatal(err)
		}
		e32, err := LearnOrderedEnsemble32(context.Background(), p, loss, ds, streams())
		if err != nil {
			rt.Fatal(err)
		}
		const u32 = ensemble.Unit32
		eta := p.StepSize
		bound := make([]float64, k)
		e64.drawKeys() // what one Epochs call of 3 epochs does, with a check after every step
		e32.drawKeys()
		var s uint32
		for range 3 {
			for j := range n / b {
				x := e64.x[j*b*d : (j+1)*b*d]
				yb := e64.y[j*b : (j+1)*b]
				x32 := make([]float64, len(x))
				for i, v := range e32.x32[j*b*d : (j+1)*b*d] {
					x32[i] = float64(v)
				}
				var maxRow float64
				for r := range b {
					maxRow = math.Max(maxRow, reference.Norm(x[r*d:(r+1)*d]))
				}
				prev32, prev64 := make([][]float64, k), make([][]float64, k)
				for i := range k {
					prev32[i], prev64[i] = e32.Published(i), e64.Published(i)
				}
				e64.step(j, s)
				e32.step(j, s)
				s++
				for i := range k {
					th := prev32[i]
					th32 := make([]float64, d)
					for l, v := range th {
						th32[l] = float64(float32(v))
					}
					var rb float64
					for l := range d {
						v := ensemble.RoundingBound32(x32, yb, th32, b, d, 1, l, 0, lambda)
						rb += v * v
					}
					nt := reference.Norm(th)
					inputs := (0.25*maxRow*maxRow + lambda) * u32 * nt
					for r := range b {
						xr := reference.Norm(x[r*d : (r+1)*d])
						inputs += u32 * xr * (1 + 0.25*xr*nt) / float64(b)
					}
					update := func(prev, next []float64) float64 {
						np := reference.Norm(prev)
						return ensemble.Gamma(3) * (2*reference.Norm(next) + np + eta*(maxRow+lambda*np))
					}
					bound[i] += eta*(math.Sqrt(rb)+inputs) + update(prev32[i], e32.Published(i)) + update(prev64[i], e64.Published(i))
					if dist := reference.Distance(e64.Published(i), e32.Published(i)); dist > bound[i] {
						rt.Fatalf("run %d: float32 gradients put it %.3g from float64's, beyond the bound %.3g", i, dist, bound[i])
					}
				}
			}
		}
	})
}

// stepBefore is Ensemble.step as it was before ensemble.NoisyStep, on its own iterates
// theta (d × k, e's shape, keys, batches and parameters): in float32 the iterates narrowed
// at the step's start, the gradients widened, then the scalar update loop and the
// projection. It returns how many runs the projection scaled.
func stepBefore(e *Ensemble, theta []float64, j int, s uint32) int {
	p, k, b, d := e.params, len(e.rs), e.params.Batch, e.d
	sd := math.Sqrt(2*p.StepSize) * p.Sigma
	grad := make([]float64, d*k)
	if e.x32 != nil {
		theta32, grad32 := make([]float32, d*k), make([]float32, d*k)
		for i, v := range theta {
			theta32[i] = float32(v)
		}
		ensemble.LogisticGradient32(grad32, e.x32[j*b*d:(j+1)*b*d], e.y32[j*b:(j+1)*b], theta32, b, d, k, float32(e.lambda))
		for i, v := range grad32 {
			grad[i] = float64(v)
		}
	} else {
		ensemble.LogisticGradient(grad, e.x[j*b*d:(j+1)*b*d], e.y[j*b:(j+1)*b], theta, b, d, k, e.lambda)
	}
	z := make([]float64, k*d)
	for t, key := range e.keys {
		ars.FillScaledWide(z[t*d:(t+1)*d], sd, key, 0, s)
	}
	eta := p.StepSize
	norm2 := make([]float64, k)
	for i := range d {
		th, g := theta[i*k:(i+1)*k], grad[i*k:(i+1)*k]
		for t := range th {
			v := th[t] + (z[t*d+i] - float64(eta*g[t]))
			th[t] = v
			norm2[t] += float64(v * v)
		}
	}
	projected := 0
	for t, n2 := range norm2 {
		if nrm := math.Sqrt(n2); nrm > p.Radius {
			projected++
			scale := p.Radius / nrm
			for i := range d {
				theta[i*k+t] *= scale
			}
		}
	}
	return projected
}

// The step gives the bits it gave before ensemble.NoisyStep, in both precisions and on
// both of the ensemble package's paths (assembly or Go): d = 19 and k = 13 have whole 8 × 8
// tiles and both tails, and the radius (the runs' median norm before each step) has the
// projection scale some runs at most steps and not others; in float32 the iterates' float32 copy is
// float32(θ) after every step, which the next gradients read. Caught when planted: the
// projected runs' float32 copy not narrowed again (the next gradients then read the
// unprojected iterate), and setColumn not narrowing the initial point.
func TestEnsembleStepKeepsItsBits(t *testing.T) {
	const n, b, d, k = 24, 6, 19, 13
	ds := unitData(t, n, d, 7)
	p, _ := testParams(n, b, 0.1, 0.3, 0)
	p.Init = GaussianInit
	loss := reference.Logistic{Lambda: 0.1}
	for _, asm := range []bool{true, false} {
		if asm && !(ensemble.HasAsm && ensemble.HasAVX512) {
			continue
		}
		saved := ensemble.HasAsm
		ensemble.HasAsm = asm
		defer func() { ensemble.HasAsm = saved }()
		for _, learn := range []func(context.Context, Params, reference.Loss, *reference.Dataset, []*rand.Rand) (*Ensemble, error){LearnOrderedEnsemble, LearnOrderedEnsemble32} {
			rs := make([]*rand.Rand, k)
			for i := range rs {
				rs[i] = reference.Stream(5, i, "step-bits")
			}
			e, err := learn(context.Background(), p, loss, ds, rs)
			if err != nil {
				t.Fatal(err)
			}
			// the radius, set before each step to the runs' median norm, has the
			// projection scale some runs and not others at most steps, whatever the noise
			median := func() float64 {
				norms := make([]float64, k)
				for i := range k {
					norms[i] = reference.Norm(e.Published(i))
				}
				slices.Sort(norms)
				return norms[k/2]
			}
			theta := slices.Clone(e.theta)
			e.drawKeys()
			var s uint32
			projected := 0
			for range 3 {
				for j := range n / b {
					e.params.Radius = median()
					e.step(j, s)
					pr := stepBefore(e, theta, j, s)
					if pr > 0 && pr < k {
						projected++
					}
					for i, v := range theta {
						if math.Float64bits(e.theta[i]) != math.Float64bits(v) {
							t.Fatalf("float32 %v, assembly %v, step %d: θ[%d] (coordinate %d, run %d) is %v, before NoisyStep %v", e.x32 != nil, asm, s, i, i/k, i%k, e.theta[i], v)
						}
						if e.x32 != nil && math.Float32bits(e.theta32[i]) != math.Float32bits(float32(v)) {
							t.Fatalf("assembly %v, step %d: θ32[%d] (coordinate %d, run %d) is %v, float32(θ) %v", asm, s, i, i/k, i%k, e.theta32[i], float32(v))
						}
					}
					s++
				}
			}
			if projected < 6 {
				t.Errorf("float32 %v: the projection scaled some runs but not all at %d of %d steps: the case hardly exercises it", e.x32 != nil, projected, s)
			}
		}
	}
}
