package safeaudit

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/methodkit"
	"github.com/unlearnaudit/unlearnaudit/internal/steps"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat/distuv"
)

// Check sets SAFE's certificate, its implementation, its release and its streaming
// behaviour side by side:
//
//   - certificate: σ recomputed; the shift between SAFE's noiseless model and the exact
//     retrain, round by round, against the sensitivity W that σ is sized for;
//   - implementation: the retention recursion against the gradient recomputed on the
//     records left, and the step's length against γ, every round; and every trial's
//     published model before noise against SAFE's step recomputed for the requests served
//     (publishedFinding);
//   - release: the published laws' divergence at the measured shift (GaussianRelease);
//   - empirical: the distinguishing game and the membership attack, as the attacks ask;
//   - stream: the paper's SVC membership attack on the noiseless models round by round,
//     SAFE's share of deleted records called members against the retrain's (a paired
//     McNemar test, with its power), with RA, FA, TA and MIA traced per round beside
//     the retrain's.
func Check(ctx context.Context, s *Subject, results []trials.TrialResult, opt audit.CheckOptions) ([]verdict.Finding, error) {
	if len(results) == 0 {
		return nil, fmt.Errorf("safe check: no trials")
	}
	conf := opt.Confidence
	if conf == 0 {
		conf = 0.95
	}
	// the checks, for a progress bar: the certificate's and implementation's, the published
	// models', the release, the game, the membership attack, the stream's
	c := s.setup
	pub := methodkit.Published{Prefix: "safe", Epsilon: c.Epsilon, Delta: c.Delta,
		Release: &checks.GaussianRelease{Sigma: s.sigma, Rho: s.rho(), Epsilon: c.Epsilon, Delta: c.Delta}}
	if len(s.deleted) > 0 {
		ids := make([]int64, len(s.deleted))
		for j, r := range s.deleted {
			ids[j] = c.IDs[r]
		}
		m := c.Model
		z := make([]float64, m.Classes())
		score := func(dst, w []float64) {
			for j, r := range s.deleted {
				dst[j] = multiclass.LogOdds(m, w, c.Train.Row(r), c.Train.Y[r], z)
			}
		}
		pub.Members = &checks.MembershipRelease{Score: score, IDs: ids}
	}
	st, ctx := steps.Count(ctx, slices.Concat([]bool{true, true}, pub.Steps(opt), []bool{true})...)
	want := NoiseScalePaper(s.bound, c.Epsilon, c.Delta)
	fs := []verdict.Finding{
		verdict.Deterministic("safe/certificate/sigma", "σ recomputed by Theorem 2(iii), W√(2 ln(1.25/δ))/ε (must not exceed the σ used)", verdict.Certificate,
			want, s.sigma, 0, fmt.Sprintf("W = %.4g, ε = %g, δ = %g%s", s.bound, c.Epsilon, c.Delta, map[bool]string{true: "", false: "; the classic formula needs ε ≤ 1, so this σ certifies nothing here"}[c.Epsilon <= 1])),
	}
	fs[0] = checks.AtPrecision(fs[0], s.sigma, s.bound, results) // σ and W above float64's resolution
	shift := verdict.Trace{Name: "‖w_t − w_t*‖ before noise, after round t", BoundName: "W, the sensitivity σ is sized for"}
	rec := verdict.Trace{Name: "the retention recursion's relative gap after round t", BoundName: "rounding, 1e-10"}
	step := verdict.Trace{Name: "|‖w_t − w₀‖ − γ|/γ after round t", BoundName: "rounding, 1e-12"}
	worstShift, worstRec, worstStep := 0.0, 0.0, 0.0
	for t, r := range s.rounds {
		d := floats.Distance(r.noiseless, r.star, 2)
		stepGap := math.Abs(r.step-s.u.Gamma()) / s.u.Gamma()
		worstShift, worstRec, worstStep = math.Max(worstShift, d), math.Max(worstRec, r.recursion), math.Max(worstStep, stepGap)
		shift.Requests = append(shift.Requests, t+1)
		rec.Requests = append(rec.Requests, t+1)
		step.Requests = append(step.Requests, t+1)
		shift.Values, shift.Bound = append(shift.Values, d), append(shift.Bound, s.bound)
		rec.Values, rec.Bound = append(rec.Values, r.recursion), append(rec.Bound, 1e-10)
		step.Values, step.Bound = append(step.Values, stepGap), append(step.Bound, 1e-12)
	}
	sens := verdict.Deterministic("safe/certificate/sensitivity", "the release's shift from the exact retrain (before noise, every round) within the sensitivity W that σ is sized for", verdict.Certificate,
		worstShift, s.bound, len(s.rounds), fmt.Sprintf("Theorem 2(iii) charges W = ‖w₀‖; the shift can reach ‖w₀ − w_t*‖ + γ ≤ 2W + γ = %.4g (spec safe §3.6)", SensitivityNeeded(s.bound, s.u.Gamma())))
	recF := verdict.Deterministic("safe/implementation/recursion", "the retention gradient by the recursion equals the mean gradient recomputed on the records left (relative, every round)", verdict.Implementation,
		worstRec, 1e-10, len(s.rounds), "the recursion never reads the records left; the gap must be rounding")
	stepF := verdict.Deterministic("safe/implementation/step", "every round's step from w₀ is exactly γ long (relative gap)", verdict.Implementation,
		worstStep, 1e-12, len(s.rounds), fmt.Sprintf("γ = √W/(K√T) = %.4g", s.u.Gamma()))
	for _, p := range []struct {
		f *verdict.Finding
		t verdict.Trace
	}{{&sens, shift}, {&recF, rec}, {&stepF, step}} {
		if err := p.f.AddTrace(p.t); err != nil {
			return nil, err
		}
	}
	fs = append(fs, sens, recF, stepF)
	st.Step()
	if pub, ok := s.publishedFinding(results); ok {
		fs = append(fs, pub)
	}
	st.Step()
	pf, err := pub.Check(ctx, st, opt, results)
	if err != nil {
		return nil, err
	}
	fs = append(fs, pf...)
	stream, err := s.streamFinding(ctx, opt, conf, results[0])
	if err != nil {
		return nil, err
	}
	st.Step()
	return append(fs, stream), nil
}

// streamFinding runs the paper's SVC attack round by round on SAFE's and the retrain's
// noiseless models — the paper's own setting, φ = 0 — and traces RA, FA, TA and MIA per
// round beside the retrain's; those traces describe the stream and decide nothing. Its
// check is on what the claim is about, the release: the first trial's published models
// after the last round. An attacker's raw share of deleted records called members depends
// on how that attacker was fitted, so the check holds half the test records out of the
// attacker's training and asks whether the published model's attacker calls the deleted
// records members more often than those fresh non-members (a one-sided two-proportion
// test, with the excess it would catch with 80 % power).
func (s *Subject) streamFinding(ctx context.Context, opt audit.CheckOptions, conf float64, first trials.TrialResult) (verdict.Finding, error) {
	c := s.setup
	m := c.Model
	k := opt.MIASamples
	if k == 0 {
		k = 300
	}
	k = min(k, c.Test.Len()/2)
	traces := map[string]*verdict.Trace{}
	names := []string{"RA", "FA", "TA", "MIA"}
	get := map[string]func(RoundMetrics) float64{"RA": func(x RoundMetrics) float64 { return x.RA }, "FA": func(x RoundMetrics) float64 { return x.FA },
		"TA": func(x RoundMetrics) float64 { return x.TA }, "MIA": func(x RoundMetrics) float64 { return x.MIA }}
	for _, n := range names {
		traces[n] = &verdict.Trace{Name: n + " (%) of SAFE's noiseless model after round t", BoundName: "the exact retrain's (noiseless)"}
	}
	var rates [2][2]int // per model: deleted called members, held-out called members
	var nF, nH int
	for t, r := range s.rounds {
		cfg := StreamConfig{Train: c.Train, Test: c.Test, Seed: opt.Seed, MIASamples: k, ForgetClass: -1}
		ev, err := newEvaluator(ctx, cfg, r.left, r.forgot, t)
		if err != nil {
			return verdict.Finding{}, err
		}
		inTraining := map[int]bool{}
		for _, i := range ev.nonMember {
			inTraining[i] = true
		}
		var held []int
		for i := range c.Test.Len() {
			if !inTraining[i] {
				held = append(held, i)
			}
		}
		var mets [2]RoundMetrics
		for j, w := range [][]float64{r.noiseless, r.star} {
			if mets[j], err = ev.metrics(ctx, m, w); err != nil {
				return verdict.Finding{}, err
			}
		}
		for j, w := range [][]float64{first.Unlearned.Published, first.Retrained.Published} {
			if t < len(s.rounds)-1 {
				break
			}
			_, calls, err := ev.measure(ctx, m, w)
			if err != nil {
				return verdict.Finding{}, err
			}
			attacker, err := ev.attacker(ctx, m, w)
			if err != nil {
				return verdict.Finding{}, err
			}
			rates[j] = [2]int{}
			for _, called := range calls {
				if called {
					rates[j][0]++
				}
			}
			for _, i := range held {
				if attacker.Predict(sortedProbs(m, w, c.Test.Row(i))) {
					rates[j][1]++
				}
			}
			nF, nH = len(calls), len(held)
		}
		for _, n := range names {
			tr := traces[n]
			tr.Requests = append(tr.Requests, t+1)
			tr.Values, tr.Bound = append(tr.Values, get[n](mets[0])), append(tr.Bound, get[n](mets[1]))
		}
	}
	excess := func(j int) float64 { return float64(rates[j][0])/float64(nF) - float64(rates[j][1])/float64(nH) }
	pooled := float64(rates[0][0]+rates[0][1]) / float64(nF+nH)
	se := math.Sqrt(math.Max(pooled*(1-pooled), 1e-12) * (1/float64(nF) + 1/float64(nH)))
	alpha := 1 - conf
	pValue := 1 - distuv.UnitNormal.CDF(excess(0)/se)
	// at p = ½ (the largest variance), the excess the one-sided test catches with 80 % power
	detectable := (distuv.UnitNormal.Quantile(1-alpha) + distuv.UnitNormal.Quantile(0.8)) * math.Sqrt(0.25*(1/float64(nF)+1/float64(nH)))
	f := verdict.Finding{Check: "safe/stream/svc-attack", Title: "the paper's SVC attack on SAFE's published model (first trial, last round) calls the deleted records members no more often than fresh non-members",
		Kind: verdict.Empirical, Measured: excess(0), Bound: 0, Comparison: "≤", Confidence: conf, Trials: nF,
		Power: verdict.ExcessPower("excess member rate", "deleted records", verdict.ExcessAgainst, detectable, distuv.UnitNormal.Quantile(1-alpha), nF)}
	detail := fmt.Sprintf("deleted records called members %d of %d, held-out non-members %d of %d (excess %.3f; on the retrain's published model: %.3f); the traces follow the noiseless models, the paper's setting", rates[0][0], nF, rates[0][1], nH, excess(0), excess(1))
	f.Verdict = verdict.ExcessVerdict(pValue < alpha, detectable)
	switch f.Verdict {
	case verdict.Fail:
		f.Detail = fmt.Sprintf("%s: one-sided p = %.3g < %.3g, the deleted records still stand out", detail, pValue, alpha)
	case verdict.Pass:
		f.Detail = fmt.Sprintf("%s: p = %.3g; an excess of %.3f would be caught with 80 %% power", detail, pValue, detectable)
	default:
		need := nF
		for need < 1<<30 && (distuv.UnitNormal.Quantile(1-alpha)+distuv.UnitNormal.Quantile(0.8))*math.Sqrt(0.25*(2/float64(need))) > verdict.ExcessAgainst {
			need *= 2
		}
		f.TrialsNeeded, f.Power.TrialsNeeded = need, need
		f.Detail = fmt.Sprintf("%s: p = %.3g, no excess shown, but these counts catch only an excess of %.3f with 80 %% power; about %d deleted and as many held-out records would catch 0.1", detail, pValue, detectable, need)
	}
	for _, name := range names {
		if err := f.AddTrace(*traces[name]); err != nil {
			return verdict.Finding{}, err
		}
	}
	return f, nil
}
