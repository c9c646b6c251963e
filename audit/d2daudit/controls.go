package d2daudit

import (
	"context"
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/controls"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
)

// Controls are the negative controls of a subject (audit.Control): D2D with one of three
// real bugs, each audited by the subject's own checks, which must FAIL it.
//
//   - no-unlearning: the model learned on 𝒟₀ is published (with the right noise) and the
//     requests are ignored;
//   - weak-noise: the published noise is a tenth of the σ the certificate needs;
//   - sees-deleted: every update descends on the data before the request, so a deleted
//     record still pulls the model.
func Controls(s *Subject, opt audit.CheckOptions) []audit.Control {
	set := controls.Set{Of: s, Check: func(ctx context.Context, r []trials.TrialResult) ([]verdict.Finding, error) {
		return Check(ctx, s, r, opt)
	}}
	return []audit.Control{
		set.Mutant(controls.NoUnlearning, "publishes the model learned before the requests, with the right noise, ignoring every deletion", with(s, noUnlearning)),
		set.Mutant(controls.WeakNoise, "publishes with a tenth of the noise the certificate needs", set.NoiseDividedBy(10)),
		set.Mutant("sees-deleted", "each update descends on the data before its request, so a deleted record still pulls the model", with(s, seesDeleted)),
	}
}

// with binds a mutant's run to s.
func with(s *Subject, run func(s *Subject, ctx context.Context, st reference.Streams) (reference.Release, error)) controls.Run {
	return func(ctx context.Context, st reference.Streams) (reference.Release, error) { return run(s, ctx, st) }
}

// learnOn runs the subject's learner on data and returns its secret model.
func learnOn(s *Subject, data *reference.Dataset) []float64 {
	plan, p := s.plan, s.plan.Params
	theta := make([]float64, data.Dim())
	grad := make([]float64, len(theta))
	d2d.Descend(plan.Loss(s.setup.Loss).Objective(data), theta, grad, plan.StepSize, p.Radius, plan.LearnIterations(data.Len()))
	return theta
}

// publish adds the plan's noise (scaled) to theta from the control's own stream.
func publish(s *Subject, theta []float64, scale float64, st reference.Streams) reference.Release {
	pub := make([]float64, len(theta))
	reference.FillNormal(pub, scale*s.plan.Sigma, st.Rand("control/publish"))
	for j := range pub {
		pub[j] += theta[j]
	}
	return reference.Release{Published: pub, Secret: theta}
}

func noUnlearning(s *Subject, _ context.Context, st reference.Streams) (reference.Release, error) {
	return publish(s, learnOn(s, s.setup.Data), 1, st), nil
}

func seesDeleted(s *Subject, _ context.Context, st reference.Streams) (reference.Release, error) {
	plan, p := s.plan, s.plan.Params
	data := s.setup.Data
	theta := learnOn(s, data)
	grad := make([]float64, len(theta))
	noise := make([]float64, len(theta))
	for i, u := range s.setup.Updates {
		next, err := data.Apply(u)
		if err != nil {
			return reference.Release{}, err
		}
		if plan.Mode == d2d.Perfect { // perfect mode perturbs the state at every update
			reference.FillNormal(noise, plan.Sigma, st.Rand(fmt.Sprintf("control/%d", i)))
			for j := range theta {
				theta[j] += noise[j]
			}
			reference.ProjectBall(theta, p.Radius)
		}
		d2d.Descend(plan.Loss(s.setup.Loss).Objective(data), theta, grad, plan.StepSize, p.Radius, plan.UpdateIterations(i+1)) // the bug: data, not next
		data = next
	}
	return publish(s, theta, 1, st), nil
}
