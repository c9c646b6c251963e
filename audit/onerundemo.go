package audit

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit/onerun"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"github.com/unlearnaudit/unlearnaudit/retrain"
	"gonum.org/v1/gonum/floats"
)

// DefaultOneRunLadder is the doubling ladder of canary counts a one-run demo climbs.
var DefaultOneRunLadder = []int{32, 64, 128, 256}

// OneRunConfig configures OneRunDemo.
type OneRunConfig struct {
	// Ladder are the canary counts m tried, increasing (nil: DefaultOneRunLadder). A
	// control is run up to the first m that refutes it; honest subjects at every m.
	Ladder []int
	// Progress, when set, is told each (method, m) before it runs.
	Progress func(method string, m int)
}

// A OneRunResult is one subject's (or control's) one-run audits along the ladder.
type OneRunResult struct {
	Method  string
	Subject string // the honest subject's name
	Control string // "" for the honest subject
	Bug     string // the control's bug
	Claim   Claim  // the claim tested (of the largest m run), with the one-run argument
	// RefutedAt is the smallest m of the ladder whose one-run bound exceeds 2ε (0: none).
	RefutedAt int
	// Largest is the largest m run; Finding is the audit at that m (for a control, the
	// m that refuted it or the cap).
	Largest int
	Finding Finding
	// Bounds are the one-run ε lower bounds at each m run, in ladder order.
	Bounds []float64
	// Refused, when set, says why the method's subjects could not be built on the canary
	// setup at some m (the ladder stops there).
	Refused string
}

// OneRunCanaries draws m canaries for a one-run audit on data d0 (spec §(h)). Each is a
// fresh record at the largest row norm of d0, in a direction drawn at random orthogonal
// to θ₀, the L2-regularised logistic minimiser on d0, and a random label: θ₀ gives every
// canary margin 0, so a canary has no typical label, costs the loss its full gradient
// (ℓ′ = ½) when trained on and is remembered only if trained on; orthogonal to θ₀, the
// canaries trained on do not move the model along the data's direction, so they shift
// every canary's margin alike only through their own directions. At d0's largest norm
// the loss's constants on the data with canaries are those on d0, so the methods' noise
// is the same as on d0. IDs follow d0's largest. The canaries are drawn from (seed,
// "onerun/canaries"), so OneRunCanaries(…, m) is a prefix of OneRunCanaries(…, m+k).
func OneRunCanaries(d0 *reference.Dataset, lambda, radius float64, seed uint64, m int) ([]reference.Record, error) {
	d := d0.Dim()
	theta := make([]float64, d)
	if lambda > 0 {
		opt, err := retrain.Minimize(reference.Logistic{Lambda: lambda}.Objective(d0), radius, retrain.Options{})
		if err != nil {
			return nil, fmt.Errorf("one-run canaries: %w", err)
		}
		theta = opt.Theta
	}
	tn := math.Sqrt(floats.Dot(theta, theta))
	norm := d0.MaxRowNorm()
	if !(norm > 0) {
		norm = 1
	}
	var next int64
	for i := range d0.Len() {
		next = max(next, d0.ID(i)+1)
	}
	r := reference.Stream(seed, 0, "onerun/canaries")
	out := make([]reference.Record, m)
	for i := range out {
		x := make([]float64, d)
		for {
			for j := range x {
				x[j] = r.NormFloat64()
			}
			if tn > 0 && d > 1 {
				c := floats.Dot(x, theta) / (tn * tn)
				for j := range x {
					x[j] -= c * theta[j]
				}
			}
			if n := math.Sqrt(floats.Dot(x, x)); n > 1e-9 {
				for j := range x {
					x[j] *= norm / n
				}
				break
			}
		}
		y := 1.0
		if r.Uint64()>>63 == 1 {
			y = -1
		}
		out[i] = reference.Record{ID: next + int64(i), X: x, Y: y}
	}
	return out, nil
}

// OneRunSetup is the demo setup of one training run with canaries: the data are base's
// 𝒟₀ plus the canaries the plan includes, and the requests delete every included canary,
// one request each, in canary order, so the final data are 𝒟₀ whatever the plan. All
// holds 𝒟₀ and every canary, so constants declared from it do not depend on the plan,
// and the radius holds the minimiser of every subset of it.
func OneRunSetup(base DemoSetup, canaries []reference.Record, plan []bool) (DemoSetup, error) {
	if len(plan) != len(canaries) {
		return DemoSetup{}, fmt.Errorf("one-run setup: %d plan entries for %d canaries", len(plan), len(canaries))
	}
	all, err := base.Data.With(canaries...)
	if err != nil {
		return DemoSetup{}, fmt.Errorf("one-run setup: %w", err)
	}
	var in []reference.Record
	for i, c := range canaries {
		if plan[i] {
			in = append(in, c)
		}
	}
	data, err := base.Data.With(in...)
	if err != nil {
		return DemoSetup{}, fmt.Errorf("one-run setup: %w", err)
	}
	s := base
	s.All, s.Data = all, data
	s.Updates, s.Deletions = nil, nil
	for _, c := range in {
		s.Updates = append(s.Updates, reference.DeleteID(c.ID))
		s.Deletions = append(s.Deletions, c.ID)
	}
	s.Radius = max(base.Radius, reference.MinimiserRadius(reference.Logistic{Lambda: base.Lambda}, all))
	return s, nil
}

// CanaryMargins scores every canary under a published model: its logit-scaled
// confidence, higher meaning more remembered. A model with one coordinate per feature is
// linear logistic (d2d, sglu, olu): the margin y·θᵀx, log p_y − log(1 − p_y). A model of
// 2·(d+1) coordinates is a two-class softmax (hf, safe; classes 0 and 1 for labels −1
// and +1): z_y − z_{1−y}, the same quantity. Any other length is an error.
func CanaryMargins(model []float64, canaries []reference.Record) ([]float64, error) {
	if len(canaries) == 0 {
		return nil, nil
	}
	d := len(canaries[0].X)
	out := make([]float64, len(canaries))
	switch len(model) {
	case d:
		for i, c := range canaries {
			out[i] = c.Y * floats.Dot(model, c.X)
		}
	case 2 * (d + 1):
		sm := multiclass.Softmax{K: 2, P: d}
		z := make([]float64, 2)
		for i, c := range canaries {
			sm.Logits(z, model, c.X)
			if c.Y > 0 {
				out[i] = z[1] - z[0]
			} else {
				out[i] = z[0] - z[1]
			}
		}
	default:
		return nil, fmt.Errorf("one-run: a published model of %d coordinates on %d features is neither linear (%d) nor a two-class softmax (%d): the canaries cannot be scored", len(model), d, d, 2*(d+1))
	}
	for i, v := range out {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("one-run: canary %d scores %v", i, v)
		}
	}
	return out, nil
}

// oneRunArgument is what the one-run claim adds to a method's claim.
const oneRunArgument = "one training run with m canaries, each included with probability ½ (onerun.DrawPlan) and, if included, deleted: if the published model after the deletions is (ε, δ)-indistinguishable from a retrain on what is left (𝒟₀, whatever the plan), two plans differing in one canary give (2ε, (1 + e^ε)δ)-close outcomes, so a one-run ε lower bound above 2ε refutes the claim (spec estimators-and-attacks §(h))"

// OneRunDemo runs the one-run audit of a method's wanted demo variants and their
// negative controls on base's 𝒟₀, for each m of the ladder: it draws m canaries
// (OneRunCanaries) and the plan onerun.DrawPlan(base.Seed, m), builds the setup
// (OneRunSetup), asks the method for its subjects on it, runs each subject's and each
// control's Unlearned once (one training run, streams {Seed, Trial: m}), scores every
// canary under the published model (CanaryMargins) and judges the scores with
// OneRunFinding at the subject's claimed (ε, δ). A control is run up to the first m that
// refutes it; an honest subject at every m. The claim tested is the method's own, as the
// subject states it for the deletions of the plan; it composes to the m/2 deletions only
// if the method's certificate accounts for every request it serves, which the claim's
// relation says and the result's claim repeats.
func OneRunDemo(ctx context.Context, m Method, base DemoSetup, variants []string, args Args, cfg OneRunConfig) ([]OneRunResult, error) {
	ladder := cfg.Ladder
	if ladder == nil {
		ladder = DefaultOneRunLadder
	}
	if len(ladder) == 0 || !slices.IsSorted(ladder) || ladder[0] < 2 {
		return nil, fmt.Errorf("one-run: ladder %v: want increasing canary counts of at least 2", ladder)
	}
	if len(variants) == 0 {
		return nil, nil
	}
	conf := base.Confidence
	if conf == 0 {
		conf = 0.95
	}
	canaries, err := OneRunCanaries(base.Data, base.Lambda, base.Radius, base.Seed, ladder[len(ladder)-1])
	if err != nil {
		return nil, err
	}
	var results []OneRunResult
	index := map[string]int{} // subject or subject~control → results index
	done := map[string]bool{} // controls refuted: not run again
	for _, mc := range ladder {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if cfg.Progress != nil {
			cfg.Progress(m.Name(), mc)
		}
		plan := onerun.DrawPlan(base.Seed, mc)
		cs := canaries[:mc]
		setup, err := OneRunSetup(base, cs, plan)
		if err != nil {
			return nil, err
		}
		audited, err := m.Demo(setup, variants, args)
		if err != nil {
			refused := fmt.Sprintf("the method refuses the setup of %d canaries (%d deletions): %v", mc, len(setup.Deletions), err)
			if len(results) == 0 {
				for _, v := range variants {
					results = append(results, OneRunResult{Method: m.Name(), Subject: v, Refused: refused})
				}
			}
			for i := range results {
				if results[i].Refused == "" && !done[key(results[i])] {
					results[i].Refused = refused
				}
			}
			break
		}
		for _, a := range audited {
			type unit struct {
				control, bug string
				sub          Subject
			}
			units := []unit{{sub: a.Subject}}
			for _, c := range a.Controls {
				units = append(units, unit{c.Name, c.Bug, c.Audited.Subject})
			}
			for _, u := range units {
				r := OneRunResult{Method: m.Name(), Subject: a.Subject.Name(), Control: u.control, Bug: u.bug}
				k := key(r)
				if done[k] {
					continue
				}
				i, ok := index[k]
				if !ok {
					i = len(results)
					index[k] = i
					results = append(results, r)
				}
				claim := u.sub.Claim()
				f, err := oneRunTrial(ctx, u.sub, claim, cs, plan, base.Seed, mc, conf)
				if err != nil {
					return nil, fmt.Errorf("one-run %s at m = %d: %w", k, mc, err)
				}
				res := &results[i]
				res.Claim, res.Largest, res.Finding = oneRunClaim(claim, mc, len(setup.Deletions)), mc, f
				res.Bounds = append(res.Bounds, f.Measured)
				if f.Verdict == Fail && res.RefutedAt == 0 {
					res.RefutedAt = mc
					if u.control != "" {
						done[k] = true
					}
				}
			}
		}
	}
	return results, nil
}

func key(r OneRunResult) string {
	if r.Control == "" {
		return r.Subject
	}
	return r.Subject + "~" + r.Control
}

// oneRunTrial runs sub's Unlearned once and judges the canaries' scores.
func oneRunTrial(ctx context.Context, sub Subject, claim Claim, canaries []reference.Record, plan []bool, seed uint64, m int, conf float64) (Finding, error) {
	rel, err := sub.Unlearned(ctx, reference.Streams{Seed: seed, Trial: m})
	if err != nil {
		return Finding{}, err
	}
	scores, err := CanaryMargins(rel.Published, canaries)
	if err != nil {
		return Finding{}, err
	}
	prefix := claimPrefix(sub.Name())
	f, err := OneRunFinding(prefix+"/empirical/one-run", plan, scores, claim.Epsilon, claim.Delta, conf)
	if err != nil {
		return Finding{}, err
	}
	f.Detail = "each canary scored by its logit-scaled confidence (margin) under the one published model; " + f.Detail
	return f, nil
}

func claimPrefix(name string) string {
	if i := strings.IndexAny(name, "/~"); i >= 0 {
		return name[:i]
	}
	return name
}

// oneRunClaim is the method's claim as the one-run audit tests it: the empirical
// finding decides (the one-run audit holds none of the method's state), and the
// argument and its assumption are stated.
func oneRunClaim(c Claim, m, deletions int) Claim {
	c.Required = []Kind{Empirical}
	c.Assumptions = append(slices.Clone(c.Assumptions),
		fmt.Sprintf("the guarantee covers the %d deletions of the plan's included canaries, one request each, as the method's own certificate for this request sequence says (%s)", deletions, c.Relation),
		"the reference the claim compares with is the same law for every plan: a retrain on 𝒟₀")
	c.Notes = append(slices.Clone(c.Notes), oneRunArgument+fmt.Sprintf("; m = %d", m))
	return c
}
