package checks

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"gonum.org/v1/gonum/floats"
)

// heldOut is the HeldOut of a rule's held-out counts c, bounded at δ and confidence conf.
func heldOut(rule string, r epsilon.Rule, c epsilon.Counts, delta, conf float64) *verdict.HeldOut {
	return &verdict.HeldOut{Rule: rule, Above: r.Above, Unlearned: c.Pos, Retrained: c.Neg, FalsePositives: c.FP, FalseNegatives: c.Pos - c.TP,
		Resolution: epsilon.LowerBound(epsilon.Counts{TP: c.Pos, Pos: c.Pos, Neg: c.Neg}, delta, 1-conf)}
}

// rates are the rule's held-out true- and false-positive rates, as estimates with
// two-sided 95 % Clopper–Pearson intervals: the point the bound was computed at.
func heldOutRates(h *verdict.HeldOut, rule string) []verdict.Estimate {
	c := h.Counts()
	tl, tu := epsilon.ClopperPearson(c.TP, c.Pos, 0.95)
	fl, fu := epsilon.ClopperPearson(c.FP, c.Neg, 0.95)
	return []verdict.Estimate{
		{Name: "held-out TPR of the deciding rule", Value: float64(c.TP) / float64(c.Pos), Interval: &verdict.Interval{Lower: tl, Upper: tu},
			Note: fmt.Sprintf("%d of the %d held-out unlearned models called unlearned by the rule (%s); two-sided 95 %% Clopper–Pearson interval", c.TP, c.Pos, rule)},
		{Name: "held-out FPR of the deciding rule", Value: float64(c.FP) / float64(c.Neg), Interval: &verdict.Interval{Lower: fl, Upper: fu},
			Note: fmt.Sprintf("%d of the %d held-out retrained models called unlearned by the rule (%s); two-sided 95 %% Clopper–Pearson interval", c.FP, c.Neg, rule)},
	}
}

// oriented is xs as the rule reads them: as they are for a rule "≥ t", negated for "≤ t",
// so that a higher value is always what the rule calls unlearned (or, for a record, a
// member) and an AUC or a TPR at FPR of them is in the rule's direction.
func oriented(xs []float64, above bool) []float64 {
	if above {
		return append([]float64(nil), xs...)
	}
	return floats.ScaleTo(make([]float64, len(xs)), -1, xs)
}

// dirWord names a rule's direction for a figure's title.
func dirWord(above bool) string {
	if above {
		return "higher is called unlearned, as the rule decided"
	}
	return "lower is called unlearned, as the rule decided"
}

// heldOutOrientation says, in an estimate's note, on which models and in which direction
// an estimate of a deciding statistic was computed.
func heldOutOrientation(above bool, np, nn int) string {
	way := "higher values ranked as unlearned"
	if !above {
		way = "lower values ranked as unlearned (the statistic negated)"
	}
	return fmt.Sprintf("on the held-out half (%d unlearned models as positives, %d retrained as negatives), which did not choose the statistic, in the direction of the rule that decided: %s", np, nn, way)
}

// ruleWords is a rule's comparison, "≥ t" or "≤ t".
func ruleWords(r epsilon.Rule) string {
	if r.Above {
		return fmt.Sprintf("≥ %.6g", r.Threshold)
	}
	return fmt.Sprintf("≤ %.6g", r.Threshold)
}
