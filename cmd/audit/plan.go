package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
)

// planRequest is audit plan --spec's question: the power target, and how to calibrate.
type planRequest struct {
	spec           string  // the spec file, as given
	power, against float64 // against 0: the spec's power.against, else audit.DefaultPowerAgainst
	shards         int
	budget         time.Duration
	json           bool
}

// planSpecOutput is audit plan --spec --json's object.
type planSpecOutput struct {
	Spec         string   `json:"spec"`
	Subjects     []string `json:"subjects"`
	Epsilon      float64  `json:"claim_epsilon"`
	Delta        float64  `json:"claim_delta"`
	Confidence   float64  `json:"confidence"`
	Against      float64  `json:"against"`
	Power        float64  `json:"power"`
	TrialsNeeded int      `json:"trials_needed"`
	// GameConfidence is each score family's confidence in the game trials_needed is for
	// (the spec's confidence shared by the two families): the question's confidence.
	GameConfidence float64               `json:"game_confidence"`
	GDPMu          float64               `json:"gdp_mu"`
	SpecTrials     int                   `json:"spec_trials"`
	SpecPower      float64               `json:"spec_power"`
	Workers        int                   `json:"workers"`
	SetupSeconds   float64               `json:"setup_seconds"`
	Calibration    []planSubjectTiming   `json:"calibration"`
	Predictions    []planPredictionTimes `json:"predictions"`
	Assumption     string                `json:"assumption"`
	CalibrationS   float64               `json:"calibration_seconds"`
	// Others are the spec's other games (the membership game on the deleted records), with
	// the trials each needs for the same violation and power: each report finding's count.
	Others []planQuestion `json:"other_games,omitempty"`
}

// planQuestion is a game's question and its count.
type planQuestion struct {
	Route        string  `json:"route"`
	Confidence   float64 `json:"confidence"`
	TrialsNeeded int     `json:"trials_needed"`
}

type planSubjectTiming struct {
	Subject              string  `json:"subject"`
	Trials               int     `json:"trials"`
	SecondsPerTrial      float64 `json:"seconds_per_trial"`
	CheckSeconds         float64 `json:"check_seconds_fixed"`
	CheckSecondsPerTrial float64 `json:"check_seconds_per_trial"`
}

type planPredictionTimes struct {
	Trials          int     `json:"trials"`
	OneMachine      float64 `json:"one_machine_seconds"`
	Shards          int     `json:"shards"`
	PerShard        float64 `json:"per_shard_seconds"`
	Merge           float64 `json:"merge_seconds"`
	ShardedWallTime float64 `json:"sharded_seconds"`
}

// runPlanSpec answers audit plan --spec: the trials the spec's claim needs for the power
// target, and, from a calibration run on this machine, how long the audit takes at those
// trials (and at the spec's) on one machine and on N shards.
func runPlanSpec(ctx context.Context, c demoConfig, subjects []audit.Audited, setup time.Duration, stdout io.Writer) error {
	pr := c.replay.plan
	against := pr.against
	if against == 0 {
		against = c.powerAgainst
	}
	if against == 0 {
		against = audit.DefaultPowerAgainst
	}
	claim := subjects[0].Subject.Claim()
	ps := audit.GamePowerSpec(claim.Epsilon, claim.Delta, c.confidence, against)
	ps.Power = pr.power
	sctx, stop := c.progress.Steps(ctx, "plan: searching the trials per side that reach the power")
	need, mu, err := epsilon.TrialsToDetect(sctx, ps)
	stop()
	if err != nil {
		return usageError{fmt.Errorf("plan: %w", err)} // an interruption stays one (exit 130)
	}
	specPower := 0.0
	if c.trials >= audit.MinEmpiricalTrials {
		res, err := epsilon.SplitGamePower(ctx, c.trials, ps)
		if err != nil {
			return usageError{fmt.Errorf("plan: %w", err)} // an interruption stays one (exit 130)
		}
		specPower = res.Power
	}
	stop = c.progress.Phase(fmt.Sprintf("plan: timing the trials and checks on this machine (about %v)", pr.budget))
	cal, err := audit.Calibrate(ctx, audit.WithControls(subjects, c.controls), c.seed, c.workers, pr.budget, max(need, c.trials))
	stop()
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	cal.Setup = setup
	out := planSpecOutput{Spec: pr.spec, Epsilon: claim.Epsilon, Delta: claim.Delta, Confidence: c.confidence,
		Against: against, Power: pr.power, TrialsNeeded: need, GameConfidence: ps.Conf, GDPMu: mu, SpecTrials: c.trials, SpecPower: specPower,
		Workers: cal.Workers, SetupSeconds: setup.Seconds(), CalibrationS: cal.Took.Seconds(),
		Assumption: "trials_needed assumes a Gaussian (μ-GDP) leak whose ε at δ is against × claim; times are for machines like this one, without queueing or file transfer"}
	for _, s := range cal.Subjects {
		out.Subjects = append(out.Subjects, s.Name)
		out.Calibration = append(out.Calibration, planSubjectTiming{Subject: s.Name, Trials: s.Trials, SecondsPerTrial: s.PerTrial.Seconds(),
			CheckSeconds: s.CheckFixed.Seconds(), CheckSecondsPerTrial: s.CheckPerTrial.Seconds()})
	}
	// the other games the checks play (the membership game on the deleted records), asked
	// of the same violation and power: the count each report finding will give. A game
	// asking the question above (the game's own, or a membership game at its confidence)
	// has its count already.
	seen := map[epsilon.PowerSpec]bool{ps: true}
	for _, st := range cal.Subjects {
		for _, q := range st.Questions {
			qs := q.PowerSpec(against)
			qs.Power = pr.power
			if seen[qs] {
				continue
			}
			seen[qs] = true
			sctx, stop := c.progress.Steps(ctx, "plan: searching the trials "+q.Route+" needs")
			n, _, err := epsilon.TrialsToDetect(sctx, qs)
			stop()
			if err := ctx.Err(); err != nil {
				return err
			}
			if err != nil {
				n = 0 // beyond epsilon.MaxPlanTrials; printed as such
			}
			out.Others = append(out.Others, planQuestion{Route: q.Route, Confidence: q.Confidence, TrialsNeeded: n})
		}
	}
	counts := []int{need}
	if c.trials != need {
		counts = append(counts, c.trials)
	}
	for _, n := range counts {
		p := cal.Predict(n, pr.shards)
		out.Predictions = append(out.Predictions, planPredictionTimes{Trials: n, OneMachine: p.One.Seconds(), Shards: pr.shards,
			PerShard: p.PerShard.Seconds(), Merge: p.Merge.Seconds(), ShardedWallTime: (p.PerShard + p.Merge).Seconds()})
	}
	if pr.json {
		return json.NewEncoder(stdout).Encode(out)
	}
	fmt.Fprintf(stdout, "%s: %s to run (%s), claim (ε=%g, δ=%g), confidence %g.\n", out.Spec, plural(len(out.Subjects), "subject"), strings.Join(out.Subjects, ", "), claim.Epsilon, claim.Delta, c.confidence)
	fmt.Fprintf(stdout, "To catch a true ε of %g × %g with probability %g, the distinguishing game needs %d trials per side (split game, each of its 2 score families at %.4g %% confidence; assuming a Gaussian leak, μ = %.4g).\n",
		against, claim.Epsilon, pr.power, need, 100*ps.Conf, mu)
	for _, o := range out.Others {
		count := fmt.Sprintf("%d trials per side", o.TrialsNeeded)
		if o.TrialsNeeded == 0 {
			count = fmt.Sprintf("more than %d trials per side", epsilon.MaxPlanTrials)
		}
		fmt.Fprintf(stdout, "Its other game, %s (each test at %.4g %% confidence), needs %s for the same.\n", o.Route, 100*o.Confidence, count)
	}
	if c.trials != need {
		fmt.Fprintf(stdout, "The spec's %d trials have power %.2f against %g×.\n", c.trials, specPower, against)
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
