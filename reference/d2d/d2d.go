package d2d

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/reference"
)

// Mode says which model the unlearner starts from at each update.
type Mode int

const (
	// SecretState warm-starts each update from the previous secret (pre-noise) model
	// (Thm 3.1). The secret model must be kept private; only its noisy image is certified.
	SecretState Mode = iota
	// Perfect warm-starts each update from the previous published model, projected onto
	// Θ (Thm 3.2), so everything the system keeps is itself certified.
	Perfect
)

func (m Mode) String() string {
	if m == Perfect {
		return "perfect"
	}
	return "strongly-convex"
}

// ParseMode reads "strongly-convex" (or "secret") and "perfect".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "strongly-convex", "secret", "secret-state":
		return SecretState, nil
	case "perfect":
		return Perfect, nil
	}
	return 0, fmt.Errorf("unknown D2D variant %q; want strongly-convex or perfect", s)
}

// A Plan is a validated configuration with everything derived from it: step size,
// contraction, noise scale and the iteration schedule.
type Plan struct {
	Mode     Mode
	Params   Params
	Gamma    float64 // γ = (M−m)/(M+m)
	StepSize float64 // η = 2/(M+m)
	Sigma    float64 // publishing noise
}

// NewPlan validates the parameters for the mode and derives the plan. Perfect mode needs
// the dimension and refuses a budget below I_min (spec d2d §4.9).
func NewPlan(mode Mode, p Params) (Plan, error) {
	if err := p.Validate(); err != nil {
		return Plan{}, fmt.Errorf("d2d %s: %w", mode, err)
	}
	pl := Plan{Mode: mode, Params: p, Gamma: p.Gamma(), StepSize: p.StepSize()}
	switch mode {
	case SecretState:
		pl.Sigma = p.SecretSigma()
	case Perfect:
		if p.Dim < 1 {
			return Plan{}, fmt.Errorf("d2d perfect: dimension: d = %d; Thm 3.2 needs d ≥ 1", p.Dim)
		}
		if minI := p.PerfectMinBudget(); p.Budget < minI {
			return Plan{}, fmt.Errorf("d2d perfect: iterations: I = %d is below I_min = %d (Thm 3.2)", p.Budget, minI)
		}
		pl.Sigma = p.PerfectSigma()
	default:
		return Plan{}, fmt.Errorf("d2d: unknown mode %d", mode)
	}
	return pl, nil
}

// LearnIterations is the learner's iteration count on a dataset of size n.
func (pl Plan) LearnIterations(n int) int { return pl.Params.LearnIterations(n) }

// UpdateIterations is T_i, the iterations of the i-th update (i ≥ 1): I in secret-state
// mode, I + ln(ln(4di/δ))/ln(1/γ) in perfect mode.
func (pl Plan) UpdateIterations(i int) int {
	if pl.Mode == Perfect {
		return pl.Params.PerfectUpdateIterations(i)
	}
	return pl.Params.Budget
}

// Descend runs T steps of projected gradient descent θ ← Proj_R(θ − η∇f(θ)) in place.
// grad is scratch of length d. It does not allocate.
func Descend(obj *reference.Objective, theta, grad []float64, eta, radius float64, steps int) {
	for range steps {
		obj.Gradient(grad, theta)
		for j := range theta {
			theta[j] -= eta * grad[j]
		}
		reference.ProjectBall(theta, radius)
	}
}

// Model is the state of a D2D learner: the current dataset, the secret model θ̂_i, the
// published model θ̃_i, and the round. Learn creates it; Update serves one request.
type Model struct {
	plan      Plan
	loss      reference.Loss
	data      *reference.Dataset
	secret    []float64
	published []float64
	grad      []float64
	round     int
	gradEvals int64
}

// Learn runs Algorithm 1 from θ'_0 = 0 for LearnIterations(n) steps on ds and publishes
// (Algorithm 3) with noise drawn from noise.
func Learn(ctx context.Context, plan Plan, loss reference.Loss, ds *reference.Dataset, noise *rand.Rand) (*Model, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if ds.Len() == 0 {
		return nil, fmt.Errorf("d2d learn: empty dataset")
	}
	d := ds.Dim()
	m := &Model{plan: plan, loss: loss, data: ds, secret: make([]float64, d), published: make([]float64, d), grad: make([]float64, d)}
	T := plan.LearnIterations(ds.Len())
	Descend(loss.Objective(ds), m.secret, m.grad, plan.StepSize, plan.Params.Radius, T)
	m.gradEvals += int64(T) * int64(ds.Len())
	m.publish(noise)
	return m, nil
}

func (m *Model) publish(noise *rand.Rand) {
	reference.FillNormal(m.published, m.plan.Sigma, noise)
	for j, v := range m.secret {
		m.published[j] += v
	}
}

// Update serves the next request (Algorithm 2): it applies u to the dataset, runs T_i
// projected GD steps on the new dataset from the previous secret model (secret-state mode)
// or from the projected previous published model (perfect mode), and publishes. An unknown
// or already-deleted ID, or a dataset shrinking below the size the certificate assumes, is
// an error and leaves the model unchanged.
func (m *Model) Update(ctx context.Context, u reference.Update, noise *rand.Rand) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	next, err := m.data.Apply(u)
	if err != nil {
		return fmt.Errorf("d2d update %d: %w", m.round+1, err)
	}
	if floor := m.plan.Params.Floor(); float64(next.Len()) < floor {
		return fmt.Errorf("d2d update %d: %s leaves %d records, below the %v the certificate assumes (n_i ≥ n/2, Assumption 2.6, unless n-floor is set)",
			m.round+1, u, next.Len(), floor)
	}
	if m.plan.Mode == Perfect {
		copy(m.secret, m.published)
		reference.ProjectBall(m.secret, m.plan.Params.Radius)
	}
	m.round++
	m.data = next
	T := m.plan.UpdateIterations(m.round)
	Descend(m.loss.Objective(next), m.secret, m.grad, m.plan.StepSize, m.plan.Params.Radius, T)
	m.gradEvals += int64(T) * int64(next.Len())
	m.publish(noise)
	return nil
}

// Secret returns a copy of the secret model θ̂_i.
func (m *Model) Secret() []float64 { return slices.Clone(m.secret) }

// Published returns a copy of the published model θ̃_i.
func (m *Model) Published() []float64 { return slices.Clone(m.published) }

// Release returns the published model with the secret model it came from.
func (m *Model) Release() reference.Release {
	return reference.Release{Published: m.Published(), Secret: m.Secret()}
}

// Data returns the current dataset 𝒟_i.
func (m *Model) Data() *reference.Dataset { return m.data }

// Round is i, the number of updates served.
func (m *Model) Round() int { return m.round }

// GradientEvaluations counts per-example gradient evaluations so far.
func (m *Model) GradientEvaluations() int64 { return m.gradEvals }

// Plan returns the model's plan.
func (m *Model) Plan() Plan { return m.plan }

// Sensitivity is the Δ the plan's σ is calibrated to: Thm 3.1's Δ in secret-state mode,
// and the tight reading of Thm 3.2's Δ in perfect mode (which holds with probability
// ≥ 1 − δ/2 over the earlier noises).
func (pl Plan) Sensitivity() float64 {
	if pl.Mode == Perfect {
		tight, _ := pl.Params.PerfectSensitivity(pl.Sigma)
		return tight
	}
	return pl.Params.SecretSensitivity()
}

// Radius is the distance to the exact minimiser that the proof needs of the unlearned
// secret model at every round ≥ 1 (Eq. 3 for Thm 3.1, Eq. 13 for Thm 3.2).
func (pl Plan) Radius() float64 {
	if pl.Mode == Perfect {
		return pl.Params.PerfectRadius(pl.Sigma)
	}
	return pl.Params.SecretRadius()
}

// Rho is the zCDP parameter Δ²/(2σ²) of the release: the published laws of the unlearned
// model and the retrain satisfy D_α ≤ α·ρ for every α > 1 (conditional on the noise-norm
// event in perfect mode).
func (pl Plan) Rho() float64 {
	s := pl.Sensitivity()
	if s == 0 {
		return 0
	}
	return s * s / (2 * pl.Sigma * pl.Sigma)
}

// MechanismDelta is the δ the Gaussian mechanism step certifies: δ in secret-state mode,
// δ/2 in perfect mode (the other δ/2 covers the noise-norm event, Lemma A.1).
func (pl Plan) MechanismDelta() float64 {
	if pl.Mode == Perfect {
		return pl.Params.Delta / 2
	}
	return pl.Params.Delta
}

// Recipe is D2D's learning procedure — Algorithm 1, then publishing — in the form a
// retrain from scratch reruns it (it satisfies retrain.Recipe). The publishing noise comes
// from the stream named Purpose (default "d2d/publish").
type Recipe struct {
	Plan    Plan
	Loss    reference.Loss
	Purpose string
}

// Learn trains on ds and publishes.
func (r Recipe) Learn(ctx context.Context, ds *reference.Dataset, s reference.Streams) (reference.Release, error) {
	purpose := r.Purpose
	if purpose == "" {
		purpose = "d2d/publish"
	}
	m, err := Learn(ctx, r.Plan, r.Loss, ds, s.Rand(purpose))
	if err != nil {
		return reference.Release{}, err
	}
	return m.Release(), nil
}
