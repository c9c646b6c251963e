package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
)

// planRequest is audit plan --spec's question: the power target, and how to calibrate.
type planRequest struct {
	spec           string  // the spec file, as given
	power, against float64 // against 0: the spec's power.against, else verdict.DefaultPowerAgainst
	shards         int
	budget         time.Duration
	json           bool
}

// runPlanSpec answers audit plan --spec (pipeline.AnswerPlan) and prints the answer.
func runPlanSpec(ctx context.Context, c demoConfig, plan pipeline.Plan, setup time.Duration, stdout io.Writer) error {
	pr := c.replay.plan
	against := pr.against
	if against == 0 {
		against = c.powerAgainst
	}
	if against == 0 {
		against = verdict.DefaultPowerAgainst
	}
	out, cal, err := pipeline.AnswerPlan(ctx, plan, pipeline.PlanQuestion{Spec: pr.spec, Power: pr.power, Against: against, Shards: pr.shards, Budget: pr.budget}, setup)
	if err != nil {
		return err
	}
	need := out.TrialsNeeded
	if pr.json {
		return json.NewEncoder(stdout).Encode(out)
	}
	fmt.Fprintf(stdout, "%s: %s to run (%s), claim (ε=%g, δ=%g), confidence %g.\n", out.Spec, plural(len(out.Subjects), "subject"), strings.Join(out.Subjects, ", "), out.Epsilon, out.Delta, c.confidence)
	fmt.Fprintf(stdout, "To catch a true ε of %g × %g with probability %g, the distinguishing game needs %d trials per side (split game, each of its 2 score families at %.4g %% confidence; assuming a Gaussian leak, μ = %.4g).\n",
		against, out.Epsilon, pr.power, need, 100*out.GameConfidence, out.GDPMu)
	for _, o := range out.Others {
		count := fmt.Sprintf("%d trials per side", o.TrialsNeeded)
		if o.TrialsNeeded == 0 {
			count = fmt.Sprintf("more than %d trials per side", epsilon.MaxPlanTrials)
		}
		fmt.Fprintf(stdout, "Its other game, %s (each test at %.4g %% confidence), needs %s for the same.\n", o.Route, 100*o.Confidence, count)
	}
	if c.trials != need {
		fmt.Fprintf(stdout, "The spec's %d trials have power %.2f against %g×.\n", c.trials, out.SpecPower, against)
	}
	fmt.Fprintf(stdout, "Calibration on this machine (%d workers, %.1f s; setup %.2f s):\n", cal.Workers, cal.Took.Seconds(), setup.Seconds())
	for _, s := range cal.Subjects {
		fmt.Fprintf(stdout, "  %-28s %s a trial (%d trials); its check %s + %s a trial\n", s.Name, fmtDuration(s.PerTrial), s.Trials, fmtDuration(s.CheckFixed), fmtDuration(s.CheckPerTrial))
	}
	for _, p := range out.Predictions {
		fmt.Fprintf(stdout, "At %d trials: one machine ≈ %s; %d shards ≈ %s each, then the merge ≈ %s (≈ %s in all, without queueing).\n",
			p.Trials, fmtSeconds(p.OneMachine), p.Shards, fmtSeconds(p.PerShard), fmtSeconds(p.Merge), fmtSeconds(p.ShardedWallTime))
	}
	return nil
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
