package hf

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/floats"
)

// SoftmaxD2DParams are the constants Descent-to-Delete needs for L2-regularised softmax
// regression on data whose rows have norm at most maxNorm: the minimiser lies in the ball
// of radius R = √2·√(maxNorm² + 1)/λ (the cross-entropy's gradient norm over λ), and on
// that ball every per-record loss is L = 2√2·√(maxNorm² + 1)-Lipschitz, M = s.Smoothness
// smooth and λ-strongly convex. The rest of p (N, Dim, Budget, ε, δ) is the caller's.
func SoftmaxD2DParams(s multiclass.Softmax, maxNorm float64, p d2d.Params) d2d.Params {
	ce := math.Sqrt2 * math.Sqrt(maxNorm*maxNorm+1)
	p.Radius = ce / s.Lambda
	p.Constants = reference.Constants{Lipschitz: 2 * ce, Smoothness: s.Smoothness(maxNorm), StrongConvexity: s.Lambda}
	return p
}

// D2D is Descent-to-Delete (Neel et al. 2021; spec hf §2.7 names it as a baseline) on a
// multiclass model: its plan — step size, noise and iteration schedule — comes from
// reference/d2d for the model's declared constants, and it runs that plan's projected
// full-batch gradient descent on the records not yet deleted: learning from 0, then
// UpdateIterations(i) steps from the secret model for the i-th request, publishing the
// secret model plus N(0, σ²I). Unlike HF it touches the data at every request.
type D2D struct {
	Plan      d2d.Plan
	model     multiclass.Model
	data      *multiclass.Data
	keep      []int // rows not deleted, in order
	deleted   map[int]bool
	secret    []float64
	published []float64
	round     int
	grad, tmp []float64
}

// NewD2D learns: LearnIterations(n) projected steps from 0, then publishes from r.
func NewD2D(ctx context.Context, m multiclass.Model, data *multiclass.Data, plan d2d.Plan, r *rand.Rand) (*D2D, error) {
	s, err := newD2D(m, data, plan, make([]float64, m.Dim()))
	if err != nil {
		return nil, err
	}
	if err := s.descend(ctx, plan.LearnIterations(len(s.keep))); err != nil {
		return nil, err
	}
	s.publish(r)
	return s, nil
}

// NewD2DFrom starts D2D's secret state at a model trained elsewhere (projected onto the
// plan's ball) instead of its own learning phase, and publishes from r. The plan's
// certificate assumes the learning phase's accuracy, which a start from elsewhere does not
// carry: this is how a comparison that shares one original model among methods runs D2D,
// not a certified deployment.
func NewD2DFrom(m multiclass.Model, data *multiclass.Data, plan d2d.Plan, start []float64, r *rand.Rand) (*D2D, error) {
	if len(start) != m.Dim() {
		return nil, fmt.Errorf("hf d2d: the start has %d entries, the model %d parameters", len(start), m.Dim())
	}
	s, err := newD2D(m, data, plan, slices.Clone(start))
	if err != nil {
		return nil, err
	}
	reference.ProjectBall(s.secret, plan.Params.Radius)
	s.publish(r)
	return s, nil
}

func newD2D(m multiclass.Model, data *multiclass.Data, plan d2d.Plan, secret []float64) (*D2D, error) {
	if plan.Params.N != data.Len() {
		return nil, fmt.Errorf("hf d2d: the plan is for n = %d records, the data hold %d", plan.Params.N, data.Len())
	}
	d := m.Dim()
	s := &D2D{Plan: plan, model: m, data: data, deleted: map[int]bool{}, secret: secret, grad: make([]float64, d), tmp: make([]float64, d)}
	for i := range data.Len() {
		s.keep = append(s.keep, i)
	}
	return s, nil
}

// descend runs projected full-batch gradient descent on the kept rows (their mean
// gradient through an Objective, which evaluates Softmax in fused blocks).
func (s *D2D) descend(ctx context.Context, steps int) error {
	o, err := multiclass.NewObjective(s.model, s.data, s.keep, nil)
	if err != nil {
		return err
	}
	inv := 1 / float64(len(s.keep))
	for k := range steps {
		if k%32 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		o.Gradient(s.grad, s.secret)
		floats.AddScaled(s.secret, -s.Plan.StepSize*inv, s.grad)
		reference.ProjectBall(s.secret, s.Plan.Params.Radius)
	}
	return nil
}

func (s *D2D) publish(r *rand.Rand) {
	s.published = make([]float64, len(s.secret))
	reference.FillNormal(s.published, s.Plan.Sigma, r)
	for j, v := range s.secret {
		s.published[j] += v
	}
}

// Delete serves one request deleting row: UpdateIterations(i) steps on the rows left,
// from the secret model, and a fresh publication from r. A row deleted before is
// ErrAlreadyDeleted.
func (s *D2D) Delete(ctx context.Context, row int, r *rand.Rand) error {
	return s.DeleteBatch(ctx, []int{row}, r)
}

// DeleteBatch serves one request deleting several rows as one update (a row named twice
// counts once). The plan's σ is sized for one record per update: a request of m records
// is covered only by group privacy, at m times the sensitivity, which the caller must
// account for.
func (s *D2D) DeleteBatch(ctx context.Context, rows []int, r *rand.Rand) error {
	seen := map[int]bool{}
	for _, row := range rows {
		switch {
		case row < 0 || row >= s.data.Len():
			return fmt.Errorf("hf d2d delete: row %d is not in the data (%d rows)", row, s.data.Len())
		case s.deleted[row]:
			return fmt.Errorf("hf d2d delete: row %d: %w", row, ErrAlreadyDeleted)
		}
		seen[row] = true
	}
	if len(seen) >= len(s.keep) {
		return fmt.Errorf("hf d2d delete: the request would delete the %d records left", len(s.keep))
	}
	if err := s.Plan.CheckUpdate(s.round + 1); err != nil {
		return fmt.Errorf("hf d2d delete: %w", err)
	}
	for row := range seen {
		s.deleted[row] = true
	}
	s.keep = slices.DeleteFunc(s.keep, func(i int) bool { return seen[i] })
	s.round++
	if err := s.descend(ctx, s.Plan.UpdateIterations(s.round)); err != nil {
		return err
	}
	s.publish(r)
	return nil
}

// Secret is the secret model θ̂_i (a copy); Published the last release (a copy).
func (s *D2D) Secret() []float64    { return slices.Clone(s.secret) }
func (s *D2D) Published() []float64 { return slices.Clone(s.published) }
