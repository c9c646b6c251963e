package audit

import (
	"context"
	"math"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// The Gaussian test subject of audit/checks' release_test.go, copied: the root's tests (calibration, mutants) run it.

// gaussSubject publishes fixed means plus Gaussian noise: the release laws are known
// exactly, so the release check has a known answer.
type gaussSubject struct {
	muU, muR        []float64
	sigmaU, sigmaR  float64
	shiftU          float64 // added to the published vector, not the secret: an off-centre bug
	rho, sigmaCalib float64
}

func (g gaussSubject) Name() string { return "gauss" }
func (g gaussSubject) Params() int  { return len(g.muU) }
func (g gaussSubject) Claim() verdict.Claim {
	return verdict.Claim{Epsilon: 1, Delta: 1e-6, Rho: g.rho}
}
func (g gaussSubject) release(mu []float64, sigma, shift float64, r reference.Streams, purpose string) reference.Release {
	pub := make([]float64, len(mu))
	reference.FillNormal(pub, sigma, r.Rand(purpose))
	for j := range pub {
		pub[j] += mu[j] + shift
	}
	return reference.Release{Published: pub, Secret: append([]float64(nil), mu...)}
}
func (g gaussSubject) Unlearned(_ context.Context, s reference.Streams) (reference.Release, error) {
	return g.release(g.muU, g.sigmaU, g.shiftU, s, "u"), nil
}
func (g gaussSubject) Retrained(_ context.Context, s reference.Streams) (reference.Release, error) {
	return g.release(g.muR, g.sigmaR, 0, s, "r"), nil
}

// rhoStar is the zCDP ρ that converts to exactly (ε=1, δ=1e-6).
var rhoStar = func() float64 {
	l := math.Log(1e6)
	r := math.Sqrt(l+1) - math.Sqrt(l)
	return r * r
}()

func newGauss(d int, gap, sigma float64) gaussSubject {
	muU, muR := make([]float64, d), make([]float64, d)
	muU[0] = gap
	return gaussSubject{muU: muU, muR: muR, sigmaU: sigma, sigmaR: sigma, rho: rhoStar, sigmaCalib: sigma}
}
