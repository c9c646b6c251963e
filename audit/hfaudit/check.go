package hfaudit

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
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"github.com/unlearnaudit/unlearnaudit/reference/hf"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Check sets HF's certificate, its measured error and its empirical privacy side by side:
//
//   - certificate: σ recomputed from Δ̂, and which bound Δ̂ is (Theorem 4, or the code's);
//   - implementation: the measured approximation error ‖w^{-U}_T − w̄‖ of every trial (the
//     secret models) against the Δ̂ σ is sized for — Theorem 4 is vacuous by orders of
//     magnitude, the code's bound may be too small, and the finding shows which; HF's
//     relative error on the first trial, below 1 (relativeError); and, replaying the
//     first trial, the per-record gradients against the a priori G, Lemma 2's drift,
//     Lemma 3's contraction and Theorem 1's additivity (lemmaFindings);
//   - release: the divergence of the published laws at the measured error
//     (checks.GaussianRelease);
//   - empirical: the distinguishing game on the published models (checks.EmpiricalRelease),
//     and the membership attack on the deleted records' logit-scaled confidence
//     (checks.MembershipRelease with a softmax score), each as the attacks option asks.
func Check(ctx context.Context, s *Subject, results []trials.TrialResult, opt audit.CheckOptions) ([]verdict.Finding, error) {
	if len(results) == 0 {
		return nil, fmt.Errorf("hf check: no trials")
	}
	conf := opt.Confidence
	if conf == 0 {
		conf = 0.95
	}
	want, err := dp.AnalyticGaussianSigma(s.bound, s.setup.Epsilon, s.setup.Delta)
	if err != nil {
		return nil, fmt.Errorf("hf check: %w", err)
	}
	// the checks, for a progress bar: σ and the error with its trace, the relative error,
	// the lemmas, the release, the game, the membership attack
	pub := methodkit.Published{Prefix: "hf", Epsilon: s.setup.Epsilon, Delta: s.setup.Delta,
		Release: &checks.GaussianRelease{Sigma: s.sigma, Rho: 0.5 * (s.bound / s.sigma) * (s.bound / s.sigma), Epsilon: s.setup.Epsilon, Delta: s.setup.Delta}}
	if len(s.rows) > 0 {
		ids := make([]int64, len(s.rows))
		for j, r := range s.rows {
			ids[j] = s.setup.IDs[r]
		}
		m := s.setup.Model
		score := func(dst, w []float64) {
			z := make([]float64, m.Classes())
			for j, r := range s.rows {
				dst[j] = confidenceScore(m, w, s.setup.Data.Row(r), s.setup.Data.Y[r], z)
			}
		}
		pub.Members = &checks.MembershipRelease{Score: score, IDs: ids}
	}
	st, ctx := steps.Count(ctx, append([]bool{true, len(s.rows) > 0, true}, pub.Steps(opt)...)...)
	reading := s.readingSource()
	fs := []verdict.Finding{
		verdict.Deterministic("hf/certificate/sigma", "σ recomputed from Δ̂ by the analytic Gaussian mechanism (must not exceed the σ used)",
			verdict.Certificate, want, s.sigma, 0, fmt.Sprintf("Δ̂ = %.4g from %s; ε = %g, δ = %g", s.bound, reading, s.setup.Epsilon, s.setup.Delta)),
	}
	fs[0] = checks.AtPrecision(fs[0], s.sigma, s.bound, results) // σ and Δ̂ above float64's resolution
	worst := 0.0
	for _, tr := range results {
		if tr.Unlearned.Secret == nil || tr.Retrained.Secret == nil {
			return nil, fmt.Errorf("hf check: trial %d has no secret model", tr.Index)
		}
		worst = math.Max(worst, reference.Distance(tr.Unlearned.Secret, tr.Retrained.Secret))
	}
	errF := verdict.Deterministic("hf/implementation/error", "HF's approximation error ‖w^{-U}_T − w̄‖ (worst trial) against the Δ̂ σ is sized for",
		verdict.Implementation, worst, s.bound, len(results), fmt.Sprintf("Δ̂ from %s; the bound is %.3g times the measured error", reading, s.bound/math.Max(worst, 1e-300)))
	if err := s.traceError(ctx, &errF, opt.Seed, results[0]); err != nil {
		return nil, err
	}
	fs = append(fs, errF)
	st.Step()
	if len(s.rows) > 0 {
		rel, err := s.relativeError(ctx, opt.Seed, results[0])
		if err != nil {
			return nil, err
		}
		fs = append(fs, rel)
		st.Step()
	}
	lemmas, err := s.lemmaFindings(ctx, opt.Seed, results[0].Index)
	if err != nil {
		return nil, err
	}
	fs = append(fs, lemmas...)
	st.Step()
	pf, err := pub.Check(ctx, st, opt, results)
	if err != nil {
		return nil, err
	}
	return append(fs, pf...), nil
}

// relativeError replays the first trial's learning and measures HF's relative error
// ‖w^{-U}_T − w̄‖/‖w^{-U}_T − w_T‖ (spec hf §4.4, R2): the unlearned secret model's distance
// to the retrain against the learned model's. It must be below 1 — the deletions moved the
// model towards the retrain — or Stage III did no better than ignoring the requests. The
// error check cannot see that: where the retrain's drift ‖w^{-U}_T − w_T‖ is itself below
// Δ̂, publishing w_T is within the certificate, and only this comparison shows that the
// requests were not served. An exact unlearning (error 0) passes whatever the drift.
func (s *Subject) relativeError(ctx context.Context, seed uint64, first trials.TrialResult) (verdict.Finding, error) {
	st := reference.Streams{Seed: seed, Trial: first.Index}
	tr, err := hf.Learn(ctx, s.setup.Config, s.setup.Data, s.w0(), st.Rand("hf/schedule"))
	if err != nil {
		return verdict.Finding{}, fmt.Errorf("hf check: replay trial %d: %w", first.Index, err)
	}
	errNorm := reference.Distance(first.Unlearned.Secret, first.Retrained.Secret)
	drift := reference.Distance(tr.Final, first.Retrained.Secret)
	ratio := 0.0
	if errNorm > 0 {
		ratio = errNorm / drift // +Inf when the retrain did not move and HF did
	}
	v := verdict.Fail
	if ratio < 1 {
		v = verdict.Pass
	}
	return verdict.Finding{Check: "hf/implementation/relative-error", Kind: verdict.Implementation, Verdict: v,
		Title:    "HF's relative error ‖w^{-U}_T − w̄‖/‖w^{-U}_T − w_T‖ on the first trial (below 1: the unlearned model nearer the retrain than the learned model)",
		Measured: ratio, Bound: 1, Comparison: "<", Confidence: 1, Trials: 1,
		Detail: fmt.Sprintf("trial %d: the unlearned secret model is %.4g from the paper-rule retrain, the learned model w_T (replayed) %.4g; a ratio of 1 or more means the deletions did not move the model towards the retrain (spec hf §4.4, R2)",
			first.Index, errNorm, drift)}, nil
}

// krylovSteps caps the Lanczos steps the contraction check takes per batch Hessian.
const krylovSteps = 60

// ritzValues runs k = min(d, krylovSteps) Lanczos steps (fully reorthogonalised) on the
// symmetric operator apply from a random start and returns the Ritz values: each is a
// Rayleigh quotient vᵀHv of a unit vector, so |1 − ηθ| ≤ ‖I − ηH‖₂ for every one of
// them, and the extreme ones approach the extreme eigenvalues far faster than power
// iteration does when 1 − ηλ is near 1. A batch Hessian of low rank plus λI is spanned
// exactly once k exceeds its rank.
func ritzValues(apply func(dst, v []float64), d int, r interface{ NormFloat64() float64 }) ([]float64, error) {
	k := min(d, krylovSteps)
	q := make([][]float64, 0, k+1)
	v := make([]float64, d)
	for j := range v {
		v[j] = r.NormFloat64()
	}
	floats.Scale(1/floats.Norm(v, 2), v)
	q = append(q, v)
	var alpha, beta []float64
	w := make([]float64, d)
	for j := 0; j < k; j++ {
		apply(w, q[j])
		a := floats.Dot(q[j], w)
		alpha = append(alpha, a)
		for range 2 { // full reorthogonalisation, twice ("twice is enough")
			for _, u := range q {
				floats.AddScaled(w, -floats.Dot(u, w), u)
			}
		}
		b := floats.Norm(w, 2)
		if j == k-1 || b <= 1e-12*(math.Abs(a)+1) {
			break // k steps, or an invariant subspace: its Ritz values are eigenvalues
		}
		beta = append(beta, b)
		next := make([]float64, d)
		floats.ScaleTo(next, 1/b, w)
		q = append(q, next)
	}
	n := len(alpha)
	t := mat.NewSymDense(n, nil)
	for i := range n {
		t.SetSym(i, i, alpha[i])
		if i+1 < n {
			t.SetSym(i, i+1, beta[i])
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(t, false) {
		return nil, fmt.Errorf("the %d × %d Lanczos matrix's eigenvalues did not converge", n, n)
	}
	return eig.Values(nil), nil
}

// lemmaFindings replays trial's learning and holds it to the hypotheses and lemmas the
// certificate rests on:
//
//   - G: the largest per-record gradient norm at every checkpoint over its batch, on the
//     learned trajectory and on its paper-rule retraining (the records still in the
//     batch), against the a priori G;
//   - Lemma 2: the drift ‖w^{-U}_t − w_t‖ at every step against 2ηG(1 − q^t)/(1 − q) with
//     the measured G, reported at the step where the ratio is largest;
//   - Lemma 3: ‖I − η_t H_t‖₂ at every checkpoint over its batch, estimated from below by
//     the Ritz values of Lanczos steps on Hessian–vector products, against ρ_t =
//     max(|1 − η_tλ|, |1 − η_tM|) with the certificate's λ and M: an estimate above ρ_t
//     disproves the contraction the bound assumes;
//   - Theorem 1: the deleted set's statistic by one joint recursion against the sum of the
//     per-record statistics, equal to rounding (spec I1: 1e-12·(1 + Σ‖a^{-u}‖)).
func (s *Subject) lemmaFindings(ctx context.Context, seed uint64, trial int) ([]verdict.Finding, error) {
	st := reference.Streams{Seed: seed, Trial: trial}
	tr, err := hf.Learn(ctx, s.setup.Config, s.setup.Data, s.w0(), st.Rand("hf/schedule"))
	if err != nil {
		return nil, fmt.Errorf("hf check: replay trial %d: %w", trial, err)
	}
	removed := map[int32]bool{}
	for _, r := range s.rows {
		removed[int32(r)] = true
	}
	// the loss the trajectory trained on, against the certificate's declared constants
	m, data, lambda := tr.Config.Model, s.setup.Data, s.setup.Model.Lambda
	d := m.Dim()
	grad, g := make([]float64, d), 0.0
	largest := func(t int, w []float64, skipRemoved bool) {
		for _, i := range tr.Schedule.Batch(t) {
			if skipRemoved && removed[i] {
				continue
			}
			m.Gradient(grad, w, data.Row(int(i)), data.Y[i])
			g = math.Max(g, floats.Norm(grad, 2))
		}
	}
	for t, w := range tr.Checkpoints {
		largest(t, w, false)
	}
	drift := make([]float64, tr.Schedule.Steps()+1)
	final, err := tr.Retrain(ctx, data, s.rows, hf.PaperRule, func(t int, w []float64) {
		largest(t, w, true)
		drift[t] = floats.Distance(w, tr.Checkpoints[t], 2)
	})
	if err != nil {
		return nil, fmt.Errorf("hf check: replay trial %d: %w", trial, err)
	}
	drift[len(drift)-1] = floats.Distance(final, tr.Final, 2)
	c := s.setup.Config
	fs := []verdict.Finding{verdict.Deterministic("hf/implementation/gradient-bound", "largest per-record gradient norm along the first trial's trajectories (must not exceed G)",
		verdict.Implementation, g, s.g, 1, "Lemma 2's G over both trajectories' batches, against the a priori 2√2·√(‖x‖²max + 1)")}

	worstT, worstRatio := 0, -1.0
	for t := 1; t < len(drift); t++ {
		if r := drift[t] / DriftBound(c.Eta, g, c.Decay, t); r > worstRatio {
			worstT, worstRatio = t, r
		}
	}
	fs = append(fs, verdict.Deterministic("hf/implementation/drift", "Lemma 2: the retraining's drift ‖w^{-U}_t − w_t‖ along the first trial, at the step nearest its bound",
		verdict.Implementation, drift[worstT], DriftBound(c.Eta, g, c.Decay, worstT), 1,
		fmt.Sprintf("2ηG(1 − q^t)/(1 − q) with the measured G = %.4g at every step t = 1 … %d; the largest ratio, %.3g, is at t = %d", g, len(drift)-1, worstRatio, worstT)))

	M := s.smooth
	r := st.Rand("hf/check/lanczos")
	tmp := make([]float64, d)
	worstT, worstRatio = 0, -1.0
	worstEst := 0.0
	for t, w := range tr.Checkpoints {
		if t%16 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		batch := tr.Schedule.Batch(t)
		rows := make([]int, len(batch))
		for k, i := range batch {
			rows[k] = int(i)
		}
		ritz, err := ritzValues(func(dst, v []float64) { multiclass.MeanHVP(m, dst, tmp, w, data, rows, v) }, d, r)
		if err != nil {
			return nil, fmt.Errorf("hf check: contraction at step %d: %w", t, err)
		}
		eta, est := tr.Eta(t), 0.0
		for _, theta := range ritz {
			est = math.Max(est, math.Abs(1-eta*theta))
		}
		if ratio := est / Rho(eta, lambda, M); ratio > worstRatio {
			worstT, worstRatio, worstEst = t, ratio, est
		}
	}
	fs = append(fs, verdict.Deterministic("hf/implementation/contraction", "Lemma 3: ‖I − η_t H_t‖₂ along the first trial (Lanczos, a lower bound), against ρ_t",
		verdict.Implementation, worstEst, Rho(tr.Eta(worstT), lambda, M), 1,
		fmt.Sprintf("the largest |1 − η_tθ| over the Ritz values θ of up to %d Lanczos steps on each of the %d batch Hessians at their checkpoints, against max(|1 − η_tλ|, |1 − η_tM|) with the certificate's λ and M = %.4g; the largest ratio, %.6g, is at t = %d",
			krylovSteps, len(tr.Checkpoints), M, worstRatio, worstT)))

	if len(s.rows) > 0 {
		stats, err := tr.Statistics(ctx, data, s.rows, hf.PaperOrder)
		if err != nil {
			return nil, fmt.Errorf("hf check: replay trial %d: %w", trial, err)
		}
		joint, err := tr.SetStatistic(ctx, data, s.rows, hf.PaperOrder)
		if err != nil {
			return nil, fmt.Errorf("hf check: replay trial %d: %w", trial, err)
		}
		sum, scale := make([]float64, d), 1.0
		for _, row := range s.rows {
			a, _ := stats.Of(row)
			floats.Add(sum, a)
			scale += floats.Norm(a, 2)
		}
		fs = append(fs, verdict.Deterministic("hf/implementation/additivity", "Theorem 1: the deleted set's statistic by one recursion equals the sum of the records' statistics",
			verdict.Implementation, floats.Distance(joint, sum, 2), 1e-12*scale, 1,
			fmt.Sprintf("‖a^{-U} − Σ_u a^{-u}‖ for the %d deleted records along the first trial, against rounding 1e-12·(1 + Σ‖a^{-u}‖) (spec I1)", len(s.rows))))
	}
	return fs, nil
}

// boundAfter is the Δ̂ the reading gives after k deletions.
func (s *Subject) boundAfter(k int) float64 {
	n := s.setup.Data.Len()
	if s.setup.Reading == CodeReading {
		return CodeBound(s.setup.Config.Eta, s.g, s.setup.Config.Decay, 1, n, s.setup.Config.Epochs, s.setup.Config.BatchSize, k)
	}
	p := Thm4Params{Eta: s.setup.Config.Eta, G: s.g, Q: s.setup.Config.Decay, Rho: s.rho, T: s.steps, B: s.perEpoch, BatchSize: s.setup.Config.BatchSize}
	b, _ := Thm4SetPaper(p, k)
	return b
}

// traceError replays the first trial one request at a time and traces HF's error
// ‖w^{-U_k}_T − w̄_k‖ against the bound for k deletions, holding the finding to every
// traced request. The replay must end at the trial's own secret model; if it does not
// (a stand-in subject), no trace is drawn.
func (s *Subject) traceError(ctx context.Context, f *verdict.Finding, seed uint64, first trials.TrialResult) error {
	k := len(s.rows)
	if k == 0 {
		return nil
	}
	st := reference.Streams{Seed: seed, Trial: first.Index}
	tr, err := hf.Learn(ctx, s.setup.Config, s.setup.Data, s.w0(), st.Rand("hf/schedule"))
	if err != nil {
		return fmt.Errorf("hf check: replay trial %d: %w", first.Index, err)
	}
	stats, err := tr.Statistics(ctx, s.setup.Data, s.rows, hf.PaperOrder)
	if err != nil {
		return fmt.Errorf("hf check: replay trial %d: %w", first.Index, err)
	}
	u := hf.NewUnlearner(tr, stats)
	requests := verdict.TraceRequests(k)
	trace := verdict.Trace{Name: "‖w^{-U}_T − w̄‖ after request i", BoundName: "Δ̂ for i deletions (" + s.readingSource() + ")", Requests: requests}
	next := 0
	for i, r := range s.rows {
		if err := u.Delete(r); err != nil {
			return fmt.Errorf("hf check: replay trial %d: %w", first.Index, err)
		}
		if next < len(requests) && requests[next] == i+1 {
			w, err := tr.Retrain(ctx, s.setup.Data, s.rows[:i+1], hf.PaperRule, nil)
			if err != nil {
				return fmt.Errorf("hf check: replay trial %d: %w", first.Index, err)
			}
			trace.Values = append(trace.Values, reference.Distance(u.Model(), w))
			trace.Bound = append(trace.Bound, s.boundAfter(i+1))
			next++
		}
	}
	if !slices.Equal(u.Model(), first.Unlearned.Secret) {
		return nil
	}
	return f.AddTrace(trace)
}
