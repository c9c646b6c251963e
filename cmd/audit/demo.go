package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/internal/cliflag"
	"github.com/unlearnaudit/unlearnaudit/internal/progress"
)

// demoConfig is demo's and run's flags: the job's settings (pipeline.Job), and those
// that choose what is shown or how the settings are read.
type demoConfig struct {
	pipeline.Job
	quiet     bool          // no progress bar
	json      bool          // print the report's JSON instead of the summary table
	oneRun    bool          // demo --one-run: one training run with canaries per subject and control
	oneRunMax int           // demo --one-run-max: the ladder's largest canary count
	dateFlag  string        // --date, as given
	replay    replay        // audit merge's replay of the command, or audit plan --spec's
	keys      evidenceFlags // --evidence-key and --sign-key
}

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var c demoConfig
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.Out, "out", "audit-report", "directory for report.json, report.md and the trial files")
	fs.Uint64Var(&c.Seed, "seed", 1, "root seed: the same inputs and seed give the same report, byte for byte")
	audit.Var(fs, &c.Trials, audit.TrialsParam)
	audit.Var(fs, &c.Workers, audit.WorkersParam)
	audit.Var(fs, &c.Confidence, audit.ConfidenceParam)
	fs.BoolVar(&c.Fresh, "fresh", false, "discard the finished trials kept for this configuration and run them again (a changed configuration never reuses them anyway)")
	forceFlag(fs, &c.Force)
	fs.BoolVar(&c.quiet, "quiet", false, "no progress bar on stderr (it is shown only when stderr is a terminal)")
	fs.BoolVar(&c.json, "json", false, "print the report's JSON on stdout instead of the summary table")
	fs.BoolVar(&c.Controls, "controls", false, "also audit the method's negative controls (mutants with a known bug, which the audit must FAIL)")
	fs.BoolVar(&c.oneRun, "one-run", false, "instead of the trial audit, audit each variant and its negative controls with one training run with m canaries (spec §(h)), m doubling from 32 to --one-run-max, and say at which m each is refuted")
	fs.IntVar(&c.oneRunMax, "one-run-max", 128, "--one-run: the largest number of canaries tried (32, 64, … up to it)")
	c.registerReportFlags(fs)
	audit.Var(fs, &c.PowerAgainst, audit.PowerAgainstParam)
	audit.Var(fs, &c.Lambda, audit.LambdaParam)
	audit.Var(fs, &c.Epsilon, audit.EpsilonParam)
	audit.Var(fs, &c.Delta, audit.DeltaParam)
	fs.StringVar(&c.Deletes, "delete", "", "record IDs to delete, comma-separated (default: the most influential record and two random ones)")
	variants := audit.DemoVariantNames()
	fs.StringVar(&c.Variants, "variants", strings.Join(variants, ","), "variants to audit, comma-separated (--one-run: by default those whose m/2 deletions are quick to serve)")
	c.MethodArgs = audit.BindFlags(fs, pipeline.DemoParams())
	registerData(fs, &c.Data)
	c.keys.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: audit demo [flags]\n\nAudits every variant of every method on logistic regression and writes DIR/report.json and DIR/report.md:")
		for _, m := range audit.Methods() {
			fmt.Fprintf(stderr, "\n  %s: %s\n", m.Name(), m.Summary())
			for _, v := range audit.DemoVariantsOf(m) {
				fmt.Fprintf(stderr, "    %-16s %s\n", v.Name, v.Summary)
			}
		}
		fmt.Fprint(stderr, `
Examples:
  audit demo                                            # built-in data, every variant
  audit demo --data heart_scale --format libsvm --variants strongly-convex,perfect --controls
  audit demo --data t10k-images-idx3-ubyte.gz --format idx --classes 3,8 --trials 400
`)
		fmt.Fprintln(stderr, "\nFlags:")
		cliflag.Print(fs.Output(), fs)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	c.CommandLine, c.Command = resultFlags(fs), "demo"
	set := cliflag.Set(fs)
	c.VariantsGiven = set["variants"]
	if set["one-run-max"] && !c.oneRun {
		return fmt.Errorf("demo: --one-run-max applies to --one-run only; add --one-run, or drop it")
	}
	if c.oneRun {
		if c.keys.keyFile != "" || c.keys.signFile != "" {
			return fmt.Errorf("demo: --one-run keeps no trials and signs no report: --evidence-key and --sign-key do not apply")
		}
		return runOneRunDemo(ctx, c, stdout, stderr)
	}
	return runAudit(ctx, c, stdout, stderr)
}

// registerReportFlags declares --attacks and --formats, which demo and run share.
func (c *demoConfig) registerReportFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.Attacks, "attacks", strings.Join(audit.AttackNames, ","), "the empirical attacks to run on the published models, comma-separated: game (the distinguishing game), membership (the attack on the deleted records)")
	fs.StringVar(&c.Formats, "formats", "md", formatsUsage)
	dateFlag(fs, &c.dateFlag)
}

// formatsUsage is --formats' help, the same for every command that writes a report.
const formatsUsage = "renderings to add to report.json and report.md, which are always written, comma-separated: html, pdf (md and json are accepted and change nothing)"

// runAudit runs the audit a demoConfig describes, from the demo's flags or a spec file
// (audit run), and writes its report; or, for audit run --shard, a part of its trials, or
// for audit plan --spec, its plan.
func runAudit(ctx context.Context, c demoConfig, stdout, stderr io.Writer) error {
	start := time.Now()
	err := c.resolve(stderr)
	if err == nil {
		c.Key, c.Signer, err = c.keys.load(c.Command)
		c.KeyArgs = c.keys.args()
	}
	if err != nil {
		return err
	}
	prep, err := c.Prepare(ctx)
	if err != nil {
		return err
	}
	c.Warn = func(w string) { fmt.Fprintf(stderr, "%s: warning: %s\n", c.Command, w) }
	for _, w := range prep.Warnings { // before the trials
		c.Warn(w)
	}
	if !c.Shard.Whole() {
		return runShard(ctx, c, prep, stdout)
	}
	if c.replay.plan != nil {
		return runPlanSpec(ctx, c, prep.Plan, time.Since(start), stdout)
	}
	rep, err := c.Audit(ctx, prep)
	if err != nil {
		return err
	}
	if err := pipeline.Emit(stdout, rep, c.Out, prep.Formats, c.json); err != nil {
		return err
	}
	return verdictErr(verdict.Verdict(rep.Summary.Verdict))
}

// resolve reads what the job's flags name, before any work: the audit date, the progress
// bar (on a terminal, unless --quiet), and audit merge's or plan's replay.
func (c *demoConfig) resolve(stderr io.Writer) (err error) {
	c.Version, c.Progress = version, progress.New(stderr, !c.quiet && isTerminal(stderr))
	c.Replay, c.Timing = pipeline.Replay{Fingerprint: c.replay.fingerprint, Checks: c.replay.checks, Shards: c.replay.shards}, c.replay.plan != nil
	c.Date, err = auditDate(c.Command, c.dateFlag)
	return err
}

// isTerminal reports whether w is a terminal (the progress bar's condition).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && progress.IsTerminal(f)
}
