package hfaudit

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/dp"
	"github.com/unlearnaudit/unlearnaudit/reference/hf"
	"gonum.org/v1/gonum/floats"
)

// Options configure Check.
type Options struct {
	Confidence   float64 // 0 means 0.95
	Seed         uint64  // the trials' seed (the gradient-bound check replays trial 0)
	PowerAgainst float64
	Attacks      audit.Attacks
}

// Check sets HF's certificate, its measured error and its empirical privacy side by side:
//
//   - certificate: σ recomputed from Δ̂, and which bound Δ̂ is (Theorem 4, or the code's);
//   - implementation: the measured approximation error ‖w^{-U}_T − w̄‖ of every trial (the
//     secret models) against the Δ̂ σ is sized for — Theorem 4 is vacuous by orders of
//     magnitude, the code's bound may be too small, and the finding shows which; and the
//     per-record gradients along the first trial's trajectory against the a priori G;
//   - release: the divergence of the published laws at the measured error
//     (audit.GaussianRelease);
//   - empirical: the distinguishing game on the published models (audit.EmpiricalRelease),
//     and the membership attack on the deleted records' logit-scaled confidence
//     (audit.MembershipRelease with a softmax score), each as the attacks option asks.
func Check(ctx context.Context, s *Subject, results []audit.TrialResult, opt Options) ([]audit.Finding, error) {
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
	reading := s.readingSource()
	fs := []audit.Finding{
		audit.Deterministic("hf/certificate/sigma", "σ recomputed from Δ̂ by the analytic Gaussian mechanism (must not exceed the σ used)",
			audit.Certificate, want, s.sigma, 0, fmt.Sprintf("Δ̂ = %.4g from %s; ε = %g, δ = %g", s.bound, reading, s.setup.Epsilon, s.setup.Delta)),
	}
	worst := 0.0
	for _, tr := range results {
		if tr.Unlearned.Secret == nil || tr.Retrained.Secret == nil {
			return nil, fmt.Errorf("hf check: trial %d has no secret model", tr.Index)
		}
		worst = math.Max(worst, reference.Distance(tr.Unlearned.Secret, tr.Retrained.Secret))
	}
	errF := audit.Deterministic("hf/implementation/error", "HF's approximation error ‖w^{-U}_T − w̄‖ (worst trial) against the Δ̂ σ is sized for",
		audit.Implementation, worst, s.bound, len(results), fmt.Sprintf("Δ̂ from %s; the bound is %.3g times the measured error", reading, s.bound/math.Max(worst, 1e-300)))
	if err := s.traceError(ctx, &errF, opt.Seed, results[0]); err != nil {
		return nil, err
	}
	fs = append(fs, errF)
	g, err := s.measuredG(ctx, opt.Seed, results[0].Index)
	if err != nil {
		return nil, err
	}
	fs = append(fs, audit.Deterministic("hf/implementation/gradient-bound", "largest per-record gradient norm along the first trial's trajectories (must not exceed G)",
		audit.Implementation, g, s.g, 1, "Lemma 2's G over both trajectories' batches, against the a priori 2√2·√(‖x‖²max + 1)"))
	rel, err := audit.GaussianRelease{Prefix: "hf", Sigma: s.sigma, Rho: 0.5 * (s.bound / s.sigma) * (s.bound / s.sigma),
		Epsilon: s.setup.Epsilon, Delta: s.setup.Delta, Confidence: conf}.Check(results)
	if err != nil {
		return nil, fmt.Errorf("hf check: %w", err)
	}
	fs = append(fs, rel...)
	if opt.Attacks.Has(audit.GameAttack) {
		emp, err := audit.EmpiricalRelease{Prefix: "hf", Epsilon: s.setup.Epsilon, Delta: s.setup.Delta, Confidence: conf,
			Seed: opt.Seed, PowerAgainst: opt.PowerAgainst}.Check(results)
		if err != nil {
			return nil, fmt.Errorf("hf check: %w", err)
		}
		fs = append(fs, emp)
	}
	if opt.Attacks.Has(audit.MembershipAttack) && len(s.rows) > 0 {
		ids := make([]int64, len(s.rows))
		for j, r := range s.rows {
			ids[j] = s.setup.IDs[r]
		}
		m := s.setup.Model
		score := func(dst, w []float64) {
			sq := 0.0
			for _, v := range w {
				sq += v * v
			}
			for j, r := range s.rows {
				dst[j] = confidenceScore(m, w, sq, s.setup.Data.Row(r), s.setup.Data.Y[r])
			}
		}
		mem, err := audit.MembershipRelease{Prefix: "hf", Epsilon: s.setup.Epsilon, Delta: s.setup.Delta, Confidence: conf,
			Score: score, IDs: ids, Seed: opt.Seed, PowerAgainst: opt.PowerAgainst}.Check(results)
		if err != nil {
			return nil, fmt.Errorf("hf check: %w", err)
		}
		fs = append(fs, mem)
	}
	return fs, nil
}

// measuredG is the largest per-record gradient norm at every checkpoint over its batch,
// on trial's learned trajectory and on its paper-rule retraining (the records still in
// the batch).
func (s *Subject) measuredG(ctx context.Context, seed uint64, trial int) (float64, error) {
	st := reference.Streams{Seed: seed, Trial: trial}
	tr, err := hf.Learn(ctx, s.setup.Config, s.setup.Data, s.w0(), st.Rand("hf/schedule"))
	if err != nil {
		return 0, fmt.Errorf("hf check: replay trial %d: %w", trial, err)
	}
	removed := map[int32]bool{}
	for _, r := range s.rows {
		removed[int32(r)] = true
	}
	data, grad, g := s.setup.Data, make([]float64, s.setup.Model.Dim()), 0.0
	largest := func(t int, w []float64, skipRemoved bool) {
		for _, i := range tr.Schedule.Batch(t) {
			if skipRemoved && removed[i] {
				continue
			}
			s.setup.Model.Gradient(grad, w, data.Row(int(i)), data.Y[i])
			g = math.Max(g, floats.Norm(grad, 2))
		}
	}
	for t, w := range tr.Checkpoints {
		largest(t, w, false)
	}
	if _, err := tr.Retrain(ctx, data, s.rows, hf.PaperRule, func(t int, w []float64) { largest(t, w, true) }); err != nil {
		return 0, fmt.Errorf("hf check: replay trial %d: %w", trial, err)
	}
	return g, nil
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
func (s *Subject) traceError(ctx context.Context, f *audit.Finding, seed uint64, first audit.TrialResult) error {
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
	requests := audit.TraceRequests(k)
	trace := audit.Trace{Name: "‖w^{-U}_T − w̄‖ after request i", BoundName: "Δ̂ for i deletions (" + s.readingSource() + ")", Requests: requests}
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
