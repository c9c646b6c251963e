package checks

import (
	"context"
	"fmt"
	"math"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"

	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/internal/par"
	"github.com/unlearnaudit/unlearnaudit/mia"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// MembershipRelease attacks the deleted records themselves, as a membership-inference
// attack on unlearning does (U-LiRA's question: does the unlearned model still treat the
// record as a member?). Each deleted record is scored — by its logit-scaled confidence
// (mia.Confidence), the competition's and LiRA's score — under every unlearned and every
// retrained published model. Any function of the published model is as indistinguishable
// as the model, so each record's scores form a distinguishing game that bounds ε from
// below for the same claim; the records' games are played at once (epsilon.Game.PerExample,
// split thresholds, the false-alarm budget shared among the records).
//
// The verdict follows EmpiricalRelease's rule: FAIL when the largest ε_LB exceeds the
// claimed ε; PASS only when, at the trials used, each record's game would have caught the
// PowerAgainst× Gaussian violation with 80 % power; INCONCLUSIVE otherwise, with about the
// trials that would. The attack's AUC per record, with a bootstrap interval, is reported
// beside it as an estimate.
type MembershipRelease struct {
	Prefix     string
	Epsilon    float64 // claimed ε
	Delta      float64 // claimed δ
	Confidence float64 // 0 means 0.95
	// Loss scores the records (its link; the regulariser does not enter a score).
	Loss reference.Loss
	// Deleted holds the records the requests deleted, as they were before deletion.
	Deleted *reference.Dataset
	// Score, when set, scores the deleted records instead of Loss and Deleted, for
	// models that are not linear in the features (a softmax's K·(p+1) parameters):
	// dst[j] is record IDs[j]'s logit-scaled confidence under model.
	Score func(dst, model []float64)
	IDs   []int64
	Seed  uint64 // for the AUC bootstrap
	// PowerAgainst is as in EmpiricalRelease; 0 means DefaultPowerAgainst.
	PowerAgainst float64
	// Resamples, when set, are the AUC bootstraps' resamples shared with other checks of
	// the same seed and trial count (a subject's and its controls'; CheckOptions.Resamples):
	// drawn once, the same bits. nil shares nothing.
	Resamples *mia.Resamples
}

// Check runs the attack on finished trials.
func (m MembershipRelease) Check(ctx context.Context, results []trials.TrialResult) (verdict.Finding, error) {
	n := len(results)
	if m.Score == nil && (m.Deleted == nil || m.Deleted.Len() == 0) || m.Score != nil && len(m.IDs) == 0 {
		return verdict.Finding{}, fmt.Errorf("membership check: no deleted records to attack")
	}
	if err := empiricalSettings(n, &m.Confidence, &m.PowerAgainst); err != nil {
		return verdict.Finding{}, fmt.Errorf("membership check: %w", err)
	}
	var su, sr *mat.Dense
	var id func(j int) int64
	if m.Score != nil {
		k, d := len(m.IDs), len(results[0].Unlearned.Published)
		su, sr = mat.NewDense(n, k, nil), mat.NewDense(n, k, nil)
		err := publishedBlocks(results, d, func(i0 int, unl, ret *mat.Dense) {
			for i := range unl.RawMatrix().Rows {
				m.Score(su.RawRowView(i0+i), unl.RawRowView(i))
				m.Score(sr.RawRowView(i0+i), ret.RawRowView(i))
			}
		})
		if err != nil {
			return verdict.Finding{}, fmt.Errorf("membership check: %w", err)
		}
		id = func(j int) int64 { return m.IDs[j] }
	} else {
		k := m.Deleted.Len()
		su, sr = mat.NewDense(n, k, nil), mat.NewDense(n, k, nil)
		// a model has a coordinate per feature
		err := publishedBlocks(results, m.Deleted.Dim(), func(i0 int, unl, ret *mat.Dense) {
			rows := unl.RawMatrix().Rows
			mia.Scores(su.Slice(i0, i0+rows, 0, k).(*mat.Dense), mia.Confidence, m.Loss, unl, m.Deleted)
			mia.Scores(sr.Slice(i0, i0+rows, 0, k).(*mat.Dense), mia.Confidence, m.Loss, ret, m.Deleted)
		})
		if err != nil {
			return verdict.Finding{}, fmt.Errorf("membership check: %w", err)
		}
		id = m.Deleted.ID
	}
	_, k := su.Dims()
	game := epsilon.Game{Delta: m.Delta, Confidence: m.Confidence, Strategy: threshold.Split}
	pe, err := game.PerExample(su, sr)
	if err != nil {
		return verdict.Finding{}, fmt.Errorf("membership check: %w", err)
	}
	worst := pe.Examples[0]
	for _, e := range pe.Examples {
		if e.Result.Epsilon > worst.Result.Epsilon {
			worst = e
		}
	}
	spec := epsilon.PowerSpec{Claim: m.Epsilon, Factor: m.PowerAgainst, Power: verdict.PowerTarget, Delta: m.Delta, Conf: pe.PerExampleConfidence}
	pw, err := PowerOf(ctx, n, spec, fmt.Sprintf("split game per deleted record, %d records", k))
	if err != nil {
		return verdict.Finding{}, fmt.Errorf("membership check: %w", err)
	}
	f := verdict.Finding{
		Check: m.Prefix + "/empirical/membership", Kind: verdict.Empirical,
		Title:    fmt.Sprintf("membership of the %d deleted records: ε lower bound from their scores at δ = %.3g", k, m.Delta),
		Measured: pe.Epsilon, Interval: &verdict.Interval{Lower: pe.Epsilon, Upper: math.Inf(1)},
		Bound: m.Epsilon, Comparison: "≤", Confidence: m.Confidence, Trials: n, Power: pw,
		Detail: fmt.Sprintf("each deleted record's logit-scaled confidence under %d unlearned and %d retrained models; thresholds chosen on half the trials and bounded with Clopper–Pearson on the other half, every record at confidence %.4g so that all hold at once; strongest: record %d (%d false positives, %d false negatives); these trials can show at most ε = %.3g per record",
			n, n, pe.PerExampleConfidence, id(worst.Example), worst.Result.Counts.FP, worst.Result.Counts.Pos-worst.Result.Counts.TP, pe.Resolution),
	}
	if err := decide(ctx, &f, spec); err != nil {
		return verdict.Finding{}, err
	}
	f.HeldOut = heldOut(fmt.Sprintf("record %d: member if %s", id(worst.Example), ruleWords(worst.Result.Rule)), worst.Result.Rule, worst.Result.Counts, m.Delta, pe.PerExampleConfidence)
	// each record's AUC on the held-out half, in the direction of the record's own rule
	// (chosen on the selection half): the figure agrees with the game that bounded it
	aucs := make([]*mia.Metric, k)
	shared := m.Resamples
	h := n / 2
	// the records' bootstraps are independent (each its own seed): computed side by side,
	// their resamples shared with the other checks of a CheckQueue that shares them
	if err := par.Do(ctx, k, 0, func(j int) error {
		above := pe.Examples[j].Result.Rule.Above
		pos, neg := oriented(mat.Col(nil, j, su)[h:], above), oriented(mat.Col(nil, j, sr)[h:], above)
		if auc, err := shared.EvaluateAUC(pos, neg, 200, 0.95, m.Seed+uint64(j)); err == nil {
			aucs[j] = &auc
		} // else a record every model scores alike (or one with a NaN score) has no ROC to report
		return nil
	}); err != nil {
		return verdict.Finding{}, fmt.Errorf("membership check: %w", err)
	}
	for j, auc := range aucs {
		if auc == nil {
			continue
		}
		way := "higher confidence ranked as member"
		if !pe.Examples[j].Result.Rule.Above {
			way = "lower confidence ranked as member (the score negated)"
		}
		f.Estimates = append(f.Estimates, verdict.Estimate{Name: fmt.Sprintf("membership AUC of record %d (held-out half)", id(j)), Value: auc.Value,
			Interval: &verdict.Interval{Lower: auc.Lower, Upper: auc.Upper},
			Note: fmt.Sprintf("on the held-out half (the last %d unlearned models as members, the last %d retrained as non-members), in the direction of the record's own rule, chosen on the first half: %s; 0.5 is chance; 95 %% bootstrap interval (an estimate)",
				n-h, n-h, way)})
	}
	return f, nil
}

// PowerOf is what a split game with n trials per side, played as route, could catch under
// spec: its power against spec.Factor× and the smallest factor it catches with spec.Power,
// with the question they answer (audit plan asks it too). TrialsNeeded is set by decide when
// the verdict rests on it.
func PowerOf(ctx context.Context, n int, spec epsilon.PowerSpec, route string) (*verdict.Power, error) {
	res, err := epsilon.SplitGamePower(ctx, n, spec)
	if err != nil {
		return nil, err
	}
	smallest, err := epsilon.SmallestDetectableFactor(ctx, n, spec)
	if err != nil {
		return nil, err
	}
	q := &verdict.Question{Route: route, Epsilon: spec.Claim, Delta: spec.Delta, Confidence: spec.Conf, Power: spec.Power, Trials: n}
	p := &verdict.Power{Against: spec.Factor, Power: res.Power, StdErr: res.StdErr, SmallestFactor: smallest, Question: q,
		SmallestEpsilon: smallest * spec.Claim, MaxEpsilon: epsilon.MaxCertifiable(n, spec.Delta, spec.Conf, threshold.Split)}
	p.SmallestMu, p.MaxMu = epsilon.GDPMu(p.SmallestEpsilon, spec.Delta), epsilon.GDPMu(p.MaxEpsilon, spec.Delta)
	if show, err := epsilon.TrialsForResolution(spec.Claim, spec.Delta, spec.Conf, threshold.Split); err == nil {
		p.TrialsToShow = show
	}
	return p, nil
}

// decide applies the empirical rule to a finding whose Measured is an ε lower bound and
// whose Power is set: FAIL above the claim; PASS with power; INCONCLUSIVE otherwise, with
// the trials that would reach the power — the planner's own count (epsilon.TrialsToDetect),
// so that `audit plan` asked the same question says the same. Its only error is ctx's.
//
// It also completes what the trials support (Power.TrialsToPass, the same count) and
// makes Power.Supports the finding's first line.
func decide(ctx context.Context, f *verdict.Finding, spec epsilon.PowerSpec) error {
	switch {
	case f.Measured > f.Bound:
		f.Verdict = verdict.Fail
	case f.Power.Sufficient():
		f.Verdict = verdict.Pass
	default:
		f.Verdict = verdict.Inconclusive
	}
	if f.Verdict != verdict.Pass {
		need, _, err := epsilon.TrialsToDetect(ctx, spec)
		if err := ctx.Err(); err != nil {
			return err
		}
		if err != nil {
			need = 0 // beyond epsilon.MaxPlanTrials: the power's Summary says the trials cannot resolve it
		}
		f.Power.TrialsToPass = need
		if f.Verdict == verdict.Inconclusive {
			f.Power.TrialsNeeded, f.TrialsNeeded = need, need
		}
	}
	if s := f.Power.Supports(f.Verdict); s != "" {
		f.Detail = s + ". The check: " + f.Detail
	}
	return nil
}
