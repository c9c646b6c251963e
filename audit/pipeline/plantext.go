package pipeline

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reports/table"
)

// WriteText prints the answer as audit plan --trials does without --json: the resolution,
// and with a claim the power against it.
func (out *TrialsAnswer) WriteText(w io.Writer) {
	fmt.Fprintf(w, "With %d trials per side at δ = %g and %.4g %% confidence, a distinguishing game can show at most ε = %s violated.\n",
		out.Trials, out.Delta, 100*out.Confidence, table.G10(float64(out.MaxCertifiable)))
	if out.ClaimEpsilon == 0 {
		return
	}
	claim, factor, power := out.ClaimEpsilon, out.Factor, out.Power
	fmt.Fprintf(w, "To be able to show ε = %g violated at all: %d trials per side.\n", claim, out.TrialsForResolution)
	fmt.Fprintf(w, "With %d trials per side, the split game catches a true ε of %g × %g with probability %.2f, and catches %s with probability %g.\n",
		out.Trials, factor, claim, *out.PowerAtTrials, smallestPhrase(float64(*out.SmallestFactor)), power)
	fmt.Fprintf(w, "To catch a true ε of %g × %g with probability %g: %d trials per side (split game at %.4g %% confidence; assuming a Gaussian leak, μ = %.4g).\n",
		factor, claim, power, out.TrialsNeeded, 100*out.Confidence, out.GDPMu)
	if power == verdict.PowerTarget { // the report's line speaks of its own 80 % power
		fmt.Fprintf(w, "%s.\n", out.Supports)
	}
}

// smallestPhrase names the violations a game catches: "≥ 2.42× violations", or none.
func smallestPhrase(f float64) string {
	if math.IsInf(f, 1) {
		return "no violation of any size"
	}
	return fmt.Sprintf("≥ %.3g× violations", verdict.RoundUp3(f))
}

// WriteText prints the answer as audit plan --models does without --json.
func (out *RanksAnswer) WriteText(w io.Writer) {
	if out.RetrainsNeeded > 0 {
		fmt.Fprintf(w, "%d unlearned model(s) ranked among retrains can show (ε = %g, δ = %g) violated at %.4g %% confidence from %d retrains: with fewer, even a model below every retrain has a p-value above t = %s.\n",
			out.Models, out.ClaimEpsilon, out.Delta, 100*out.Confidence, out.RetrainsNeeded, table.G10(float64(out.Threshold)))
	} else {
		fmt.Fprintf(w, "%d unlearned model(s) ranked among retrains cannot show (ε = %g, δ = %g) violated at %.4g %% confidence with any number of retrains: δ exceeds the per-model level %.4g.\n",
			out.Models, out.ClaimEpsilon, out.Delta, 100*out.Confidence, (1-out.Confidence)/float64(out.Models))
	}
	fmt.Fprintf(w, "%s.\n", out.Supports)
}

// WritePlanTable answers audit plan --table: for each count of models per side, what the
// split game at the claim's δ and confidence can and cannot show — the figures a report's
// first line gives at that count (checks.PowerOf, epsilon.TrialsToDetect) — as a Markdown
// table written to w row by row. An error from ctx is returned as is.
func WritePlanTable(ctx context.Context, w io.Writer, counts []int, claim, delta, conf, factor float64) error {
	ps := epsilon.PowerSpec{Claim: claim, Factor: factor, Power: verdict.PowerTarget, Delta: delta, Conf: conf}
	pass, _, err := epsilon.TrialsToDetect(ctx, ps)
	if err := ctx.Err(); err != nil {
		return err
	}
	passText := fmt.Sprintf("about %d a side", pass)
	if err != nil {
		passText = fmt.Sprintf("more than %d a side", epsilon.MaxPlanTrials)
	}
	fmt.Fprintf(w, "What a distinguishing game (split, %.4g %% confidence) can show of the claim (ε = %g, δ = %g); μ is the Gaussian-DP μ of the Gaussian pair with that ε.\n\n", 100*conf, claim, delta)
	fmt.Fprintf(w, "| models a side | most ε they can show | can FAIL ε = %g | smallest leak caught with %.0f %% power | can PASS (%.0f %% power against %g×) |\n|---|---|---|---|---|\n", claim, 100*verdict.PowerTarget, 100*verdict.PowerTarget, factor)
	for _, n := range counts {
		p, err := checks.PowerOf(ctx, n, ps, "plan")
		if err != nil {
			return fmt.Errorf("plan: %w", err)
		}
		canFail := "yes"
		if p.MaxEpsilon <= claim {
			canFail = fmt.Sprintf("no: from %d a side", p.TrialsToShow)
		}
		leak := "none"
		if !math.IsInf(p.SmallestEpsilon, 1) {
			leak = fmt.Sprintf("ε ≥ %.3g (μ ≥ %.3g)", p.SmallestEpsilon, p.SmallestMu)
		}
		canPass := "no: " + passText
		if p.Sufficient() {
			canPass = "yes"
		}
		fmt.Fprintf(w, "| %d | %.3g (μ = %.3g) | %s | %s | %s |\n", n, p.MaxEpsilon, p.MaxMu, canFail, leak, canPass)
	}
	return nil
}

// WriteText prints the answer as audit plan --spec does without --json: the trials the
// claim needs, the calibration cal (which took setup to set up) and the predictions.
func (out *PlanAnswer) WriteText(w io.Writer, cal audit.Calibration, setup time.Duration) {
	fmt.Fprintf(w, "%s: %s to run (%s), claim (ε=%g, δ=%g), confidence %g.\n", out.Spec, plural(len(out.Subjects), "subject"), strings.Join(out.Subjects, ", "), out.Epsilon, out.Delta, out.Confidence)
	fmt.Fprintf(w, "To catch a true ε of %g × %g with probability %g, the distinguishing game needs %d trials per side (split game, each of its 2 score families at %.4g %% confidence; assuming a Gaussian leak, μ = %.4g).\n",
		out.Against, out.Epsilon, out.Power, out.TrialsNeeded, 100*out.GameConfidence, out.GDPMu)
	for _, o := range out.Others {
		count := fmt.Sprintf("%d trials per side", o.TrialsNeeded)
		if o.TrialsNeeded == 0 {
			count = fmt.Sprintf("more than %d trials per side", epsilon.MaxPlanTrials)
		}
		fmt.Fprintf(w, "Its other game, %s (each test at %.4g %% confidence), needs %s for the same.\n", o.Route, 100*o.Confidence, count)
	}
	if out.SpecTrials != out.TrialsNeeded {
		fmt.Fprintf(w, "The spec's %d trials have power %.2f against %g×.\n", out.SpecTrials, out.SpecPower, out.Against)
	}
	fmt.Fprintf(w, "Calibration on this machine (%d workers, %.1f s; setup %.2f s):\n", cal.Workers, cal.Took.Seconds(), setup.Seconds())
	width := 0 // the names' column as wide as the longest (a control's name can pass 28)
	for _, s := range cal.Subjects {
		width = max(width, utf8.RuneCountInString(s.Name))
	}
	for _, s := range cal.Subjects {
		check := fmt.Sprintf("%s + %s a trial", fmtDuration(s.CheckFixed), fmtDuration(s.CheckPerTrial))
		switch { // a part the fit found nothing of is left out, not printed as "0 ns"
		case s.CheckFixed <= 0 && s.CheckPerTrial <= 0:
			check = "no measurable time"
		case s.CheckFixed <= 0:
			check = fmtDuration(s.CheckPerTrial) + " a trial"
		case s.CheckPerTrial <= 0:
			check = fmtDuration(s.CheckFixed) + ", whatever the trials"
		}
		pad := strings.Repeat(" ", width-utf8.RuneCountInString(s.Name))
		fmt.Fprintf(w, "  %s%s %s a trial (%d trials); its check %s\n", s.Name, pad, fmtDuration(s.PerTrial), s.Trials, check)
	}
	for _, p := range out.Predictions {
		fmt.Fprintf(w, "At %d trials: one machine ≈ %s; %d shards ≈ %s each, then the merge ≈ %s (≈ %s in all, without queueing).\n",
			p.Trials, fmtSeconds(p.OneMachine), p.Shards, fmtSeconds(p.PerShard), fmtSeconds(p.Merge), fmtSeconds(p.ShardedWallTime))
	}
}

// fmtDuration prints a short duration with three significant digits.
func fmtDuration(d time.Duration) string {
	switch {
	case d < time.Microsecond:
		return fmt.Sprintf("%d ns", d.Nanoseconds())
	case d < time.Millisecond:
		return fmt.Sprintf("%.3g µs", float64(d)/1e3)
	case d < time.Second:
		return fmt.Sprintf("%.3g ms", float64(d)/1e6)
	}
	return fmtSeconds(d.Seconds())
}

// fmtSeconds prints seconds as s, min or h.
func fmtSeconds(s float64) string {
	switch {
	case s < 120:
		return fmt.Sprintf("%.3g s", s)
	case s < 7200:
		return fmt.Sprintf("%.3g min", s/60)
	}
	return fmt.Sprintf("%.3g h", s/3600)
}

// plural is "1 subject" or "n subjects".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
