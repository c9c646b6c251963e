package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/threshold"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/estimate"
	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/internal/cliflag"
	"github.com/unlearnaudit/unlearnaudit/internal/progress"
)

func runEstimate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("estimate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	aPath := fs.String("a", "", "samples of law A: one row per sample, one column per coordinate (.npy, .npz of one array, or CSV without a header) (required)")
	bPath := fs.String("b", "", "samples of law B, the same layout (required)")
	var (
		alpha, conf float64
		method, cov string
		reps, k     int
	)
	audit.Var(fs, &alpha, audit.Param{Name: "alpha", Usage: "Rényi order α (≠ 1)", Default: "2", Kind: audit.Number, Range: "(0, 1e6]"})
	audit.Var(fs, &method, audit.Param{Name: "method", Usage: "gauss, projected or knn", Default: "gauss", Kind: audit.Choice, Choices: []string{"gauss", "projected", "knn"}})
	audit.Var(fs, &cov, audit.Param{Name: "covariance", Usage: "gauss and projected: separate or pooled covariance", Default: "separate", Kind: audit.Choice, Choices: []string{"separate", "pooled"}})
	audit.Var(fs, &conf, audit.Param{Name: "confidence", Usage: "interval level", Default: "0.95", Kind: audit.Number, Range: "(0, 1)"})
	seed := fs.Uint64("seed", 1, "seed of the resampling")
	audit.Var(fs, &reps, audit.Param{Name: "reps", Usage: "resamples (0: 200, or 50 half-samples for knn)", Kind: audit.Integer, Range: "[0, 100000]"})
	audit.Var(fs, &k, audit.Param{Name: "k", Usage: "knn: neighbour rank (0: max(5, ⌈α⌉+1))", Kind: audit.Integer, Range: "[0, 1000000]"})
	asJSON := fs.Bool("json", false, "print one JSON object")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: audit estimate --a A.csv --b B.csv [flags]\n\nEstimates the Rényi divergence D_α(A‖B) from samples, with an interval (an estimate, not a bound).\n\nExamples:\n  audit estimate --a unlearned.csv --b retrained.csv --method gauss --alpha 2\n  audit estimate --a unlearned.csv --b retrained.csv --method knn --k 5 --json\n\nFlags:")
		cliflag.Print(fs.Output(), fs)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	out, err := pipeline.EstimateFiles(ctx, pipeline.EstimateQuestion{A: *aPath, B: *bPath, Method: method, Covariance: cov,
		Options: estimate.Options{Alpha: alpha, Confidence: conf, Reps: reps, K: k, Seed: *seed}})
	return answer(stdout, out, *asJSON, err)
}

func runEpsilon(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("epsilon", flag.ContinueOnError)
	fs.SetOutput(stderr)
	aPath := fs.String("a", "", "scores under models of kind A (e.g. unlearned): one row per model, one column per example (.npy, .npz of one array, or CSV) (required)")
	bPath := fs.String("b", "", "scores under models of kind B (e.g. retrained), the same layout (required)")
	var (
		delta, conf float64
		strategy    string
	)
	audit.Var(fs, &delta, audit.Param{Name: "delta", Usage: "δ of the (ε, δ) bound (required)", Kind: audit.Number, Range: "[0, 1)"})
	audit.Var(fs, &conf, audit.Param{Name: "confidence", Usage: "confidence of the bound, shared by all examples (Bonferroni)", Default: "0.95", Kind: audit.Number, Range: "(0, 1)"})
	audit.Var(fs, &strategy, audit.Param{Name: "strategy", Usage: "threshold choice: split (held-out half) or bonferroni (all thresholds, corrected)", Default: "split",
		Kind: audit.Choice, Choices: []string{"split", "bonferroni"}})
	asJSON := fs.Bool("json", false, "print one JSON object")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: audit epsilon --a scoresA.csv --b scoresB.csv --delta D [flags]\n\nBounds ε from below by a distinguishing game on each example's scores, and computes the\nNeurIPS 2023 unlearning competition's per-example ε and forgetting score.\n\nExamples:\n  audit epsilon --a scores_unlearned.csv --b scores_retrained.csv --delta 1e-5\n  audit epsilon --a scores_unlearned.csv --b scores_retrained.csv --delta 1e-5 --json\n\nFlags:")
		cliflag.Print(fs.Output(), fs)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := cliflag.Check(cliflag.Set(fs), cliflag.Require("--delta is required", "delta")); err != nil {
		return fmt.Errorf("epsilon: %w", err)
	}
	out, err := pipeline.EpsilonFiles(ctx, pipeline.EpsilonQuestion{A: *aPath, B: *bPath, Strategy: strategy, Game: epsilon.Game{Delta: delta, Confidence: conf}})
	return answer(stdout, out, *asJSON, err)
}

func runPlan(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		perSide, shards, workers          int
		delta, conf, claim, factor, power float64
		strategy, spec                    string
		budget                            time.Duration
	)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: audit plan --trials N --delta D [--epsilon E] [flags]\n       audit plan --models K --epsilon E --delta D [--retrains N]\n       audit plan --spec FILE [--power 0.8 --power-against 2 --shards 4]\n\nSays how large an ε a distinguishing game with N trials per side can show at δ (its\nresolution) and, with --epsilon (the claimed ε), its power against a true ε of\n--power-against × the claim and how many trials per side would reach --power.\n\nWith --spec, for the audit the spec describes: the trials per side its claim needs to catch\n--power-against × its ε with --power, and, from a short calibration run on this machine,\nhow long the audit takes at those trials (and at the spec's) on one machine and on\n--shards parts (audit run --shard, then audit merge).\n\nWith --models, the one-model question: how many retrains K unlearned models ranked among\nthem need to be able to show the claim violated (a rank test never PASSes), and with\n--retrains what that count supports. With --table, a Markdown table of what each count of\nmodels per side can and cannot show of the claim.\n\nExamples:\n  audit plan --trials 200 --delta 1e-5\n  audit plan --trials 1000 --delta 1e-5 --epsilon 1 --power-against 2\n  audit plan --models 1 --epsilon 1 --delta 1e-3 --retrains 64\n  audit plan --epsilon 1 --delta 1e-3 --table 8,16,32,64\n  audit plan --spec audit.json --power 0.8 --power-against 2 --shards 4\n\nFlags:")
		cliflag.Print(fs.Output(), fs)
	}
	audit.Var(fs, &perSide, audit.Param{Name: "trials", Usage: "trials (models) per side (required without --spec; with it, overrides the spec's)", Kind: audit.Integer, Range: fmt.Sprintf("[2, %d]", trials.MaxTrials)})
	audit.Var(fs, &delta, audit.Param{Name: "delta", Usage: "δ of the claim (required without --spec)", Kind: audit.Number, Range: "[0, 1)"})
	audit.Var(fs, &conf, audit.Param{Name: "confidence", Usage: "confidence of the ε lower bound", Default: "0.95", Kind: audit.Number, Range: "(0, 1)"})
	audit.Var(fs, &claim, audit.Param{Name: "epsilon", Usage: "the claimed ε: also say how many trials would detect it being off (searched up to 1000000 per side, the most an audit runs)", Kind: audit.Number, Range: "(0, 100]"})
	cliflag.Alias(fs, "claim-epsilon", "epsilon")
	audit.Var(fs, &factor, audit.Param{Name: "power-against", Usage: "with --epsilon or --spec: the violation to detect, a true ε of F × the claimed ε (default 2; with --spec, the spec's power.against, else 2)", Kind: audit.Number, Range: "(1, 1000]"})
	cliflag.Alias(fs, "factor", "power-against")
	cliflag.Alias(fs, "against", "power-against")
	audit.Var(fs, &power, audit.Param{Name: "power", Usage: "with --epsilon or --spec: probability of detecting it", Default: "0.8", Kind: audit.Number, Range: "(0, 1)"})
	table := fs.String("table", "", "with --epsilon and --delta, instead of --trials: a comma-separated list of models per side (e.g. 8,16,32,64), and a Markdown table of what each count can and cannot show of the claim")
	var models, retrains int
	audit.Var(fs, &models, audit.Param{Name: "models", Usage: fmt.Sprintf("the one-model question: K unlearned models (fewer than %d, one production model the usual case) ranked among retrains; with --epsilon and --delta, how many retrains let them show the claim violated", checks.MinEmpiricalTrials), Kind: audit.Integer, Range: fmt.Sprintf("[1, %d]", checks.MinEmpiricalTrials-1)})
	audit.Var(fs, &retrains, audit.Param{Name: "retrains", Usage: "with --models: the retrains they are ranked among, to say what that count supports", Kind: audit.Integer, Range: fmt.Sprintf("[1, %d]", trials.MaxTrials)})
	audit.Var(fs, &strategy, audit.Param{Name: "strategy", Usage: "threshold choice: split or bonferroni", Default: "split", Kind: audit.Choice, Choices: []string{"split", "bonferroni"}})
	fs.StringVar(&spec, "spec", "", "plan the audit this spec file describes (audit run --spec FILE)")
	audit.Var(fs, &shards, audit.Param{Name: "shards", Usage: "with --spec: the parts to predict a sharded run for", Default: "4", Kind: audit.Integer, Range: fmt.Sprintf("[1, %d]", trials.MaxShards)})
	fs.DurationVar(&budget, "calibrate", 10*time.Second, "with --spec: about how long the calibration run may take")
	audit.Var(fs, &workers, audit.WorkersParam)
	controls := fs.Bool("controls", true, "with --spec: plan the run with the method's negative controls, as audit run does by default (--controls=false: without them)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	quiet := fs.Bool("quiet", false, "no progress line on stderr (it is shown only when stderr is a terminal)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	set := cliflag.Set(fs)
	if spec != "" {
		if err := cliflag.Check(set, planSpecRules...); err != nil {
			return fmt.Errorf("plan: %w", err)
		}
		if budget <= 0 || budget > 24*time.Hour {
			return fmt.Errorf("plan: --calibrate %v: want a duration in (0, 24h]", budget)
		}
		argv := []string{"--spec=" + spec, fmt.Sprintf("--workers=%d", workers), fmt.Sprintf("--controls=%t", *controls), fmt.Sprintf("--quiet=%t", *quiet)}
		if set["trials"] {
			argv = append(argv, fmt.Sprintf("--trials=%d", perSide))
		}
		return runRunAs(ctx, argv, stdout, stderr, replay{plan: &planRequest{spec: spec, power: power, against: factor, shards: shards, budget: budget, json: *asJSON}})
	}
	if !set["power-against"] {
		factor = verdict.DefaultPowerAgainst
	}
	switch {
	case set["models"] || set["retrains"]:
		if err := cliflag.Check(set, planRanksRules...); err != nil {
			return fmt.Errorf("plan: %w", err)
		}
		out, err := pipeline.AnswerRanks(ctx, models, retrains, claim, delta, conf, factor)
		return answer(stdout, out, *asJSON, err)
	case set["table"]:
		if err := cliflag.Check(set, planTableRules...); err != nil {
			return fmt.Errorf("plan: %w", err)
		}
		counts, err := pipeline.ParseCounts(*table)
		if err != nil {
			return fmt.Errorf("plan: %w", err)
		}
		return pipeline.WritePlanTable(ctx, stdout, counts, claim, delta, conf, factor)
	}
	if err := cliflag.Check(set, planTrialsRules...); err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	strat, err := threshold.Parse(strategy)
	if err != nil {
		return fmt.Errorf("--strategy: %w", err)
	}
	var claimed float64 // 0: no claim asked of
	if set["epsilon"] {
		claimed = claim
	}
	out, err := pipeline.AnswerTrials(ctx, progress.New(stderr, !*quiet && isTerminal(stderr)), pipeline.TrialsQuestion{Trials: perSide, Delta: delta, Confidence: conf,
		Strategy: strat, Claim: claimed, Factor: factor, Power: power})
	return answer(stdout, out, *asJSON, err)
}

// The combinations of plan's flags each question accepts, checked in this order (cliflag.Check).
var (
	planSpecRules = []cliflag.Rule{
		cliflag.Refuse("--%s comes from the spec with --spec (the spec's claim and confidence are planned)", "delta", "epsilon", "strategy", "confidence")}
	planRanksRules = []cliflag.Rule{
		cliflag.Refuse("--%s does not apply to --models (the rank test: its retrains are --retrains, its power 80 %%)", "trials", "strategy", "power", "shards", "calibrate", "workers", "controls"),
		cliflag.Require("--retrains needs --models (how many unlearned models are ranked)", "models"),
		cliflag.Require("--models needs --epsilon (the claimed ε)", "epsilon"),
		cliflag.Require("--models needs --delta", "delta")}
	planTableRules = []cliflag.Rule{
		cliflag.Refuse("--%s does not apply to --table (split game, 80 %% power, a Markdown table)", "trials", "strategy", "power", "json", "shards", "calibrate", "workers", "controls"),
		cliflag.Require("--table needs --epsilon and --delta (the claim the counts are asked of)", "epsilon", "delta")}
	planTrialsRules = []cliflag.Rule{
		cliflag.Refuse("--%s plans a spec's run: it needs --spec", "shards", "calibrate", "workers", "controls"),
		cliflag.Refuse("--%s asks about the power against a claim: it needs --epsilon (the claimed ε)", "power-against", "power").Unless("epsilon"),
		cliflag.Require("--trials is required", "trials"),
		cliflag.Require("--delta is required", "delta")}
)

// answer prints a question's answer: one JSON object with --json, else its text.
func answer(w io.Writer, out interface{ WriteText(io.Writer) }, asJSON bool, err error) error {
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(w).Encode(out)
	}
	out.WriteText(w)
	return nil
}
