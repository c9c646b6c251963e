package checks

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/mia"
	"gonum.org/v1/gonum/stat/distuv"
)

// ULiRAFinding judges U-LiRA (Hayes et al. 2024) on a method's unlearning from its pooled
// AUC (the method's unlearned models as positives, retrains as negatives) against ½ at its
// 95 % interval: FAIL where the interval lies above ½ (the attack tells the unlearned
// models from retrains); PASS where no advantage shows and the evaluations catch an AUC of
// ½ + 0.1 with 80 % power (detectable ≤ 0.1); INCONCLUSIVE otherwise, saying what to raise.
func ULiRAFinding(check, method string, u *mia.ULiRAResult, detectable float64, raise string) verdict.Finding {
	a := u.Metrics.AUC
	f := verdict.Finding{Check: check, Title: fmt.Sprintf("U-LiRA cannot tell %s's unlearned models from retrained ones (AUC ≤ ½)", method), Kind: verdict.Empirical,
		Measured: a.Value, Bound: 0.5, Comparison: "≤", Confidence: 0.95, Trials: len(u.Unlearned)}
	f.Power = verdict.ExcessPower("AUC excess over ½", "evaluations per side", verdict.ExcessAgainst, detectable, distuv.UnitNormal.Quantile(0.975), len(u.Unlearned))
	f.Verdict = verdict.ExcessVerdict(a.Lower > 0.5, detectable)
	switch f.Verdict {
	case verdict.Fail:
		f.Detail = fmt.Sprintf("pooled AUC %.4f, 95 %% interval [%.4f, %.4f]: the attack tells %s's unlearned models from retrains", a.Value, a.Lower, a.Upper, method)
	case verdict.Pass:
		f.Detail = fmt.Sprintf("pooled AUC %.4f, 95 %% interval [%.4f, %.4f]: no advantage shown; %d evaluations a side catch an AUC of ½ + %.3f with 80 %% power", a.Value, a.Lower, a.Upper, len(u.Unlearned), detectable)
	default:
		f.TrialsNeeded = f.Power.TrialsNeeded
		f.Detail = fmt.Sprintf("pooled AUC %.4f, 95 %% interval [%.4f, %.4f]: no advantage shown, but %d evaluations a side catch only ½ + %.3f with 80 %% power; raise %s", a.Value, a.Lower, a.Upper, len(u.Unlearned), detectable, raise)
	}
	return f
}
