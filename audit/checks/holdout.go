package checks

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/mia"
	"gonum.org/v1/gonum/mat"
)

// HoldoutQuantileLevels are the held-out quantiles a MembershipSummary carries.
var HoldoutQuantileLevels = []float64{0.5, 0.9, 0.95, 0.99}

// rocLevels bounds the ROC grid of a MembershipSummary.
const rocLevels = 200

// HoldoutMembership measures how much one published model still treats the deleted
// records as members: forget are its scores on the deleted records (ids[i] is forget[i]'s
// record), holdout its scores on records from the same population it never trained on;
// a higher score is more member-like (a negated loss, or the logit-scaled confidence).
// The finding's Measured is the AUC with its interval at conf (mia.OneModelMembership:
// DeLong's, or exact pairs drawn by seed where DeLong's variance is 0), its Estimates the
// TPR at FPR 0.1 % and 1 % with Clopper–Pearson intervals, and Membership the ROC and
// per-record numbers for the plots.
//
// The verdict is always INCONCLUSIVE. One model against held-out records is a membership
// measurement, not an ε bound: an AUC above ½ may come from the deleted records being
// easier than the held-out ones, and an AUC of ½ bounds nothing about the released law.
// It becomes an ε bound only through a one-run audit (randomised canaries, spec §(h)).
// Its Kind is Measurement, which no claim requires, so it is reported beside the findings
// that decide without holding a verdict INCONCLUSIVE.
func HoldoutMembership(forget, holdout []float64, ids []int64, conf float64, seed uint64) (verdict.Finding, error) {
	if len(ids) != len(forget) {
		return verdict.Finding{}, fmt.Errorf("holdout membership: %d record IDs for %d forget scores", len(ids), len(forget))
	}
	seen := make(map[int64]int, len(ids))
	for i, id := range ids {
		if j, ok := seen[id]; ok {
			return verdict.Finding{}, fmt.Errorf("holdout membership: record ID %d at forget indices %d and %d", id, j, i)
		}
		seen[id] = i
	}
	ms, err := mia.OneModelMembership(forget, holdout, conf, seed)
	if err != nil {
		return verdict.Finding{}, fmt.Errorf("holdout membership: %w", err)
	}
	n, m := len(forget), len(holdout)
	s := &verdict.MembershipSummary{Forget: n, Holdout: m, Confidence: conf, AUC: ms.AUC,
		AUCLimits: verdict.Interval{Lower: ms.AUCLower, Upper: ms.AUCUpper}, AUCMethod: ms.AUCMethod}
	f := verdict.Finding{
		Check: "verify/measurement/holdout-membership", Kind: verdict.Measurement, Verdict: verdict.Inconclusive,
		Title:    fmt.Sprintf("membership of the %d deleted records in one model against %d held-out records: AUC (½ is chance)", n, m),
		Measured: ms.AUC, Interval: &verdict.Interval{Lower: ms.AUCLower, Upper: ms.AUCUpper},
		Bound: 0.5, Comparison: "≤", Confidence: conf, Trials: 1, Membership: s,
	}
	for _, t := range ms.TPR {
		s.TPR = append(s.TPR, verdict.MembershipTPR{FPR: t.FPR, TPR: t.TPR, Interval: verdict.Interval{Lower: t.Lower, Upper: t.Upper},
			Threshold: t.Threshold, TP: t.TP, FP: t.FP})
		note := fmt.Sprintf("flags scores above %.6g, the holdout's threshold: %d of %d deleted and %d of %d held-out records; two-sided Clopper–Pearson %.3g interval",
			t.Threshold, t.TP, n, t.FP, m, conf)
		if float64(m)*t.FPR < 1 {
			note += fmt.Sprintf("; with %d held-out records FPR %.3g %% allows no false positive, so this is the TPR at FPR 0", m, 100*t.FPR)
		}
		f.Estimates = append(f.Estimates, verdict.Estimate{Name: fmt.Sprintf("TPR at FPR %.3g %%", 100*t.FPR), Value: t.TPR,
			Interval: &verdict.Interval{Lower: t.Lower, Upper: t.Upper}, Note: note})
	}
	for _, t := range ms.TPRAt(rocGrid(m)...) {
		p := verdict.ROCPoint{FPR: t.AchievedFPR(), TPR: t.TPR}
		if len(s.ROC) == 0 || s.ROC[len(s.ROC)-1] != p {
			s.ROC = append(s.ROC, p)
		}
	}
	for i, id := range ids {
		s.Records = append(s.Records, verdict.RecordScore{ID: id, Score: forget[i], Percentile: 100 * ms.Placement[i]})
	}
	slices.SortFunc(s.Records, func(a, b verdict.RecordScore) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID))
	})
	sorted := slices.Sorted(slices.Values(holdout))
	above99 := 0
	for _, q := range HoldoutQuantileLevels {
		s.HoldoutQuantiles = append(s.HoldoutQuantiles, verdict.Quantile{P: q, Value: quantileOf(sorted, q)})
	}
	q99 := quantileOf(sorted, 0.99)
	for _, v := range forget {
		if v > q99 {
			above99++
		}
	}
	top := s.Records[0]
	f.Detail = fmt.Sprintf("the model's scores on the %d deleted records (positives) against its scores on %d records it never trained on (negatives), higher ranked as member (the pre-registered direction: a negated loss or a confidence): AUC %.4f, %.3g interval [%.4f, %.4f] (%s); "+
		"%d deleted records (%.3g %%) score above the holdout's 99th percentile, about 1 %% if the model forgot them; the most exposed is record %d (score %.4g, percentile %.4g of the holdout). "+
		"Alone this is a membership measurement, not an ε bound: it becomes an ε bound only through a one-run audit (randomised canaries), so the verdict is INCONCLUSIVE by design",
		n, m, ms.AUC, conf, ms.AUCLower, ms.AUCUpper, ms.AUCMethod, above99, 100*float64(above99)/float64(n), top.ID, top.Score, top.Percentile)
	return f, nil
}

// rocGrid is the FPR levels of a MembershipSummary's ROC: 0, then every k/m when m is at
// most rocLevels, else rocLevels levels spaced evenly in log from 1/m to 1.
func rocGrid(m int) []float64 {
	grid := []float64{0}
	if m <= rocLevels {
		for k := 1; k <= m; k++ {
			grid = append(grid, float64(k)/float64(m))
		}
		return grid
	}
	lo := -math.Log10(float64(m))
	for i := range rocLevels {
		grid = append(grid, fexp.Pow(10, lo*(1-float64(i)/(rocLevels-1))))
	}
	grid[1], grid[len(grid)-1] = 1/float64(m), 1 // exactly, past rounding in Pow
	return grid
}

// quantileOf is the p-quantile of an ascending sample, interpolated linearly between order
// statistics (Hyndman–Fan type 7, NumPy's default).
func quantileOf(sorted []float64, p float64) float64 {
	h := p * float64(len(sorted)-1)
	i := int(math.Floor(h))
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}

// CheckHoldout checks that held-out scores pair with the unlearned ones, model by model:
// what VerifyHoldout refuses, for a front end to refuse before the game, not after it.
func CheckHoldout(unlearned, holdout *mat.Dense) error {
	nu, _ := unlearned.Dims()
	if nh, _ := holdout.Dims(); nh != nu {
		return fmt.Errorf("holdout membership: scores of %d models; the unlearned scores have %d, in the same order", nh, nu)
	}
	return nil
}
