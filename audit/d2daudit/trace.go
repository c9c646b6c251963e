package d2daudit

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
)

// requestTraces follow one trial request by request: they replay trial tr (its own
// randomness, reference.Streams{seed, tr.Index}) one update at a time and, after each
// traced request i, measure the unlearned secret model's distance to the exact minimiser
// on 𝒟_i (against Eq. 3/13's radius, less the oracle's certified error as the final check
// does) and to the retrain's secret A(𝒟_i) (against Δ), and the ε the Gaussian release
// certifies at that measured gap (against the claimed ε). Each value's lower end (the
// trace's Lower) also drops float64's resolution at the models, as checks.DistanceCheck
// does: a request fails its finding only by more than rounding. The final check looks at the last
// request only; a method that drifts out of its radius mid-sequence and back shows here.
//
// ok is false when the replay does not reproduce the trial's final secret model, as for a
// stand-in subject (a negative control) whose Unlearned is not this subject's: its trace
// would not be the trial's.
func (s *Subject) requestTraces(ctx context.Context, seed uint64, tr trials.TrialResult) (radius, gap, eps verdict.Trace, ok bool, err error) {
	st := reference.Streams{Seed: seed, Trial: tr.Index}
	m, err := d2d.Learn(ctx, s.plan, s.setup.Loss, s.setup.Data, st.Rand("d2d/unlearned/publish/0"))
	if err != nil {
		return radius, gap, eps, false, fmt.Errorf("d2d trace: %w", err)
	}
	k := len(s.setup.Updates)
	traced := verdict.TraceRequests(k)
	radius = verdict.Trace{Name: "‖θ'_i − θ*_i‖, the unlearned secret model's distance to the exact minimiser on 𝒟_i (less the oracle's error)",
		BoundName: "the radius the proof needs (Eq. 3 / Eq. 13)"}
	gap = verdict.Trace{Name: "‖θ'_i − A(𝒟_i)‖, distance to the secret model of a retrain from scratch on 𝒟_i", BoundName: "Δ, the sensitivity σ is calibrated to"}
	eps = verdict.Trace{Name: "ε of the Gaussian release at the measured gap (σ used, δ of the mechanism)", BoundName: "claimed ε"}
	next := 0
	for i, u := range s.setup.Updates {
		if err := m.Update(ctx, u, st.Rand(fmt.Sprintf("d2d/unlearned/publish/%d", i+1))); err != nil {
			return radius, gap, eps, false, fmt.Errorf("d2d trace: %w", err)
		}
		if next == len(traced) || traced[next] != i+1 {
			continue
		}
		next++
		data, secret := m.Data(), m.Secret()
		bound := s.plan.RadiusAt(i + 1)
		opt, oracleErr, err := preciseMinimiser(s.plan.Loss(s.setup.Loss).Objective(data), s.setup.Params.Radius, bound)
		if err != nil {
			return radius, gap, eps, false, fmt.Errorf("d2d trace: exact minimiser on 𝒟_%d: %w", i+1, err)
		}
		re, err := s.Recipe().Learn(ctx, data, st)
		if err != nil {
			return radius, gap, eps, false, fmt.Errorf("d2d trace: retrain on 𝒟_%d: %w", i+1, err)
		}
		g := reference.Distance(secret, re.Secret)
		// what float64 cannot resolve at these models: a gap within it is no evidence
		res := checks.ModelResolution(secret, re.Secret, opt.Theta).Distance
		r := math.Max(0, reference.Distance(secret, opt.Theta)-oracleErr)
		gLow := math.Max(0, g-res)
		radius.Requests, gap.Requests, eps.Requests = append(radius.Requests, i+1), append(gap.Requests, i+1), append(eps.Requests, i+1)
		radius.Values, radius.Lower = append(radius.Values, r), append(radius.Lower, math.Max(0, r-res))
		radius.Bound = append(radius.Bound, bound)
		gap.Values, gap.Lower = append(gap.Values, g), append(gap.Lower, gLow)
		gap.Bound = append(gap.Bound, s.plan.Sensitivity())
		eps.Values = append(eps.Values, dp.GaussianEpsilon(g, s.plan.Sigma, s.plan.MechanismDelta()))
		eps.Lower = append(eps.Lower, dp.GaussianEpsilon(gLow, s.plan.Sigma, s.plan.MechanismDelta()))
		eps.Bound = append(eps.Bound, s.setup.Params.Epsilon)
	}
	return radius, gap, eps, slices.Equal(m.Secret(), tr.Unlearned.Secret), nil
}
