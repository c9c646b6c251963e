package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/internal/cliflag"
)

// runRun runs the audit a spec file describes (spec.Spec), with the demo's machinery:
// the same trials, checks, checkpoints and report. Flags given override the spec.
func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runRunAs(ctx, args, stdout, stderr, replay{})
}

// replay is how audit merge runs a finished audit's command again: from the merged trials
// only, refusing to run any, and only if the configuration is still the shards' own.
type replay struct {
	fingerprint string           // the shards' RunFingerprint; "" for an ordinary run
	checks      string           // the shards' check settings (trials.ShardManifest.Checks)
	shards      *trials.ShardSet // their trials, written into the run's trial folder once the configuration is checked
	plan        *planRequest     // audit plan --spec: calibrate and predict instead of running
}

// getenv reads the environment for ShardFromEnv; tests replace it.
var getenv = os.Getenv

func runRunAs(ctx context.Context, args []string, stdout, stderr io.Writer, rp replay) error {
	var (
		specPath string
		shard    string
		c        demoConfig
	)
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&specPath, "spec", "", "the audit spec: a JSON file of schema "+spec.SpecSchema+" (required)")
	fs.StringVar(&c.Out, "out", "audit-report", "directory for report.json, report.md and the trial files")
	audit.Var(fs, &c.Trials, audit.TrialsParam)
	audit.Var(fs, &c.Workers, audit.WorkersParam)
	audit.Var(fs, &c.Data.MaxValues, pipeline.MaxValuesParam)
	fs.BoolVar(&c.Fresh, "fresh", false, "discard the finished trials kept for this configuration and run them again")
	forceFlag(fs, &c.Force)
	fs.BoolVar(&c.quiet, "quiet", false, "no progress bar on stderr (it is shown only when stderr is a terminal)")
	fs.BoolVar(&c.json, "json", false, "print the report's JSON on stdout instead of the summary table")
	fs.StringVar(&shard, "shard", "", "run part I of N of the trials (trials I, I+N, I+2N, …) into DIR/shard-I-of-N, for audit merge; default: the part a Slurm job array (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, JOB_COMPLETIONS) assigns, if any")
	fs.BoolVar(&c.Controls, "controls", true, "also audit the method's negative controls (mutants with a known bug, which the audit must FAIL); --controls=false skips them")
	c.registerReportFlags(fs)
	c.keys.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: audit run --spec FILE [flags]\n\nRuns the audit a spec file describes and writes DIR/report.json and DIR/report.md.\nThe spec names the data, the method and its settings, the deletions, the claim, the trials,\nthe attacks and the outputs; flags given override the spec's. Example spec:\n\n"+specExample+"\nFlags:")
		cliflag.Print(fs.Output(), fs)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	c.CommandLine = resultFlags(fs)
	if specPath == "" {
		return fmt.Errorf("run: --spec is required (run \"audit run -h\" for an example)")
	}
	var err error
	if rp.fingerprint == "" && rp.plan == nil {
		if c.Shard, c.ShardFrom, err = shardOf(shard); err != nil {
			return err
		}
	}
	c.ReplayArgs, c.replay = replayArgs(fs), rp
	if !c.Shard.Whole() && c.json {
		return fmt.Errorf("run: --json: a shard writes no report (audit merge does)")
	}
	asked := "run" // the command the user typed, for the spec's errors
	if rp.plan != nil {
		asked = "plan"
	}
	s, err := loadSpec(asked, specPath)
	if err != nil {
		return err
	}
	c.Command = "run"
	c.ApplySpec(s, specPath, cliflag.Set(fs))
	return runAudit(ctx, c, stdout, stderr)
}

// shardOf is the part of the trials this process runs: --shard if given, else the part a
// batch system's environment assigns (trials.ShardFromEnv), else the whole audit.
func shardOf(flagValue string) (trials.Shard, string, error) {
	if flagValue != "" {
		sh, err := trials.ParseShard(flagValue)
		if err != nil {
			return trials.Shard{}, "", fmt.Errorf("--shard: %v", err)
		}
		return sh, "--shard", nil
	}
	sh, from, err := trials.ShardFromEnv(getenv)
	if err != nil {
		return trials.Shard{}, "", fmt.Errorf("run: %v", err)
	}
	return sh, from, nil
}

// specOutputs takes the spec's output folder and formats where the flags did not name them.
func specOutputs(given map[string]bool, s *spec.Spec, out, formats *string) {
	pipeline.SpecOutputs(given, s, out, formats)
}

// loadSpec reads a spec for a command; every refusal is bad input (exit 2), a SpecError
// already naming the file and field.
func loadSpec(command, path string) (*spec.Spec, error) {
	s, err := spec.LoadSpec(path)
	if err != nil {
		var se *audit.SpecError
		if errors.As(err, &se) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", command, err)
	}
	if command != "verify" { // verify audits a user's own method on its saved models
		if err := s.RequireMethod(path); err != nil {
			return nil, err
		}
	}
	return s, nil
}

const specExample = `  {
    "schema": "unlearnaudit/spec/v1",
    "data": {"file": "heart_scale", "format": "libsvm"},
    "model": {"loss": "logistic", "lambda": 0.05},
    "method": {"name": "d2d", "variants": ["strongly-convex"], "params": {"iterations": 10}},
    "deletes": [17, 42],
    "claim": {"epsilon": 1, "delta": 1e-6},
    "trials": 200,
    "power": {"against": 2},
    "confidence": 0.95,
    "seed": 1,
    "attacks": ["game", "membership"],
    "outputs": {"dir": "audit-report", "formats": ["md", "html", "pdf"]}
  }
`
