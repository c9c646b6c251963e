package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/threshold"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/internal/progress"
)

// PlanQuestion is audit plan --spec's question of a Plan: the power target, and how to
// calibrate.
type PlanQuestion struct {
	Spec           string  // the spec file, as given
	Power, Against float64 // Against 0: verdict.DefaultPowerAgainst
	Shards         int
	Budget         time.Duration
}

// PlanAnswer is the answer to a PlanQuestion (audit plan --spec --json's object).
type PlanAnswer struct {
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
	GameConfidence float64             `json:"game_confidence"`
	GDPMu          float64             `json:"gdp_mu"`
	SpecTrials     int                 `json:"spec_trials"`
	SpecPower      float64             `json:"spec_power"`
	Workers        int                 `json:"workers"`
	SetupSeconds   float64             `json:"setup_seconds"`
	Calibration    []PlanSubjectTiming `json:"calibration"`
	Predictions    []PlanPrediction    `json:"predictions"`
	Assumption     string              `json:"assumption"`
	CalibrationS   float64             `json:"calibration_seconds"`
	// Others are the spec's other games (the membership game on the deleted records), with
	// the trials each needs for the same violation and power: each report finding's count.
	Others []PlanGame `json:"other_games,omitempty"`
}

// PlanGame is a game's question and its count.
type PlanGame struct {
	Route        string  `json:"route"`
	Confidence   float64 `json:"confidence"`
	TrialsNeeded int     `json:"trials_needed"`
}

type PlanSubjectTiming struct {
	Subject              string  `json:"subject"`
	Trials               int     `json:"trials"`
	SecondsPerTrial      float64 `json:"seconds_per_trial"`
	CheckSeconds         float64 `json:"check_seconds_fixed"`
	CheckSecondsPerTrial float64 `json:"check_seconds_per_trial"`
}

type PlanPrediction struct {
	Trials          int     `json:"trials"`
	OneMachine      float64 `json:"one_machine_seconds"`
	Shards          int     `json:"shards"`
	PerShard        float64 `json:"per_shard_seconds"`
	Merge           float64 `json:"merge_seconds"`
	ShardedWallTime float64 `json:"sharded_seconds"`
}

// AnswerPlan answers q of the plan p (audit plan --spec): the trials the plan's claim
// needs for the power target, and, from a calibration run on this machine, how long the
// audit takes at those trials (and at the plan's) on one machine and on q.Shards parts.
// setup is how long loading the data and building the subjects took. It returns the
// calibration too, for a front end to print.
func AnswerPlan(ctx context.Context, p Plan, q PlanQuestion, setup time.Duration) (*PlanAnswer, audit.Calibration, error) {
	if len(p.Subjects) == 0 {
		return nil, audit.Calibration{}, errors.New("plan: no subjects to plan")
	}
	if p.Progress == nil {
		p.Progress = progress.New(io.Discard, false)
	}
	pr, subjects := q, p.Subjects
	against := pr.Against
	if against == 0 {
		against = verdict.DefaultPowerAgainst
	}
	claim := subjects[0].Subject.Claim()
	ps := checks.GamePowerSpec(claim.Epsilon, claim.Delta, p.Confidence, against)
	ps.Power = pr.Power
	sctx, stop := p.Progress.Steps(ctx, "plan: searching the trials per side that reach the power")
	need, mu, err := epsilon.TrialsToDetect(sctx, ps)
	stop()
	if err != nil {
		return nil, audit.Calibration{}, fmt.Errorf("plan: %w", err) // an interruption stays one (exit 130)
	}
	specPower := 0.0
	if p.Trials >= checks.MinEmpiricalTrials {
		res, err := epsilon.SplitGamePower(ctx, p.Trials, ps)
		if err != nil {
			return nil, audit.Calibration{}, fmt.Errorf("plan: %w", err) // an interruption stays one (exit 130)
		}
		specPower = res.Power
	}
	stop = p.Progress.Phase(fmt.Sprintf("plan: timing the trials and checks on this machine (about %v)", pr.Budget))
	cal, err := audit.Calibrate(ctx, audit.WithControls(subjects, p.Controls), p.Seed, p.Workers, pr.Budget, max(need, p.Trials))
	stop()
	if err != nil {
		return nil, audit.Calibration{}, fmt.Errorf("plan: %w", err)
	}
	cal.Setup = setup
	out := &PlanAnswer{Spec: pr.Spec, Epsilon: claim.Epsilon, Delta: claim.Delta, Confidence: p.Confidence,
		Against: against, Power: pr.Power, TrialsNeeded: need, GameConfidence: ps.Conf, GDPMu: mu, SpecTrials: p.Trials, SpecPower: specPower,
		Workers: cal.Workers, SetupSeconds: setup.Seconds(), CalibrationS: cal.Took.Seconds(),
		Assumption: "trials_needed assumes a Gaussian (μ-GDP) leak whose ε at δ is against × claim; times are for machines like this one, without queueing or file transfer"}
	for _, s := range cal.Subjects {
		out.Subjects = append(out.Subjects, s.Name)
		out.Calibration = append(out.Calibration, PlanSubjectTiming{Subject: s.Name, Trials: s.Trials, SecondsPerTrial: s.PerTrial.Seconds(),
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
			qs.Power = pr.Power
			if seen[qs] {
				continue
			}
			seen[qs] = true
			sctx, stop := p.Progress.Steps(ctx, "plan: searching the trials "+q.Route+" needs")
			n, _, err := epsilon.TrialsToDetect(sctx, qs)
			stop()
			if err := ctx.Err(); err != nil {
				return nil, audit.Calibration{}, err
			}
			if err != nil {
				n = 0 // beyond epsilon.MaxPlanTrials; printed as such
			}
			out.Others = append(out.Others, PlanGame{Route: q.Route, Confidence: q.Confidence, TrialsNeeded: n})
		}
	}
	counts := []int{need}
	if p.Trials != need {
		counts = append(counts, p.Trials)
	}
	for _, n := range counts {
		p := cal.Predict(n, pr.Shards)
		out.Predictions = append(out.Predictions, PlanPrediction{Trials: n, OneMachine: p.One.Seconds(), Shards: pr.Shards,
			PerShard: p.PerShard.Seconds(), Merge: p.Merge.Seconds(), ShardedWallTime: (p.PerShard + p.Merge).Seconds()})
	}
	return out, cal, nil
}

// TrialsAnswer is audit plan --trials's answer (its --json object): what a distinguishing
// game with Trials per side can show at δ, and with a claim its power against it.
type TrialsAnswer struct {
	Trials              int          `json:"trials"`
	Delta               float64      `json:"delta"`
	Confidence          float64      `json:"confidence"`
	Strategy            string       `json:"strategy"`
	MaxCertifiable      table.Number `json:"max_certifiable_epsilon"`
	ClaimEpsilon        float64      `json:"claim_epsilon,omitempty"`
	TrialsForResolution int          `json:"trials_for_resolution,omitempty"`
	Factor              float64      `json:"factor,omitempty"`
	Power               float64      `json:"power,omitempty"`
	TrialsNeeded        int          `json:"trials_needed,omitempty"`
	GDPMu               float64      `json:"gdp_mu,omitempty"`
	// PowerAtTrials and SmallestFactor are what the split game with --trials per side
	// catches: the factor× violation with that probability, and every violation of at
	// least SmallestFactor× with probability --power (+Inf: none). A report's power
	// figures are these, for the question its plan command asks.
	PowerAtTrials  *float64      `json:"power_at_trials,omitempty"`
	SmallestFactor *table.Number `json:"smallest_detectable_factor,omitempty"`
	// SmallestEpsilon, SmallestMu and MaxMu are what a report's power says of these trials
	// (verdict.Power's fields of the same JSON names): the smallest leak caught with --power,
	// in ε and μ, and the μ of max_certifiable_epsilon. Supports is the report's first line.
	SmallestEpsilon *table.Number `json:"smallest_detectable_epsilon,omitempty"`
	SmallestMu      *table.Number `json:"smallest_detectable_mu,omitempty"`
	MaxMu           *table.Number `json:"max_showable_mu,omitempty"`
	Supports        string        `json:"supports,omitempty"`
	Assumption      string        `json:"assumption,omitempty"`
}

// RanksAnswer is audit plan --models's answer (checks.RankPlan; its --json object).
type RanksAnswer struct {
	Models          int           `json:"models"`
	Retrains        int           `json:"retrains,omitempty"`
	ClaimEpsilon    float64       `json:"claim_epsilon"`
	Delta           float64       `json:"delta"`
	Confidence      float64       `json:"confidence"`
	Threshold       table.Number  `json:"threshold"`
	RetrainsNeeded  int           `json:"retrains_needed"`
	SmallestEpsilon *table.Number `json:"smallest_detectable_epsilon,omitempty"`
	SmallestMu      *table.Number `json:"smallest_detectable_mu,omitempty"`
	MaxEpsilon      *table.Number `json:"max_showable_epsilon,omitempty"`
	MaxMu           *table.Number `json:"max_showable_mu,omitempty"`
	Factor          float64       `json:"factor"`
	GameTrials      int           `json:"game_trials_to_pass"`
	Supports        string        `json:"supports"`
}

// TrialsQuestion is audit plan --trials's question: Trials per side at δ, and with a
// claim (Claim > 0) the power against a true ε of Factor × Claim.
type TrialsQuestion struct {
	Trials               int
	Delta, Confidence    float64
	Strategy             threshold.Strategy
	Claim, Factor, Power float64
}

// AnswerTrials answers q; bar, if set, shows the search for the trials that reach the
// power (its settling's replicates, with an ETA on a terminal).
func AnswerTrials(ctx context.Context, bar *progress.Bar, q TrialsQuestion) (*TrialsAnswer, error) {
	var err error
	out := &TrialsAnswer{Trials: q.Trials, Delta: q.Delta, Confidence: q.Confidence, Strategy: q.Strategy.String(),
		MaxCertifiable: table.Number(epsilon.MaxCertifiable(q.Trials, q.Delta, q.Confidence, q.Strategy))}
	if q.Claim > 0 {
		out.ClaimEpsilon, out.Factor, out.Power = q.Claim, q.Factor, q.Power
		if out.TrialsForResolution, err = epsilon.TrialsForResolution(q.Claim, q.Delta, q.Confidence, q.Strategy); err != nil {
			return nil, fmt.Errorf("plan: %w", err)
		}
		// the search reports its settling's replicates through sctx: an ETA on a terminal
		sctx, stop := bar.Steps(ctx, "plan: searching the trials per side that reach the power")
		ps := epsilon.PowerSpec{Claim: q.Claim, Factor: q.Factor, Power: q.Power, Delta: q.Delta, Conf: q.Confidence}
		n, mu, err := epsilon.TrialsToDetect(sctx, ps)
		stop()
		if err != nil {
			return nil, fmt.Errorf("plan: %w", err)
		}
		out.TrialsNeeded, out.GDPMu = n, mu
		at, err := checks.PowerOf(ctx, q.Trials, ps, "plan") // what a report's power at these trials says
		if err != nil {
			return nil, fmt.Errorf("plan: %w", err)
		}
		sf := table.Number(at.SmallestFactor)
		out.PowerAtTrials, out.SmallestFactor = &at.Power, &sf
		se, sm, mm := table.Number(at.SmallestEpsilon), table.Number(at.SmallestMu), table.Number(at.MaxMu)
		out.SmallestEpsilon, out.SmallestMu, out.MaxMu = &se, &sm, &mm
		// the sentence a report's finding at these trials opens with (got.Power.Supports)
		got := verdict.Inconclusive
		if at.Sufficient() {
			got = verdict.Pass
		}
		at.TrialsToPass = n
		out.Supports = at.Supports(got)
		out.Assumption = "trials_needed, power_at_trials and smallest_detectable_factor assume a Gaussian (μ-GDP) leak whose ε at δ is factor × claim, and split thresholds"
	}
	return out, nil
}

// AnswerRanks answers audit plan --models: the retrains k models need to be able to show
// the claim violated by their rank (checks.PlanRanks, as a report's rank finding says), and
// with retrains > 0 what that count supports.
func AnswerRanks(ctx context.Context, models, retrains int, claim, delta, conf, factor float64) (*RanksAnswer, error) {
	rp, err := checks.PlanRanks(ctx, models, retrains, claim, delta, conf, factor)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	out := &RanksAnswer{Models: models, Retrains: retrains, ClaimEpsilon: claim, Delta: delta, Confidence: conf, Threshold: table.Number(rp.Threshold),
		RetrainsNeeded: rp.RetrainsNeeded, Factor: factor, GameTrials: rp.GameTrials, Supports: rp.Supports()}
	if retrains > 0 {
		se, sm, me, mm := table.Number(rp.SmallestEpsilon), table.Number(rp.SmallestMu), table.Number(rp.MaxEpsilon), table.Number(rp.MaxMu)
		out.SmallestEpsilon, out.SmallestMu, out.MaxEpsilon, out.MaxMu = &se, &sm, &me, &mm
	}
	return out, nil
}
