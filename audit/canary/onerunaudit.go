package canary

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/onerun"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/internal/regular"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"gonum.org/v1/gonum/floats"
)

// CanaryPlanSchema names the canary plan format.
const CanaryPlanSchema = "unlearnaudit/canaries/v1"

// MaxCanaries bounds a plan: a plan lists one inclusion bit a canary.
const MaxCanaries = 1_000_000

// A CanaryPlan is the inclusion plan of a one-run audit (spec estimators-and-attacks
// §(h)), drawn from a seed before training and recorded: canary i is trained on, and then
// deleted, when Included[i] is 1. It is onerun.DrawPlan(Seed, Canaries), so a plan can be
// checked against its seed: an edited plan is refused.
type CanaryPlan struct {
	Schema   string `json:"schema"`
	Seed     uint64 `json:"seed"`
	Canaries int    `json:"canaries"`
	Included []int  `json:"included"` // 0 or 1 a canary, in canary order
}

// NewCanaryPlan draws the plan of m canaries from seed.
func NewCanaryPlan(seed uint64, m int) (CanaryPlan, error) {
	if m < 2 || m > MaxCanaries {
		return CanaryPlan{}, fmt.Errorf("canary plan: %d canaries; want 2 to %d", m, MaxCanaries)
	}
	p := CanaryPlan{Schema: CanaryPlanSchema, Seed: seed, Canaries: m, Included: make([]int, m)}
	for i, in := range onerun.DrawPlan(seed, m) {
		if in {
			p.Included[i] = 1
		}
	}
	return p, nil
}

// Bits is the plan as booleans.
func (p CanaryPlan) Bits() []bool {
	out := make([]bool, len(p.Included))
	for i, v := range p.Included {
		out[i] = v == 1
	}
	return out
}

// ReadCanaryPlan reads a plan written by `audit canaries`, refusing anything but what
// NewCanaryPlan draws from the recorded seed; errors name the file and the field.
func ReadCanaryPlan(path string) (CanaryPlan, error) {
	const maxBytes = 4*MaxCanaries + 4096 // "0, " a canary and a header
	b, err := regular.ReadFile(path, maxBytes)
	var tooLarge *regular.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return CanaryPlan{}, fmt.Errorf("%s: larger than %d bytes, a plan of at most %d canaries", path, maxBytes, MaxCanaries)
	case err != nil: // os errors name the path
		return CanaryPlan{}, fmt.Errorf("read canary plan: %w", err)
	}
	var p CanaryPlan
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return CanaryPlan{}, fmt.Errorf("%s: not a canary plan: %v", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return CanaryPlan{}, fmt.Errorf("%s: text after the plan's JSON object", path)
	}
	switch {
	case p.Schema != CanaryPlanSchema:
		return CanaryPlan{}, fmt.Errorf("%s: schema: want %q", path, CanaryPlanSchema)
	case p.Canaries < 2 || p.Canaries > MaxCanaries:
		return CanaryPlan{}, fmt.Errorf("%s: canaries: %d; want 2 to %d", path, p.Canaries, MaxCanaries)
	case len(p.Included) != p.Canaries:
		return CanaryPlan{}, fmt.Errorf("%s: included: %d entries for %d canaries", path, len(p.Included), p.Canaries)
	}
	want, _ := NewCanaryPlan(p.Seed, p.Canaries)
	for i, v := range p.Included {
		if v != want.Included[i] {
			return CanaryPlan{}, fmt.Errorf("%s: included[%d]: %d, but seed %d draws %d: the plan was edited, or drawn from another seed", path, i, v, p.Seed, want.Included[i])
		}
	}
	return p, nil
}

// VerifyOneRun audits one training run with canaries (spec §(h)): scores holds every
// canary's score under the published unlearned model, in plan order (a loss, or a
// confidence, as s.Scores says). Under a claim of (ε, δ)-unlearning against retraining,
// two plans differing in one canary give (2ε, (1 + e^ε)δ)-close outcomes, so Steinke et
// al.'s one-run lower bound at δ' = (1 + e^ε)δ above 2ε refutes the claim (FAIL, at the
// spec's confidence). Nothing here can show the claim holds: otherwise INCONCLUSIVE.
// Beside it: the f-DP one-run bound (Mahloujifar et al., for the Gaussian trade-off of the
// pair), AUROC and TPR at low FPR of the included against the excluded canaries.
func VerifyOneRun(plan CanaryPlan, scores []float64, s *spec.Spec) (verdict.Claim, []verdict.Finding, error) {
	if len(scores) != plan.Canaries {
		return verdict.Claim{}, nil, fmt.Errorf("verify --one-run: %d scores for the plan's %d canaries", len(scores), plan.Canaries)
	}
	for i, v := range scores {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return verdict.Claim{}, nil, fmt.Errorf("verify --one-run: score of canary %d is %v", i, v)
		}
	}
	member := floats.ScaleTo(make([]float64, len(scores)), s.Scores.MemberSign(), scores) // higher means trained on
	in, _, err := onerun.SplitScores(plan.Bits(), member)
	if err != nil {
		return verdict.Claim{}, nil, fmt.Errorf("verify --one-run: %w", err)
	}
	claim := s.SavedClaim("one training run with canaries", "the law of the published model after deleting the included canaries vs of a retrain without them; tested at (2ε, (1 + e^ε)δ) between two plans that differ in one canary (the triangle through the retrained law)")
	claim.Assumptions = append(claim.Assumptions,
		fmt.Sprintf("the canaries were included as the plan drawn from seed %d says, and all included ones deleted", plan.Seed),
		fmt.Sprintf("the method's guarantee covers deleting the %d included canaries at once", len(in)))
	f, err := OneRunFinding("verify/empirical/one-run", plan.Bits(), member, s.Epsilon, s.Delta, s.Confidence)
	if err != nil {
		return verdict.Claim{}, nil, fmt.Errorf("verify --one-run: %w", err)
	}
	return claim, []verdict.Finding{f}, nil
}

// oneRunPowerRuns and oneRunPowerSeed fix the simulation behind a one-run finding's
// power: 100 runs (a power of 0.8 estimated within about ±0.04), the same every audit.
const (
	oneRunPowerRuns = 100
	oneRunPowerSeed = 0x6f6e6572756e // "onerun"
)

// OneRunFinding judges one training run with canaries (spec §(h)) against a claim of
// (eps, delta)-unlearning: member holds every canary's score under the published model,
// higher meaning trained on, in plan order. Steinke et al.'s one-run ε lower bound at
// δ' = (1 + e^ε)δ, at the given confidence, is compared with 2ε: above it, FAIL; otherwise
// INCONCLUSIVE (a one-run audit never shows that a claim holds). The finding's Check is
// check; its estimates are the f-DP one-run bound, AUROC and TPR at low FPR.
func OneRunFinding(check string, plan []bool, member []float64, eps, delta, confidence float64) (verdict.Finding, error) {
	in, out, err := onerun.SplitScores(plan, member)
	if err != nil {
		return verdict.Finding{}, err
	}
	eps2, delta2 := onerun.UnlearningTarget(eps, delta)
	if !(delta2 < 1) {
		return verdict.Finding{}, fmt.Errorf("(1 + e^ε)·δ = %.3g; a one-run audit needs it below 1", delta2)
	}
	rep, err := onerun.Audit(in, out, 1-confidence, delta2)
	if err != nil {
		return verdict.Finding{}, err
	}
	f := verdict.Finding{
		Check: check, Kind: verdict.Empirical,
		Title:    fmt.Sprintf("one-run ε lower bound (Steinke, Nasr, Jagielski 2023) from %d canaries at δ' = (1 + e^ε)δ = %.3g, against 2ε", len(plan), delta2),
		Measured: rep.EpsilonOneRun, Interval: &verdict.Interval{Lower: rep.EpsilonOneRun, Upper: math.Inf(1)},
		Bound: eps2, Comparison: "≤", Confidence: confidence, Trials: 1,
		Detail: fmt.Sprintf("%d canaries included and deleted, %d not; guesses are the canaries scoring above a threshold chosen among %d Pareto thresholds with Bonferroni; the claim (ε = %.3g, δ = %.3g) makes two plans differing in one canary (2ε, (1 + e^ε)δ) = (%.3g, %.3g)-close, so a bound above %.3g refutes it with one training run",
			len(in), len(out), rep.ParetoThresholds, eps, delta, eps2, delta2, eps2),
	}
	// the most this run could show: every included canary guessed, and nothing else
	best, err := onerun.Epsilon(len(plan), len(in), len(in), 1-confidence, delta2)
	if err != nil {
		return verdict.Finding{}, err
	}
	f.Detail += fmt.Sprintf("; at best (every included canary guessed, no other) this run could show ε ≥ %.3g", best)
	// the first line: what one run with these canaries supports, its power against a
	// Gaussian leak simulated on runs with as many included and excluded canaries
	can := "so a violation of the claim can be shown"
	caught := ""
	if best <= eps2 {
		can = "so no outcome of it can show the claim violated"
	} else {
		mu, err := onerun.SmallestShift(len(in), len(out), eps2, 1-confidence, delta2, verdict.PowerTarget, oneRunPowerRuns, oneRunPowerSeed)
		if err != nil {
			return verdict.Finding{}, err
		}
		if math.IsInf(mu, 1) {
			caught = fmt.Sprintf("; no leak up to μ = %d is caught with %.0f %% power", onerun.MaxShift, 100*verdict.PowerTarget)
		} else {
			caught = fmt.Sprintf("; with %.0f %% power it shows the claim violated when the canaries' scores separate by μ ≥ %.4g (a μ-GDP leak: ε ≥ %.3g at δ'; %d simulated runs of this run's canaries)",
				100*verdict.PowerTarget, mu, dp.GaussianExactEpsilon(mu, delta2), oneRunPowerRuns)
		}
	}
	f.Detail = fmt.Sprintf("What 1 run with %d canaries supports: the most it can show is ε = %.3g (μ = %.3g) at δ' = %.3g, against 2ε = %.3g, %s%s; no number of canaries PASSes the claim (a one-run audit never shows that it holds). The check: ",
		len(plan), best, epsilon.GDPMu(best, delta2), delta2, eps2, can, caught) + f.Detail
	if f.Measured > f.Bound {
		f.Verdict = verdict.Fail
	} else {
		f.Verdict = verdict.Inconclusive
		f.Detail += "; no violation shown (a one-run audit cannot show that a claim holds)"
		if best <= eps2 {
			f.Detail += fmt.Sprintf(", and no outcome of this run could refute the claim: the p-value's δ' term (up to 2·m·δ' = %.3g against 1 − confidence = %.3g) caps the bound; fewer canaries lower it", 2*float64(len(plan))*delta2, 1-confidence)
		} else {
			f.Detail += "; more canaries, or the distributional game on independent runs, decide"
		}
	}
	f.Estimates = []verdict.Estimate{
		{Name: "one-run f-DP ε lower bound (Mahloujifar, Melis, Chaudhuri 2024)", Value: rep.EpsilonOneRunFDP, Note: "refutes the Gaussian trade-off curve calibrated to (ε, δ'); a bound for that curve, reported beside"},
		{Name: "AUROC of the canary scores (convex hull)", Value: rep.AUROC, Note: "jax_privacy's attack_auroc: the area under the ROC's convex hull (rules may randomise between two thresholds), at least the plain AUC; included canaries as positives, excluded as negatives, higher scores ranked as included (the pre-registered direction the guesses use); 0.5 is chance"},
	}
	for i, fpr := range onerun.ReportFPRs() {
		f.Estimates = append(f.Estimates, verdict.Estimate{Name: fmt.Sprintf("TPR at FPR %g", fpr), Value: rep.TPRAtFPR[i], Note: "jax_privacy's interpolation between thresholds"})
	}
	f.Scores = verdict.SummarizeScoresOriented("canary score (higher: trained on, the pre-registered direction)", in, out, true)
	return f, nil
}
