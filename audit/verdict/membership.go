package verdict

import "github.com/unlearnaudit/unlearnaudit/audit/epsilon"

// HeldOut is the evaluation behind a split game's ε lower bound: the rule chosen on the
// selection halves and its counts on the held-out halves, from which the bound is computed
// (epsilon.LowerBound), so that a reader, or a test, can recompute the bound, the rule's
// rates and the most these halves could show from the report alone.
type HeldOut struct {
	Rule           string `json:"rule"`            // e.g. "unlearned if ≤ 0.063"
	Above          bool   `json:"above"`           // the rule flags values ≥ its threshold (else ≤)
	Unlearned      int    `json:"unlearned"`       // held-out unlearned models: the positives
	Retrained      int    `json:"retrained"`       // held-out retrained models: the negatives
	FalsePositives int    `json:"false_positives"` // retrained models the rule calls unlearned
	FalseNegatives int    `json:"false_negatives"` // unlearned models it does not
	// Resolution is the largest ε lower bound these halves can show: the bound at no false
	// positive and no false negative.
	Resolution float64 `json:"resolution"`
}

// Counts are the held-out counts as the game counted them.
func (h *HeldOut) Counts() epsilon.Counts {
	return epsilon.Counts{TP: h.Unlearned - h.FalseNegatives, Pos: h.Unlearned, FP: h.FalsePositives, Neg: h.Retrained}
}

// MembershipSummary is what a report shows of a membership measurement on one model
// (HoldoutMembership): the numbers ML Privacy Meter users expect, and the points of its
// two plots — the ROC on log–log axes and each deleted record's score against the
// held-out scores.
type MembershipSummary struct {
	Forget     int      `json:"forget"`  // deleted records scored
	Holdout    int      `json:"holdout"` // held-out records scored
	Confidence float64  `json:"confidence"`
	AUC        float64  `json:"auc"`
	AUCLimits  Interval `json:"auc_interval"`
	AUCMethod  string   `json:"auc_method"` // "DeLong", or the exact fallback used
	// TPR is the true-positive rate at FPR 0.1 % and 1 %, with Clopper–Pearson intervals.
	TPR []MembershipTPR `json:"tpr_at_fpr"`
	// ROC holds the curve's upper-left vertices at FPR 0, every multiple of 1/Holdout up
	// to 200 held-out records, and otherwise about 200 levels spaced evenly in log FPR
	// from 1/Holdout to 1: what a log–log plot whose axis starts at 1/Holdout shows, in a
	// bounded size. Points at FPR 0 belong on the axis's left edge.
	ROC []ROCPoint `json:"roc"`
	// Records are the deleted records, most exposed first (by score; ties by ID).
	Records []RecordScore `json:"records"`
	// HoldoutQuantiles are the held-out scores' quantiles at HoldoutQuantileLevels, the
	// marks of the per-record plot.
	HoldoutQuantiles []Quantile `json:"holdout_quantiles"`
}

// MembershipTPR is the TPR of the best threshold rule at a false-positive rate.
type MembershipTPR struct {
	FPR      float64  `json:"fpr"` // the level
	TPR      float64  `json:"tpr"`
	Interval Interval `json:"interval"` // two-sided Clopper–Pearson at the summary's confidence
	// The rule flags records scoring above Threshold (a held-out score): TP deleted
	// records and FP held-out ones (FP/Holdout ≤ FPR).
	Threshold float64 `json:"threshold"`
	TP        int     `json:"tp"`
	FP        int     `json:"fp"`
}

// RecordScore is one deleted record's score and its percentile among the held-out
// scores (ties count half): near 100, the model still treats it as a member.
type RecordScore struct {
	ID         int64   `json:"id"`
	Score      float64 `json:"score"`
	Percentile float64 `json:"percentile"`
}

// Quantile is a quantile of a sample: Value at probability P.
type Quantile struct {
	P     float64 `json:"p"`
	Value float64 `json:"value"`
}
