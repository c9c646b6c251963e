package safeaudit

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"github.com/unlearnaudit/unlearnaudit/reference/safe"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat/distuv"
)

// Setup is one SAFE audit: softmax regression trained exactly on Train (w₀ the minimiser,
// as the theorems assume), a stream of requests served by SAFE with Config, published with
// the noise of Theorem 2(iii) — σ = W√(2 ln(1.25/δ))/ε, W = ‖w₀‖ — against the exact retrain
// on the records left with the same noise. Test holds the records the membership attack
// takes as non-members.
type Setup struct {
	Model          multiclass.Softmax
	Train, Test    *multiclass.Data
	IDs            []int64 // Train's record IDs, for the reports
	Stream         [][]int // rows of Train per round
	Config         safe.Config
	Epsilon, Delta float64
	Seed           uint64
}

// Subject is a SAFE audit subject (audit.Subject). SAFE is deterministic given its
// projection (drawn once, from the subject's seed) and the trials differ in the
// publishing noise only; the retrain is the exact minimiser, the same every trial.
type Subject struct {
	setup   Setup
	w0      []float64
	wT      []float64 // SAFE's noiseless model after the last round
	star    []float64 // the exact retrain on the records left
	u       *safe.Unlearner
	rounds  []roundRecord
	bound   float64 // W
	sigma   float64
	fp      string
	deleted []int
}

// roundRecord is what the subject measured after one round, for the checks.
type roundRecord struct {
	noiseless, star []float64
	recursion       float64 // relative gap of the retention recursion
	step            float64 // ‖w_t − w₀‖ before noise
	left, forgot    []int
}

// New trains w₀, serves the stream by SAFE and retrains exactly after every round (the
// per-round checks need it), and computes the certificate.
func New(ctx context.Context, s Setup) (*Subject, error) {
	if len(s.Stream) == 0 {
		return nil, fmt.Errorf("safe: no requests")
	}
	if len(s.IDs) != s.Train.Len() {
		return nil, fmt.Errorf("safe: %d record IDs for %d rows", len(s.IDs), s.Train.Len())
	}
	o, err := multiclass.NewObjective(s.Model, s.Train, nil, nil)
	if err != nil {
		return nil, err
	}
	res, err := multiclass.Minimize(ctx, o, nil, multiclass.MinimizeOptions{})
	if err != nil {
		return nil, fmt.Errorf("safe: w₀: %w", err)
	}
	sub := &Subject{setup: s, w0: res.W}
	cfg := s.Config
	cfg.T = len(s.Stream)
	cfg.Phi = 0 // the subject adds the noise itself, per trial
	if sub.u, err = safe.New(ctx, s.Model, s.Train, sub.w0, cfg, reference.Stream(s.Seed, 0, "safe/projection")); err != nil {
		return nil, err
	}
	sub.bound = sub.u.Bound()
	sub.sigma = NoiseScalePaper(sub.bound, s.Epsilon, s.Delta)
	n := s.Train.Len()
	gone := map[int]bool{}
	star := sub.w0
	for _, rows := range s.Stream {
		r, err := sub.u.Round(ctx, safe.RequestOf(s.Train, rows))
		if err != nil {
			return nil, err
		}
		var left []int
		for _, i := range rows {
			if !gone[i] {
				gone[i] = true
				sub.deleted = append(sub.deleted, i)
			}
		}
		for i := range n {
			if !gone[i] {
				left = append(left, i)
			}
		}
		o, err := multiclass.NewObjective(s.Model, s.Train, left, nil)
		if err != nil {
			return nil, err
		}
		res, err := multiclass.Minimize(ctx, o, star, multiclass.MinimizeOptions{})
		if err != nil {
			return nil, fmt.Errorf("safe: the exact retrain: %w", err)
		}
		star = res.W
		want, tmp := make([]float64, s.Model.Dim()), make([]float64, s.Model.Dim())
		multiclass.MeanGradient(s.Model, want, tmp, sub.w0, s.Train, left)
		sub.rounds = append(sub.rounds, roundRecord{noiseless: r.W, star: star, left: left, forgot: slices.Clone(sub.deleted),
			recursion: floats.Distance(sub.u.RetentionGradient(), want, 2) / (1 + floats.Norm(want, 2)),
			step:      floats.Distance(r.W, sub.w0, 2)})
	}
	last := sub.rounds[len(sub.rounds)-1]
	sub.wT, sub.star = last.noiseless, last.star
	sub.fp = fingerprint(s, sub.sigma)
	return sub, nil
}

func fingerprint(s Setup, sigma float64) string {
	h := sha256.New()
	fmt.Fprintf(h, "safe|%s|%+v|%v|%v|%v|%v\n", s.Model.Name(), s.Config, s.Stream, s.Epsilon, s.Delta, sigma)
	var b [8]byte
	for i := range s.Train.Len() {
		for _, v := range s.Train.Row(i) {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			h.Write(b[:])
		}
		binary.LittleEndian.PutUint64(b[:], uint64(s.Train.Y[i]))
		h.Write(b[:])
		binary.LittleEndian.PutUint64(b[:], uint64(s.IDs[i]))
		h.Write(b[:])
	}
	io.WriteString(h, "\n")
	return hex.EncodeToString(h.Sum(nil))
}

// Name is "safe/stream".
func (s *Subject) Name() string { return "safe/stream" }

// Fingerprint identifies the setup and the data for checkpoints.
func (s *Subject) Fingerprint() string { return s.fp }

// Unlearned publishes SAFE's model after the last round with the trial's noise.
func (s *Subject) Unlearned(_ context.Context, st reference.Streams) (reference.Release, error) {
	return s.release(s.wT, st.Rand("safe/unlearned/noise")), nil
}

// Retrained publishes the exact retrain on the records left with the trial's noise.
func (s *Subject) Retrained(_ context.Context, st reference.Streams) (reference.Release, error) {
	return s.release(s.star, st.Rand("safe/retrained/noise")), nil
}

func (s *Subject) release(w []float64, r interface{ NormFloat64() float64 }) reference.Release {
	pub := slices.Clone(w)
	for j := range pub {
		pub[j] += s.sigma * r.NormFloat64()
	}
	return reference.Release{Published: pub, Secret: slices.Clone(w)}
}

// rho is the Rényi curve the claim certifies beside (ε, δ): the Gaussian mechanism with
// L2 sensitivity W and noise N(0, σ²I) has D_α ≤ α·W²/(2σ²) for every α > 1, so
// ρ = W²/(2σ²); at Theorem 2(iii)'s σ = W√(2 ln(1.25/δ))/ε that is ε²/(4 ln(1.25/δ)),
// whatever W is. The claim and the release check both take it from here.
func (s *Subject) rho() float64 { return 0.5 * (s.bound / s.sigma) * (s.bound / s.sigma) }

// Claim is Theorem 2(iii) with its derivation.
func (s *Subject) Claim() audit.Claim {
	c := s.setup
	return audit.Claim{
		Method:    "SAFE streaming forgetting (one normalised step from w₀ per round)",
		Source:    "Shen, Zhang, Zhao, Bialkowski, Chen, Xu, Theorem 2(iii): each round (ε, δ)-approximate unlearning with φ_t = W√(2 ln(1.25/δ))/ε",
		Guarantee: "(ε, δ)-approximate unlearning",
		Required:  audit.StateHolding,
		Epsilon:   c.Epsilon, Delta: c.Delta,
		Rho:      s.rho(),
		Relation: fmt.Sprintf("SAFE's model after the last of %d rounds plus N(0, σ²I), against the exact retrain on the records left plus the same noise (Definition 1 as the spec fixes it: the paper compares with a deterministic retrain, which no noised release can meet)", len(c.Stream)),
		Assumptions: []string{
			"every parameter vector involved has norm at most W (W = ‖w₀‖ here, the spec's default; the algorithm does not enforce it)",
			"the release's L2 sensitivity is W (the theorem's; the shift from the retrain can reach ‖w₀ − w_t*‖ + γ ≤ 2W + γ)",
			"the classic Gaussian mechanism's σ, valid for ε ≤ 1",
		},
		Constants: []audit.Value{{Name: "n", Value: float64(c.Train.Len())}, {Name: "d", Value: float64(c.Model.Dim())},
			{Name: "T (rounds)", Value: float64(len(c.Stream))}, {Name: "records deleted", Value: float64(len(s.deleted))},
			{Name: "λ (forgetting weight)", Value: c.Config.Lambda}, {Name: "K", Value: c.Config.K}, {Name: "μ (L2)", Value: c.Model.Lambda}},
		Derivation: []audit.Step{
			{Quantity: "W", Formula: "‖w₀‖ (w₀ the exact minimiser)", Value: s.bound},
			{Quantity: "γ", Formula: "√W/(K√T)", Value: s.u.Gamma()},
			{Quantity: "σ", Formula: "W·√(2 ln(1.25/δ))/ε (φ_t read as a standard deviation)", Value: s.sigma},
		},
		Notes: []string{"The membership attack scores each deleted record by its logit-scaled confidence under the published softmax models; the streaming finding runs the paper's SVC attack on the noiseless models round by round."},
	}
}

// Options configure Check.
type Options struct {
	Confidence   float64 // 0 means 0.95
	Seed         uint64
	PowerAgainst float64
	Attacks      audit.Attacks
	// MIASamples caps the SVC attacker's members and non-members each (0: 300).
	MIASamples int
}

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
func Check(ctx context.Context, s *Subject, results []audit.TrialResult, opt Options) ([]audit.Finding, error) {
	if len(results) == 0 {
		return nil, fmt.Errorf("safe check: no trials")
	}
	conf := opt.Confidence
	if conf == 0 {
		conf = 0.95
	}
	c := s.setup
	want := NoiseScalePaper(s.bound, c.Epsilon, c.Delta)
	fs := []audit.Finding{
		audit.Deterministic("safe/certificate/sigma", "σ recomputed by Theorem 2(iii), W√(2 ln(1.25/δ))/ε (must not exceed the σ used)", audit.Certificate,
			want, s.sigma, 0, fmt.Sprintf("W = %.4g, ε = %g, δ = %g%s", s.bound, c.Epsilon, c.Delta, map[bool]string{true: "", false: "; the classic formula needs ε ≤ 1, so this σ certifies nothing here"}[c.Epsilon <= 1])),
	}
	shift := audit.Trace{Name: "‖w_t − w_t*‖ before noise, after round t", BoundName: "W, the sensitivity σ is sized for"}
	rec := audit.Trace{Name: "the retention recursion's relative gap after round t", BoundName: "rounding, 1e-10"}
	step := audit.Trace{Name: "|‖w_t − w₀‖ − γ|/γ after round t", BoundName: "rounding, 1e-12"}
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
	sens := audit.Deterministic("safe/certificate/sensitivity", "the release's shift from the exact retrain (before noise, every round) within the sensitivity W that σ is sized for", audit.Certificate,
		worstShift, s.bound, len(s.rounds), fmt.Sprintf("Theorem 2(iii) charges W = ‖w₀‖; the shift can reach ‖w₀ − w_t*‖ + γ ≤ 2W + γ = %.4g (spec safe §3.6)", SensitivityNeeded(s.bound, s.u.Gamma())))
	recF := audit.Deterministic("safe/implementation/recursion", "the retention gradient by the recursion equals the mean gradient recomputed on the records left (relative, every round)", audit.Implementation,
		worstRec, 1e-10, len(s.rounds), "the recursion never reads the records left; the gap must be rounding")
	stepF := audit.Deterministic("safe/implementation/step", "every round's step from w₀ is exactly γ long (relative gap)", audit.Implementation,
		worstStep, 1e-12, len(s.rounds), fmt.Sprintf("γ = √W/(K√T) = %.4g", s.u.Gamma()))
	for _, p := range []struct {
		f *audit.Finding
		t audit.Trace
	}{{&sens, shift}, {&recF, rec}, {&stepF, step}} {
		if err := p.f.AddTrace(p.t); err != nil {
			return nil, err
		}
	}
	fs = append(fs, sens, recF, stepF)
	if pub, ok := s.publishedFinding(results); ok {
		fs = append(fs, pub)
	}
	rel, err := audit.GaussianRelease{Prefix: "safe", Sigma: s.sigma, Rho: s.rho(),
		Epsilon: c.Epsilon, Delta: c.Delta, Confidence: conf}.Check(results)
	if err != nil {
		return nil, fmt.Errorf("safe check: %w", err)
	}
	fs = append(fs, rel...)
	if opt.Attacks.Has(audit.GameAttack) {
		emp, err := audit.EmpiricalRelease{Prefix: "safe", Epsilon: c.Epsilon, Delta: c.Delta, Confidence: conf,
			Seed: opt.Seed, PowerAgainst: opt.PowerAgainst}.Check(results)
		if err != nil {
			return nil, fmt.Errorf("safe check: %w", err)
		}
		fs = append(fs, emp)
	}
	if opt.Attacks.Has(audit.MembershipAttack) && len(s.deleted) > 0 {
		ids := make([]int64, len(s.deleted))
		for j, r := range s.deleted {
			ids[j] = c.IDs[r]
		}
		m := c.Model
		z := make([]float64, m.Classes())
		score := func(dst, w []float64) {
			for j, r := range s.deleted {
				dst[j] = logitConfidence(m, w, c.Train.Row(r), c.Train.Y[r], z)
			}
		}
		mem, err := audit.MembershipRelease{Prefix: "safe", Epsilon: c.Epsilon, Delta: c.Delta, Confidence: conf,
			Score: score, IDs: ids, Seed: opt.Seed, PowerAgainst: opt.PowerAgainst}.Check(results)
		if err != nil {
			return nil, fmt.Errorf("safe check: %w", err)
		}
		fs = append(fs, mem)
	}
	stream, err := s.streamFinding(ctx, opt, conf, results[0])
	if err != nil {
		return nil, err
	}
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
func (s *Subject) streamFinding(ctx context.Context, opt Options, conf float64, first audit.TrialResult) (audit.Finding, error) {
	c := s.setup
	m := c.Model
	k := opt.MIASamples
	if k == 0 {
		k = 300
	}
	k = min(k, c.Test.Len()/2)
	traces := map[string]*audit.Trace{}
	names := []string{"RA", "FA", "TA", "MIA"}
	get := map[string]func(RoundMetrics) float64{"RA": func(x RoundMetrics) float64 { return x.RA }, "FA": func(x RoundMetrics) float64 { return x.FA },
		"TA": func(x RoundMetrics) float64 { return x.TA }, "MIA": func(x RoundMetrics) float64 { return x.MIA }}
	for _, n := range names {
		traces[n] = &audit.Trace{Name: n + " (%) of SAFE's noiseless model after round t", BoundName: "the exact retrain's (noiseless)"}
	}
	var rates [2][2]int // per model: deleted called members, held-out called members
	var nF, nH int
	for t, r := range s.rounds {
		cfg := StreamConfig{Train: c.Train, Test: c.Test, Seed: opt.Seed, MIASamples: k, ForgetClass: -1}
		ev, err := newEvaluator(ctx, cfg, r.left, r.forgot, t)
		if err != nil {
			return audit.Finding{}, err
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
				return audit.Finding{}, err
			}
		}
		for j, w := range [][]float64{first.Unlearned.Published, first.Retrained.Published} {
			if t < len(s.rounds)-1 {
				break
			}
			_, calls, err := ev.measure(ctx, m, w)
			if err != nil {
				return audit.Finding{}, err
			}
			attacker, err := ev.attacker(ctx, m, w)
			if err != nil {
				return audit.Finding{}, err
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
	f := audit.Finding{Check: "safe/stream/svc-attack", Title: "the paper's SVC attack on SAFE's published model (first trial, last round) calls the deleted records members no more often than fresh non-members",
		Kind: audit.Empirical, Measured: excess(0), Bound: 0, Comparison: "≤", Confidence: conf, Trials: nF,
		Power: audit.ExcessPower("excess member rate", audit.ExcessAgainst, detectable, distuv.UnitNormal.Quantile(1-alpha), nF)}
	detail := fmt.Sprintf("deleted records called members %d of %d, held-out non-members %d of %d (excess %.3f; on the retrain's published model: %.3f); the traces follow the noiseless models, the paper's setting", rates[0][0], nF, rates[0][1], nH, excess(0), excess(1))
	switch {
	case pValue < alpha:
		f.Verdict = audit.Fail
		f.Detail = fmt.Sprintf("%s: one-sided p = %.3g < %.3g, the deleted records still stand out", detail, pValue, alpha)
	case detectable <= 0.1:
		f.Verdict = audit.Pass
		f.Detail = fmt.Sprintf("%s: p = %.3g; an excess of %.3f would be caught with 80 %% power", detail, pValue, detectable)
	default:
		f.Verdict = audit.Inconclusive
		need := nF
		for need < 1<<30 && (distuv.UnitNormal.Quantile(1-alpha)+distuv.UnitNormal.Quantile(0.8))*math.Sqrt(0.25*(2/float64(need))) > 0.1 {
			need *= 2
		}
		f.TrialsNeeded, f.Power.TrialsNeeded = need, need
		f.Detail = fmt.Sprintf("%s: p = %.3g, no excess shown, but these counts catch only an excess of %.3f with 80 %% power; about %d deleted and as many held-out records would catch 0.1", detail, pValue, detectable, need)
	}
	for _, name := range names {
		if err := f.AddTrace(*traces[name]); err != nil {
			return audit.Finding{}, err
		}
	}
	return f, nil
}
