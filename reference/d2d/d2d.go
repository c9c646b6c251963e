package d2d

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
)

// Mode is the D2D variant.
type Mode int

const (
	// SecretState: strongly convex f, each update warm-starts from the previous secret
	// (pre-noise) model (Theorem 3.1). The secret model must be kept private; only its
	// noisy image is certified.
	SecretState Mode = iota
	// Perfect: strongly convex f, each update warm-starts from the previous published
	// model, projected onto Θ (Theorem 3.2), so everything the system keeps is certified.
	Perfect
	// ConvexStrong: convex f made strongly convex by an added ridge term m chosen by
	// Theorem 3.4; T_i = I (strong unlearning).
	ConvexStrong
	// ConvexWeak: convex f with the ridge term of Theorem 3.5 / Remark 3.6 and
	// T_i = i^{2ξ}·I (weak unlearning: the cost grows with the sequence).
	ConvexWeak
)

var modeNames = map[Mode]string{SecretState: "strongly-convex", Perfect: "perfect", ConvexStrong: "convex-strong", ConvexWeak: "convex-weak"}

func (m Mode) String() string { return modeNames[m] }

// ParseMode reads "strongly-convex" (or "secret"), "perfect", "convex-strong" and
// "convex-weak".
func ParseMode(s string) (Mode, error) {
	if s == "secret" || s == "secret-state" {
		return SecretState, nil
	}
	for m, name := range modeNames {
		if s == name {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown D2D variant %s; want strongly-convex, perfect, convex-strong or convex-weak", clip.Quote(s))
}

// Convex reports whether the mode adds its own ridge term to a convex loss.
func (m Mode) Convex() bool { return m == ConvexStrong || m == ConvexWeak }

// A Plan is a validated configuration with everything derived from it: the ridge weight
// of the convex variants, step size, contraction, noise scale and iteration schedule.
type Plan struct {
	Mode     Mode
	Params   Params
	Reg      float64 // the ridge weight m the convex variants add (0 otherwise)
	Gamma    float64 // contraction of one GD step on the objective the algorithm runs
	StepSize float64 // η
	Sigma    float64 // publishing noise
}

// NewPlan validates the parameters for the mode and derives the plan. Perfect mode needs
// the dimension and refuses a budget below I_min (spec d2d §4.9); the convex modes need
// the dimension for their regulariser.
func NewPlan(mode Mode, p Params) (Plan, error) {
	pl := Plan{Mode: mode, Params: p}
	switch mode {
	case SecretState, Perfect:
		if err := p.Validate(); err != nil {
			return Plan{}, fmt.Errorf("d2d %s: %w", mode, err)
		}
		pl.Gamma, pl.StepSize = p.Gamma(), p.StepSize()
		if mode == SecretState {
			pl.Sigma = p.SecretSigma()
			break
		}
		if p.Dim < 1 {
			return Plan{}, fmt.Errorf("d2d perfect: dimension: d = %d; Thm 3.2 needs d ≥ 1", p.Dim)
		}
		if minI := p.PerfectMinBudget(); p.Budget < minI {
			return Plan{}, fmt.Errorf("d2d perfect: iterations: I = %d is below I_min = %d (Thm 3.2)", p.Budget, minI)
		}
		pl.Sigma = p.PerfectSigma()
	case ConvexStrong, ConvexWeak:
		if err := p.validateConvex(mode == ConvexWeak); err != nil {
			return Plan{}, fmt.Errorf("d2d %s: %w", mode, err)
		}
		L, M, diam := p.Lipschitz, p.Smoothness, p.Diameter()
		switch {
		case mode == ConvexWeak:
			pl.Reg = RegLambdaWeak(L, M, diam, p.Dim, p.N, p.Budget, p.Epsilon, p.Delta, p.xi())
		case p.Exponent == AsPrinted:
			pl.Reg = RegLambdaStrongAsPrinted(L, M, diam, p.Dim, p.N, p.Budget, p.Epsilon, p.Delta)
		default:
			pl.Reg = RegLambdaStrong(L, M, diam, p.Dim, p.N, p.Budget, p.Epsilon, p.Delta)
		}
		pl.Gamma, pl.StepSize = RegGamma(M, pl.Reg), 2/(M+2*pl.Reg)
		if mode == ConvexStrong {
			pl.Sigma = dp.GaussianSigma(pl.Sensitivity(), p.Epsilon, p.Delta)
		} else {
			_, den := ellDen(p.Epsilon, p.Delta)
			pl.Sigma = WeakSigmaConstant(p.xi(), p.SigmaConstant) * pl.weakRho() / 4 / den
		}
	default:
		return Plan{}, fmt.Errorf("d2d: unknown mode %d", mode)
	}
	return pl, nil
}

// strongConvexity is the strong convexity of the objective the algorithm runs.
func (pl Plan) strongConvexity() float64 {
	if pl.Mode.Convex() {
		return pl.Reg
	}
	return pl.Params.StrongConvexity
}

// lipschitz is the Lipschitz constant of the objective's per-example terms: L, or
// L + mD for the regularised g (Claim 3.3).
func (pl Plan) lipschitz() float64 {
	if pl.Mode.Convex() {
		return pl.Params.Lipschitz + pl.Reg*pl.Params.Diameter()
	}
	return pl.Params.Lipschitz
}

// unit is the sensitivity of the objective's minimiser to one update under Assumption 2.6,
// 2L/(m·n_floor) (4L/(mn) with n_floor = n/2; Lemma 2.12).
func (pl Plan) unit() float64 {
	return 2 * pl.lipschitz() / (pl.strongConvexity() * pl.Params.Floor())
}

// weakRho is ρ_ξ = (4L'/(mn))·(M/(mI))^{1/(2ξ)} (Eq. 19, Remark 3.6) with n_floor.
func (pl Plan) weakRho() float64 {
	p := pl.Params
	return pl.unit() * fexp.Pow(p.Smoothness/(pl.Reg*float64(p.Budget)), 1/(2*p.xi()))
}

// Loss is the objective the algorithm runs for a given loss f: f itself, or f with the
// convex variants' ridge term added.
func (pl Plan) Loss(f reference.Loss) reference.Loss {
	if pl.Mode.Convex() {
		return f.WithRegularization(f.Regularization() + pl.Reg)
	}
	return f
}

// LearnIterations is the learner's iteration count on a dataset of size n: the theorems'
// T ≥ I + ln(D·m·n/(2L))/ln(1/γ), with m and γ of the objective the algorithm runs and L
// of f (Theorems 3.4 and 3.5 print L rather than L + mD, which only adds iterations).
func (pl Plan) LearnIterations(n int) int {
	p := pl.Params
	extra := math.Log(p.Diameter()*pl.strongConvexity()*float64(n)/(2*p.Lipschitz)) / math.Log(1/pl.Gamma)
	return int(math.Ceil(float64(p.Budget) + math.Max(0, extra)))
}

// LearnRadius bounds the learner's distance to the minimiser of the objective on a dataset
// of size n: (2L/(m n))·γ^I (Eq. 2; Eq. 17 for the regularised objective).
func (pl Plan) LearnRadius(n int) float64 {
	return 2 * pl.Params.Lipschitz / (pl.strongConvexity() * float64(n)) * powGamma(pl.Gamma, float64(pl.Params.Budget))
}

// MaxUpdateIterations is the largest T_i a plan schedules: beyond 2^53 a float64 no
// longer holds the count exactly, and an int overflows soon after.
const MaxUpdateIterations = 1 << 53

// CheckUpdate says whether update i's iteration count T_i fits MaxUpdateIterations. Only
// convex-weak mode, whose T_i = ⌈i^{2ξ}·I⌉ grows as a power of i, can exceed it.
func (pl Plan) CheckUpdate(i int) error {
	if pl.Mode != ConvexWeak {
		return nil
	}
	xi := pl.Params.xi()
	if t := fexp.Pow(float64(i), 2*xi) * float64(pl.Params.Budget); !(t <= MaxUpdateIterations) {
		return fmt.Errorf("update %d: T_%d = %d^(2ξ)·I ≈ %.3g iterations at ξ = %g, beyond 2^53", i, i, i, t, xi)
	}
	return nil
}

// UpdateIterations is T_i, the iterations of the i-th update (i ≥ 1): I in secret-state
// and convex-strong modes, I + ln(ln(4di/δ))/ln(1/γ) in perfect mode, ⌈i^{2ξ}·I⌉ in
// convex-weak mode.
func (pl Plan) UpdateIterations(i int) int {
	switch pl.Mode {
	case Perfect:
		return pl.Params.PerfectUpdateIterations(i)
	case ConvexWeak:
		return WeakIterations(i, pl.Params.Budget, pl.Params.xi())
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
// published model θ̃_i, and the round. Learn creates it; Update serves one request. The
// dataset lives in a reference.Store, so a request costs O(d) bookkeeping besides its
// gradient steps, not a copy of the data.
type Model struct {
	plan      Plan
	loss      reference.Loss
	data      *reference.Store
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
	m := &Model{plan: plan, loss: loss, data: reference.NewStore(ds), secret: make([]float64, d), published: make([]float64, d), grad: make([]float64, d)}
	T := plan.LearnIterations(ds.Len())
	Descend(plan.Loss(loss).Objective(ds), m.secret, m.grad, plan.StepSize, plan.Params.Radius, T)
	m.gradEvals += int64(T) * int64(ds.Len())
	m.publish(noise)
	return m, nil
}

func (m *Model) publish(noise *rand.Rand) { m.plan.publishInto(m.published, m.secret, noise) }

// Publish is Algorithm 3 alone: the secret model plus N(0, σ²I) noise drawn from noise,
// as a Model publishes it (the same draws, the same bits). Outside Perfect mode the
// descent never reads the published model, so a run's secret models do not depend on the
// noise: an audit can descend once and publish many times.
func (pl Plan) Publish(secret []float64, noise *rand.Rand) []float64 {
	out := make([]float64, len(secret))
	pl.publishInto(out, secret, noise)
	return out
}

func (pl Plan) publishInto(dst, secret []float64, noise *rand.Rand) {
	reference.FillNormal(dst, pl.Sigma, noise)
	for j, v := range secret {
		dst[j] += v
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
	if err := m.data.Check(u); err != nil {
		return fmt.Errorf("d2d update %d: %w", m.round+1, err)
	}
	n := m.data.Len() + 1
	if u.Kind == reference.Delete {
		n -= 2
	}
	if floor := m.plan.Params.Floor(); float64(n) < floor {
		return fmt.Errorf("d2d update %d: %s leaves %d records, below the %v the certificate assumes (n_i ≥ n/2, Assumption 2.6, unless n-floor is set)",
			m.round+1, u, n, floor)
	}
	if err := m.data.Apply(u); err != nil {
		return fmt.Errorf("d2d update %d: %w", m.round+1, err)
	}
	if m.plan.Mode == Perfect {
		copy(m.secret, m.published)
		reference.ProjectBall(m.secret, m.plan.Params.Radius)
	}
	m.round++
	next := m.data.View()
	T := m.plan.UpdateIterations(m.round)
	Descend(m.plan.Loss(m.loss).Objective(next), m.secret, m.grad, m.plan.StepSize, m.plan.Params.Radius, T)
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

// Data returns a copy of the current dataset 𝒟_i. Its records are those the requests
// left; their row order is the store's (a deletion moves the last row into the hole).
func (m *Model) Data() *reference.Dataset { return m.data.Snapshot() }

// Round is i, the number of updates served.
func (m *Model) Round() int { return m.round }

// GradientEvaluations counts per-example gradient evaluations so far.
func (m *Model) GradientEvaluations() int64 { return m.gradEvals }

// Plan returns the model's plan.
func (m *Model) Plan() Plan { return m.plan }

// Sensitivity is the Δ the proof certifies between the unlearned and the retrained
// pre-noise models: Theorem 3.1's (8L/(mn))·γ^I/(1−γ^I); the tight reading of
// Theorem 3.2's Δ (with probability ≥ 1 − δ/2 over the earlier noises); Theorem 3.1's Δ
// for g in convex-strong mode; and 2c_ξ·ρ_ξ in convex-weak mode (Eq. 19 with the tight
// Fact E.1, spec d2d §3.7).
func (pl Plan) Sensitivity() float64 {
	switch pl.Mode {
	case Perfect:
		tight, _ := pl.Params.PerfectSensitivity(pl.Sigma)
		return tight
	case ConvexWeak:
		return 2 * WeakTightFactor(pl.Params.xi()) * pl.weakRho()
	}
	return 2 * pl.unit() * ratio(pl.Gamma, pl.Params.Budget)
}

// RadiusAt is the distance to the exact minimiser of the objective that the proof needs of
// the unlearned secret model after update i ≥ 1: Eq. 3 (Theorems 3.1, 3.4), Eq. 13
// (Theorem 3.2, with probability ≥ 1 − δ/2), and Eq. 18, (4L'/(mn))·i·γ^{T_i}, for the
// weak variant.
func (pl Plan) RadiusAt(i int) float64 {
	switch pl.Mode {
	case Perfect:
		return pl.Params.PerfectRadius(pl.Sigma)
	case ConvexWeak:
		return pl.unit() * float64(i) * powGamma(pl.Gamma, float64(pl.UpdateIterations(i)))
	}
	return pl.unit() * ratio(pl.Gamma, pl.Params.Budget)
}

// CertifiedSigma is the σ the proof needs for this plan's constants and ridge weight,
// with the corrected readings: it differs from Sigma only when the deployment chose the
// weak variant's printed constant 2√2, which falls short for ξ > 2.
func (pl Plan) CertifiedSigma() float64 {
	if pl.Mode == Perfect {
		return pl.Params.PerfectSigma()
	}
	return dp.GaussianSigma(pl.Sensitivity(), pl.Params.Epsilon, pl.Params.Delta)
}

// Rho is the zCDP parameter Δ²/(2σ²) of the release: the published laws of the unlearned
// model and the retrain satisfy D_α ≤ α·ρ for every α > 1 (conditional on the noise-norm
// event in perfect mode).
func (pl Plan) Rho() float64 {
	return dp.GaussianRho(pl.Sensitivity(), pl.Sigma)
}

// MechanismDelta is the δ the Gaussian mechanism step certifies: δ/2 in perfect mode (the
// other δ/2 covers the noise-norm event, Lemma A.1), δ otherwise.
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
