// Package gausstest is an audit subject whose laws are known exactly, for the tests of the
// trial engine and the checks: it publishes fixed means plus Gaussian noise, so a release
// check's answer (the Rényi divergence, the ε it implies) is a formula.
package gausstest

import (
	"context"
	"errors"
	"math"
	"sync/atomic"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// Subject publishes MuU (unlearned) or MuR (retrained) plus N(0, σ²) noise on every
// coordinate; its secret state is the mean itself.
type Subject struct {
	MuU, MuR       []float64
	SigmaU, SigmaR float64
	ShiftU         float64 // added to the published vector, not the secret: an off-centre bug
	Rho            float64 // the zCDP ρ the subject claims
	SigmaCalib     float64 // the σ the claim was calibrated for
}

func (g Subject) Name() string { return "gauss" }
func (g Subject) Params() int  { return len(g.MuU) }

// Claim is (ε = 1, δ = 1e-6) with the subject's ρ.
func (g Subject) Claim() verdict.Claim {
	return verdict.Claim{Epsilon: 1, Delta: 1e-6, Rho: g.Rho}
}

func (g Subject) release(mu []float64, sigma, shift float64, r reference.Streams, purpose string) reference.Release {
	pub := make([]float64, len(mu))
	reference.FillNormal(pub, sigma, r.Rand(purpose))
	for j := range pub {
		pub[j] += mu[j] + shift
	}
	return reference.Release{Published: pub, Secret: append([]float64(nil), mu...)}
}

func (g Subject) Unlearned(_ context.Context, s reference.Streams) (reference.Release, error) {
	return g.release(g.MuU, g.SigmaU, g.ShiftU, s, "u"), nil
}

func (g Subject) Retrained(_ context.Context, s reference.Streams) (reference.Release, error) {
	return g.release(g.MuR, g.SigmaR, 0, s, "r"), nil
}

// RhoStar is the zCDP ρ that converts to exactly (ε = 1, δ = 1e-6).
var RhoStar = func() float64 {
	l := math.Log(1e6)
	r := math.Sqrt(l+1) - math.Sqrt(l)
	return r * r
}()

// New is a d-dimensional subject whose unlearned mean is gap away from the retrained one
// on the first coordinate, both sides with noise σ, claiming ρ*.
func New(d int, gap, sigma float64) Subject {
	muU, muR := make([]float64, d), make([]float64, d)
	muU[0] = gap
	return Subject{MuU: muU, MuR: muR, SigmaU: sigma, SigmaR: sigma, Rho: RhoStar, SigmaCalib: sigma}
}

// Counting is a Subject that counts the unlearned models it makes and can be made to fail
// from a given trial on, or to cancel a context at one: the subject the trial engine's and
// the calibration's tests drive it with.
type Counting struct {
	Subject
	Runs     *atomic.Int64
	FailAt   int // trials ≥ FailAt error; < 0 never
	Cancel   context.CancelFunc
	CancelAt int
}

// Unlearned fails from FailAt on, calls Cancel at CancelAt, and otherwise counts the run
// and publishes as Subject does.
func (c Counting) Unlearned(ctx context.Context, s reference.Streams) (reference.Release, error) {
	if c.FailAt >= 0 && s.Trial >= c.FailAt {
		return reference.Release{}, errors.New("boom")
	}
	if c.Cancel != nil && s.Trial == c.CancelAt {
		c.Cancel()
	}
	c.Runs.Add(1)
	return c.Subject.Unlearned(ctx, s)
}

// NewCounting is a Counting of New(4, 0.1, 1) that fails from failAt on (< 0: never).
func NewCounting(failAt int) Counting {
	return Counting{Subject: New(4, 0.1, 1), Runs: new(atomic.Int64), FailAt: failAt}
}
