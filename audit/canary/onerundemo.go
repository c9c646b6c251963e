package canary

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/onerun"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
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
	Subject string        // the honest subject's name
	Control string        // "" for the honest subject
	Bug     string        // the control's bug
	Claim   verdict.Claim // the claim tested (of the largest m run), with the one-run argument
	// RefutedAt is the smallest m of the ladder whose one-run bound exceeds 2ε (0: none).
	RefutedAt int
	// Largest is the largest m run; Finding is the audit at that m (for a control, the
	// m that refuted it or the cap).
	Largest int
	Finding verdict.Finding
	// Bounds are the one-run ε lower bounds at each m run, in ladder order.
	Bounds []float64
	// Shift is, at the largest m run, the canaries' per-canary Gaussian-DP μ as the run
	// reads it (onerun.BinormalMu: √2·Φ⁻¹(AUC), +Inf when separated), an estimate with a
	// standard error of about √(4/m) near 0.
	Shift float64
	// Allowed is the largest per-canary μ the claim allows: a Gaussian mechanism of that μ
	// is (2ε, (1 + e^ε)δ)-DP for each canary (onerun.GaussianMu), so no one-run audit
	// refutes a leak below it, whatever m.
	Allowed float64
	// Needed is the per-canary μ at which a typical run of Largest canaries refutes the
	// claim (onerun.TypicalRefutingMu; +Inf when no run of that many could).
	Needed float64
	// Refused, when set, says why the method's subjects could not be built on the canary
	// setup at some m (the ladder stops there).
	Refused string
	// Noise names the generator the subject's runs drew their noise from, for those that
	// name one (trials.NoiseStreamOf), as a report states it.
	Noise string
}

// DiracCanaries pads d0 with m zero feature columns and draws m canaries on them (spec
// §(h), "Dirac" canaries): canary i is n·e_{d+i}, n = d0's largest row norm, the i-th new
// coordinate and nothing else, with a random label. No record of d0 and no other canary
// touches that coordinate, so a linear model's weight on it is pulled by canary i alone:
// trained on, the canary moves it to a margin of its own, and the L2 term returns it to 0
// once the canary is gone (the retrain's weight there is exactly 0); never trained on,
// only the published noise is there. The canary's margin under the published model reads
// that coordinate, so the canaries are audited one by one however few features d0 has
// (canaries in d0's own space blur into each other and into the data once m nears d).
// At d0's largest norm the loss's constants (Lipschitz, smoothness) on the padded data
// with canaries are those on d0, so the methods' noise is calibrated as on d0. The
// labels are drawn from (seed, "onerun/canaries"), so the canaries of m are a prefix of
// those of m + k; IDs follow d0's largest.
func DiracCanaries(d0 *reference.Dataset, seed uint64, m int) (*reference.Dataset, []reference.Record, error) {
	if m < 1 {
		return nil, nil, fmt.Errorf("one-run canaries: %d canaries; want at least 1", m)
	}
	padded, err := padColumns(d0, m)
	if err != nil {
		return nil, nil, fmt.Errorf("one-run canaries: %w", err)
	}
	d := d0.Dim()
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
		x := make([]float64, d+m)
		x[d+i] = norm
		y := 1.0
		if r.Uint64()>>63 == 1 {
			y = -1
		}
		out[i] = reference.Record{ID: next + int64(i), X: x, Y: y}
	}
	return padded, out, nil
}

// padColumns is ds with k zero feature columns appended, the records' IDs and labels
// unchanged. It is held sparse whatever ds is: the padding stores nothing, so the losses'
// cost stays that of ds and the canaries' one non-zero each, however many canaries.
func padColumns(ds *reference.Dataset, k int) (*reference.Dataset, error) {
	if sp := ds.Sparse(); sp != nil {
		c := *sp
		c.Cols += k
		return reference.NewSparseDataset(ds.IDs(), &c, slices.Clone(ds.Labels()))
	}
	n, d := ds.Dims()
	c := reference.CSR{Rows: n, Cols: d + k, Indptr: make([]int, 1, n+1)}
	for i := range n {
		for j, v := range ds.Row(i) {
			if v != 0 {
				c.Indices = append(c.Indices, int32(j))
				c.Values = append(c.Values, v)
			}
		}
		c.Indptr = append(c.Indptr, len(c.Values))
	}
	return reference.NewSparseDataset(ds.IDs(), &c, slices.Clone(ds.Labels()))
}

// OneRunSetup is the demo setup of one training run with m canaries (DiracCanaries,
// drawn from base.Seed) and the inclusion plan: the data are base's 𝒟₀, padded with m
// zero columns, plus the canaries the plan includes, and the requests delete every
// included canary, one request each, in canary order, so the final data are the padded
// 𝒟₀ whatever the plan. All holds the padded 𝒟₀ and every canary, so constants declared
// from it do not depend on the plan, and the radius holds the minimiser of every subset
// of it.
func OneRunSetup(base audit.DemoSetup, m int, plan []bool) (audit.DemoSetup, []reference.Record, error) {
	if len(plan) != m {
		return audit.DemoSetup{}, nil, fmt.Errorf("one-run setup: %d plan entries for %d canaries", len(plan), m)
	}
	d0, canaries, err := DiracCanaries(base.Data, base.Seed, m)
	if err != nil {
		return audit.DemoSetup{}, nil, err
	}
	all, err := d0.With(canaries...)
	if err != nil {
		return audit.DemoSetup{}, nil, fmt.Errorf("one-run setup: %w", err)
	}
	var in []reference.Record
	for i, c := range canaries {
		if plan[i] {
			in = append(in, c)
		}
	}
	data, err := d0.With(in...)
	if err != nil {
		return audit.DemoSetup{}, nil, fmt.Errorf("one-run setup: %w", err)
	}
	s := base
	s.All, s.Data = all, data
	s.Updates, s.Deletions = nil, nil
	for _, c := range in {
		s.Updates = append(s.Updates, reference.DeleteID(c.ID))
		s.Deletions = append(s.Deletions, c.ID)
	}
	s.Radius = max(base.Radius, reference.MinimiserRadius(reference.Logistic{Lambda: base.Lambda}, all))
	return s, canaries, nil
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
// negative controls on base's 𝒟₀, for each m of the ladder: it draws the plan
// onerun.DrawPlan(base.Seed, m), builds the setup with m Dirac canaries (OneRunSetup,
// DiracCanaries), asks the method for its subjects on it, runs each subject's and each
// control's Unlearned once (one training run, streams {Seed, Trial: m}), scores every
// canary under the published model (CanaryMargins) and judges the scores with
// OneRunFinding at the subject's claimed (ε, δ). A control is run up to the first m that
// refutes it; an honest subject at every m. Each result carries its μ per canary and
// what the claim allows and a typical run needs (OneRunResult.Reading). The claim tested is the method's own, as the
// subject states it for the deletions of the plan; it composes to the m/2 deletions only
// if the method's certificate accounts for every request it serves, which the claim's
// relation says and the result's claim repeats.
func OneRunDemo(ctx context.Context, m audit.Method, base audit.DemoSetup, variants []string, args audit.Args, cfg OneRunConfig) ([]OneRunResult, error) {
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
	var results []OneRunResult
	index := map[string]int{} // subject or subject~control → results index
	done := map[string]bool{} // controls refuted: not run again
	type resolutionKey struct {
		eps, delta float64
		m          int
	}
	resolutions := map[resolutionKey][2]float64{} // Allowed and Needed, computed once
	for _, mc := range ladder {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if cfg.Progress != nil {
			cfg.Progress(m.Name(), mc)
		}
		plan := onerun.DrawPlan(base.Seed, mc)
		setup, cs, err := OneRunSetup(base, mc, plan)
		if err != nil {
			return nil, err
		}
		audited, err := audit.RunDemo(ctx, m, setup, variants, args)
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
				sub          trials.Subject
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
				f, shift, err := oneRunTrial(ctx, u.sub, claim, cs, plan, base.Seed, mc, conf)
				if err != nil {
					return nil, fmt.Errorf("one-run %s at m = %d: %w", k, mc, err)
				}
				res := &results[i]
				res.Claim, res.Largest, res.Finding = oneRunClaim(claim, mc, len(setup.Deletions)), mc, f
				res.Bounds, res.Shift = append(res.Bounds, f.Measured), shift
				res.Noise, _ = trials.NoiseStreamOf(u.sub)
				rk := resolutionKey{claim.Epsilon, claim.Delta, mc}
				if _, ok := resolutions[rk]; !ok {
					a, n, err := oneRunResolution(claim, mc, conf)
					if err != nil {
						return nil, fmt.Errorf("one-run %s at m = %d: %w", k, mc, err)
					}
					resolutions[rk] = [2]float64{a, n}
				}
				res.Allowed, res.Needed = resolutions[rk][0], resolutions[rk][1]
				if f.Verdict == verdict.Fail && res.RefutedAt == 0 {
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

// Reading says, for a result not refuted, why, from its μ: within what the claim allows
// per canary (no number of canaries refutes it in one run), or above it but below what a
// typical run of Largest canaries needs (more canaries might). "" when refuted or refused.
func (r OneRunResult) Reading() string {
	switch {
	case r.RefutedAt > 0 || r.Largest == 0:
		return ""
	case r.Shift <= r.Allowed:
		return fmt.Sprintf("μ ≈ %.2g per canary, within the %.2g the claim allows each canary: one run shows a leak this small at no m, and the trial audit decides", r.Shift, r.Allowed)
	case math.IsInf(r.Needed, 1):
		return fmt.Sprintf("μ ≈ %s per canary, above the %.2g the claim allows each canary, but no run of %d canaries could refute the claim: more canaries might", fmtMu(r.Shift), r.Allowed, r.Largest)
	}
	return fmt.Sprintf("μ ≈ %s per canary, above the %.2g the claim allows each canary, but a typical run of %d canaries refutes only from μ ≈ %.2g: more canaries might", fmtMu(r.Shift), r.Allowed, r.Largest, r.Needed)
}

// fmtMu prints a per-canary μ, +Inf as "∞ (separated)".
func fmtMu(mu float64) string {
	if math.IsInf(mu, 1) {
		return "∞ (separated)"
	}
	return fmt.Sprintf("%.2g", mu)
}

func key(r OneRunResult) string {
	if r.Control == "" {
		return r.Subject
	}
	return r.Subject + "~" + r.Control
}

// oneRunTrial runs sub's Unlearned once and judges the canaries' scores; it returns the
// finding and the scores' standardised shift (OneRunResult.Shift).
func oneRunTrial(ctx context.Context, sub trials.Subject, claim verdict.Claim, canaries []reference.Record, plan []bool, seed uint64, m int, conf float64) (verdict.Finding, float64, error) {
	rel, err := sub.Unlearned(ctx, reference.Streams{Seed: seed, Trial: m})
	if err != nil {
		return verdict.Finding{}, 0, err
	}
	scores, err := CanaryMargins(rel.Published, canaries)
	if err != nil {
		return verdict.Finding{}, 0, err
	}
	prefix := claimPrefix(sub.Name())
	f, err := OneRunFinding(prefix+"/empirical/one-run", plan, scores, claim.Epsilon, claim.Delta, conf)
	if err != nil {
		return verdict.Finding{}, 0, err
	}
	f.Detail = "each canary scored by its logit-scaled confidence (margin) under the one published model; " + f.Detail
	in, out, err := onerun.SplitScores(plan, scores)
	if err != nil {
		return verdict.Finding{}, 0, err
	}
	mu, err := onerun.BinormalMu(in, out)
	if err != nil {
		return verdict.Finding{}, 0, err
	}
	return f, mu, nil
}

// oneRunResolution is the per-canary μ a claim allows and the μ a typical run of m
// canaries needs to refute it (OneRunResult.Allowed, Needed).
func oneRunResolution(c verdict.Claim, m int, conf float64) (allowed, needed float64, err error) {
	eps2, delta2 := onerun.UnlearningTarget(c.Epsilon, c.Delta)
	if allowed, err = onerun.GaussianMu(eps2, delta2); err != nil {
		return 0, 0, err
	}
	if needed, err = onerun.TypicalRefutingMu(m, 1-conf, eps2, delta2); err != nil {
		return 0, 0, err
	}
	return allowed, needed, nil
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
func oneRunClaim(c verdict.Claim, m, deletions int) verdict.Claim {
	c.Required = []verdict.Kind{verdict.Empirical}
	c.Assumptions = append(slices.Clone(c.Assumptions),
		fmt.Sprintf("the guarantee covers the %d deletions of the plan's included canaries, one request each, as the method's own certificate for this request sequence says (%s)", deletions, c.Relation),
		"the reference the claim compares with is the same law for every plan: a retrain on 𝒟₀")
	c.Notes = append(slices.Clone(c.Notes), oneRunArgument+fmt.Sprintf("; m = %d", m))
	return c
}
