package olu

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"pgregory.net/rapid"
)

// With no noise the tree's prefix sums are the exact ones: DP-FTRL is then lazy projected
// descent, x_t = Π_K(x₀ − η Σ_{s≤t} g_s) (1e-12 relative to the sums' scale).
func TestDPFTRLWithoutNoiseIsLazyDescent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := rapid.IntRange(1, 4).Draw(t, "d")
		T := rapid.IntRange(1, 300).Draw(t, "T")
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 1))
		stream := make([]Cost, T)
		for s := range stream {
			g := make([]float64, d)
			for j := range g {
				g[j] = r.NormFloat64()
			}
			stream[s] = Linear{G: g}
		}
		c := DPConfig{X0: make([]float64, d), Domain: Ball{R: 3}, Eta: 0.05, Lipschitz: 100, Sigma: 1e-300}
		run, err := DPFTRL(context.Background(), c, stream, nil, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		sum := make([]float64, d)
		for _, f := range stream {
			floats.Add(sum, f.(Linear).G)
		}
		want := make([]float64, d)
		floats.AddScaled(want, -c.Eta, sum)
		c.Domain.Project(want)
		if floats.Distance(run.Final, want, 2) > 1e-12*(1+floats.Norm(sum, 2)) || run.Draws != T*d {
			t.Fatalf("x_T = %v, lazy descent %v; %d draws", run.Final, want, run.Draws)
		}
	})
}

// TreeExposure counts each round once per released node holding it — one per zero bit of
// s − 1 below the tree's height whose node completes by T — so a single round's exposure
// is at most the levels, and k rounds' at most levels·k². Checked against a brute-force
// tree built from the mechanism's releases.
func TestTreeExposure(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		T := rapid.IntRange(1, 200).Draw(t, "T")
		rs := rapid.SliceOfNDistinct(rapid.IntRange(1, T), 0, min(T, 6), rapid.ID[int]).Draw(t, "rounds")
		// brute force: the node released at round t covers (t − 2^low(t), t]
		want := 0.0
		for end := 1; end <= T; end++ {
			low := 0
			for end>>low&1 == 0 {
				low++
			}
			c := 0
			for _, s := range rs {
				if s > end-1<<low && s <= end {
					c++
				}
			}
			want += float64(c * c)
		}
		got := TreeExposure(T, rs)
		k := float64(len(rs))
		if got != want || got > float64(TreeLevels(T))*k*k {
			t.Fatalf("exposure %v, brute force %v, bound %v", got, want, float64(TreeLevels(T))*k*k)
		}
	})
}

// The baseline's privacy, exactly: on linear costs with no domain the released node sums
// are Gaussian whatever the state, so the divergence per order between the run and the
// run without the deleted functions is L²·TreeExposure/(2σ²) at ‖g‖ = L, and the exact
// calibration keeps it within ε for any k deletions (the Proposition 1 calibration, within
// ε/k^{0.6}).
func TestDPCalibration(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		T := rapid.IntRange(1, 500).Draw(t, "T")
		k := rapid.IntRange(1, min(T, 8)).Draw(t, "k")
		eps := math.Exp(float64(rapid.IntRange(-30, 23).Draw(t, "ln ε·10")) / 10)
		rs := rapid.SliceOfNDistinct(rapid.IntRange(1, T), k, k, rapid.ID[int]).Draw(t, "rounds")
		for _, cal := range []DPCalibration{ExactGroup, Prop1} {
			c := DPConfig{Lipschitz: 2, Epsilon: eps, K: k, Calibration: cal}
			sigma := c.DPSigma(T)
			got := c.Lipschitz * c.Lipschitz * TreeExposure(T, rs) / (2 * sigma * sigma)
			limit := eps
			if cal == Prop1 {
				limit = eps / math.Pow(float64(k), 0.6)
			}
			if got > limit*(1+1e-12) {
				t.Fatalf("%v: D_α/α = %v above %v (σ %v, exposure %v)", cal, got, limit, sigma, TreeExposure(T, rs))
			}
		}
	})
}

// DP-FTRL ignores requests (they are recorded) and clips gradients to L: on a stream of
// one huge linear cost the first step is η·L long.
func TestDPFTRLClipsAndRecords(t *testing.T) {
	stream := []Cost{Linear{G: []float64{300, 400}}, Linear{G: []float64{0, 0}}}
	c := DPConfig{X0: []float64{0, 0}, Domain: Whole{}, Eta: 0.1, Lipschitz: 5, Sigma: 1e-300}
	run, err := DPFTRL(context.Background(), c, stream, Schedule{{U: 1, Tau: 2}}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(floats.Norm(run.Final, 2)-0.5) > 1e-12 || len(run.Served) != 1 || !slices.Equal(run.Served[0].Released, run.Final) {
		t.Errorf("final %v (want a step of ηL = 0.5), served %v", run.Final, run.Served)
	}
}
