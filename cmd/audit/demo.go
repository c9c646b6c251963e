package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/evidence"
	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/internal/cliflag"
	"github.com/unlearnaudit/unlearnaudit/internal/outdir"
	"github.com/unlearnaudit/unlearnaudit/internal/progress"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

type demoConfig struct {
	out          string
	seed         uint64
	trials       int
	workers      int
	confidence   float64
	powerAgainst float64
	fresh        bool
	lambda       float64
	epsilon      float64
	delta        float64
	deletes      string
	variants     string
	data         pipeline.DataSource
	methodArgs   audit.Args // every method's own settings, by flag name
	command      string     // "demo" or "run": the report's command and the errors' prefix
	commandLine  []string   // resultFlags, for the report's provenance
	quiet        bool
	controls     bool            // also audit each subject's negative controls
	oneRun       bool            // demo --one-run: one training run with canaries per subject and control
	oneRunMax    int             // demo --one-run-max: the ladder's largest canary count
	variantsSet  bool            // --variants was given (demo --one-run then runs costly variants too)
	json         bool            // print the report's JSON instead of the summary table
	attacks      string          // --attacks: audit.AttackNames, comma-separated
	formats      string          // --formats: the renderings beside report.json
	dateFlag     string          // --date, as given
	date         string          // the report's audit date (auditDate)
	attackList   audit.Attacks   // attacks, parsed
	progress     *progress.Bar   // trials done and ETA on stderr, when it is a terminal
	shard        trials.Shard    // audit run --shard: the part of the trials to run
	shardFrom    string          // what assigned the part: "--shard" or an environment variable
	replayArgs   []string        // the flags a shard's manifest keeps (replayArgs)
	replay       replay          // audit merge's replay of the command
	force        bool            // --force: take over the out folder's files the tool did not write
	spec         string          // audit run's --spec, an input --out may not replace
	fromSpec     map[string]bool // audit run: the settings, by flag name, that the spec gave

	// the keys (evidenceFlags): their files, and what they hold once read
	keys   evidenceFlags      // --evidence-key and --sign-key
	key    *evidence.Key      // the evidence key read from keys.file(); nil: unauthenticated trials
	signer ed25519.PrivateKey // the report's signing key; nil: not signed
}

// inputs are the files the audit reads, which its outputs may not replace.
func (c demoConfig) inputs() []outdir.Input {
	in := []outdir.Input{{Flag: "--spec", Path: c.spec}, {Flag: "--data", Path: c.data.Path}, {Flag: "--labels", Path: c.data.Labels}}
	if c.data.Path != "" && c.data.Format == "idx" && c.data.Labels == "" {
		in = append(in, outdir.Input{Flag: "--labels", Path: reference.DefaultLabelsPath(c.data.Path)})
	}
	return in
}

// name is how errors name a setting: its flag, or the field of the spec that gave it.
func (c demoConfig) name(flag string) string {
	if c.fromSpec[flag] {
		return c.spec + ": " + audit.SpecField(flag, -1)
	}
	return "--" + flag
}

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var c demoConfig
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.out, "out", "audit-report", "directory for report.json, report.md and the trial files")
	fs.Uint64Var(&c.seed, "seed", 1, "root seed: the same inputs and seed give the same report, byte for byte")
	audit.Var(fs, &c.trials, audit.TrialsParam)
	audit.Var(fs, &c.workers, audit.WorkersParam)
	audit.Var(fs, &c.confidence, audit.ConfidenceParam)
	fs.BoolVar(&c.fresh, "fresh", false, "discard the finished trials kept for this configuration and run them again (a changed configuration never reuses them anyway)")
	forceFlag(fs, &c.force)
	fs.BoolVar(&c.quiet, "quiet", false, "no progress bar on stderr (it is shown only when stderr is a terminal)")
	fs.BoolVar(&c.json, "json", false, "print the report's JSON on stdout instead of the summary table")
	fs.BoolVar(&c.controls, "controls", false, "also audit the method's negative controls (mutants with a known bug, which the audit must FAIL)")
	fs.BoolVar(&c.oneRun, "one-run", false, "instead of the trial audit, audit each variant and its negative controls with one training run with m canaries (spec §(h)), m doubling from 32 to --one-run-max, and say at which m each is refuted")
	fs.IntVar(&c.oneRunMax, "one-run-max", 128, "--one-run: the largest number of canaries tried (32, 64, … up to it)")
	c.registerReportFlags(fs)
	audit.Var(fs, &c.powerAgainst, audit.PowerAgainstParam)
	audit.Var(fs, &c.lambda, audit.LambdaParam)
	audit.Var(fs, &c.epsilon, audit.EpsilonParam)
	audit.Var(fs, &c.delta, audit.DeltaParam)
	fs.StringVar(&c.deletes, "delete", "", "record IDs to delete, comma-separated (default: the most influential record and two random ones)")
	variants := audit.DemoVariantNames()
	fs.StringVar(&c.variants, "variants", strings.Join(variants, ","), "variants to audit, comma-separated (--one-run: by default those whose m/2 deletions are quick to serve)")
	var params []audit.Param
	for _, m := range audit.Methods() {
		params = append(params, audit.DemoParamsOf(m)...)
	}
	c.methodArgs = audit.BindFlags(fs, params)
	registerData(fs, &c.data)
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
	c.commandLine = resultFlags(fs)
	c.command = "demo"
	set := cliflag.Set(fs)
	c.variantsSet = set["variants"]
	if set["one-run-max"] && !c.oneRun {
		return usagef("demo: --one-run-max applies to --one-run only; add --one-run, or drop it")
	}
	if c.oneRun {
		if c.keys.keyFile != "" || c.keys.signFile != "" {
			return usagef("demo: --one-run keeps no trials and signs no report: --evidence-key and --sign-key do not apply")
		}
		return runOneRunDemo(ctx, c, stdout, stderr)
	}
	return runAudit(ctx, c, stdout, stderr)
}

// registerReportFlags declares --attacks and --formats, which demo and run share.
func (c *demoConfig) registerReportFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.attacks, "attacks", strings.Join(audit.AttackNames, ","), "the empirical attacks to run on the published models, comma-separated: game (the distinguishing game), membership (the attack on the deleted records)")
	fs.StringVar(&c.formats, "formats", "md", formatsUsage)
	dateFlag(fs, &c.dateFlag)
}

// formatsUsage is --formats' help, the same for every command that writes a report.
const formatsUsage = "renderings to add to report.json and report.md, which are always written, comma-separated: html, pdf (md and json are accepted and change nothing)"

// runAudit runs the audit a demoConfig describes, from the demo's flags or a spec file
// (audit run), and writes its report.
func runAudit(ctx context.Context, c demoConfig, stdout, stderr io.Writer) error {
	start := time.Now()
	c.progress = progress.New(stderr, !c.quiet && isTerminal(stderr))
	formats, err := pipeline.Formats(c.formats) // settings are refused before any work
	if err != nil {
		return err
	}
	if c.date, err = auditDate(c.command, c.dateFlag); err != nil {
		return err
	}
	if c.attackList, err = audit.ParseAttacks(c.attacks); err != nil {
		return usagef("--attacks: %v", err)
	}
	if c.key, c.signer, err = c.keys.load(c.command); err != nil {
		return err
	}
	if err := checkOut(c.command, c.out, reportNames(), c.inputs()...); err != nil {
		return err
	}
	deletes, err := parseIDs(c.deletes)
	if err != nil {
		return err
	}
	data, err := c.data.Load(ctx, c.seed)
	if err != nil {
		return err
	}
	if err := trials.CheckTrialCapacity(c.trials, data.Set.Dim(), c.data.Limits()); err != nil {
		return usageError{fmt.Errorf("%s: %s %d on %s: %w", c.command, c.name("trials"), c.trials, c.data.Path, err)}
	}
	subjects, requests, err := pipeline.NewSubjects(ctx, data.Set, pipeline.Setup{Deletes: deletes, Lambda: c.lambda, Epsilon: c.epsilon, Delta: c.delta,
		Seed: c.seed, Confidence: c.confidence, PowerAgainst: c.powerAgainst, Attacks: c.attackList,
		Variants: c.variants, MethodArgs: c.methodArgs, Spec: c.spec, FromSpec: c.fromSpec,
		ShareResamples: shareResamples(c)})
	if err != nil {
		return usageError{err}
	}
	for _, a := range subjects { // before the trials: constants below float64's resolution
		if w := checks.PrecisionWarning(a.Subject); w != "" {
			fmt.Fprintf(stderr, "%s: warning: %s\n", c.command, w)
		}
	}
	plan := pipeline.Plan{Command: c.command, CommandLine: c.commandLine, Version: version, Date: c.date,
		Seed: c.seed, Trials: c.trials, Workers: c.workers, Confidence: c.confidence, Data: data, Requests: requests,
		Subjects: subjects, Controls: c.controls, Key: c.key, Checkpoints: "trials", ResumeOnly: c.replay.fingerprint != "", Progress: c.progress}
	if c.replay.fingerprint != "" {
		if got := plan.Fingerprint(toolName(), c.replayArgs); got != c.replay.fingerprint {
			return usagef("merge: the audit's configuration changed since the shards ran (fingerprint %.12s…, the shards' %.12s…): the spec, its data or the tool's version differ; rerun the shards", got, c.replay.fingerprint)
		}
	}
	if !c.shard.Whole() {
		return runShard(ctx, c, plan, stdout)
	}
	if c.replay.plan != nil {
		return runPlanSpec(ctx, c, plan, time.Since(start), stdout)
	}

	d, err := openOut(c.command, c.out, c.force)
	if err != nil {
		return err
	}
	defer d.Close() // a run that stopped before any trial leaves no folder it created
	plan.Folder = d
	checkpoints := plan.CheckpointFiles()
	// every file this run may replace or remove is claimed before any is touched
	if err := d.Claim(append(reportNames(), checkpoints...)...); err != nil {
		return outErr(c.command, err)
	}
	if err := d.Remove(reportNames()...); err != nil {
		return outErr(c.command, err)
	}
	if c.fresh {
		if err := d.Remove(checkpoints...); err != nil {
			return outErr(c.command, fmt.Errorf("--fresh: %w", err))
		}
	}
	if err := d.MkdirAll("trials"); err != nil {
		return fmt.Errorf("%s: %w", c.command, err)
	}
	if err := d.Appending(checkpoints...); err != nil {
		return outErr(c.command, err)
	}
	// the checkpoints are opened beneath the folder, following no link (outdir.Dir)
	if c.replay.shards != nil {
		if err := c.replay.shards.WriteCheckpoints(d, "trials"); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
	}
	rep, err := pipeline.Run(ctx, plan)
	if err != nil {
		var ce *trials.CheckpointError
		if errors.As(err, &ce) {
			// Run's errors name the command already
			return usageError{fmt.Errorf("%w (--fresh discards this configuration's kept trials and starts over)", err)}
		}
		return err
	}
	if err := pipeline.WriteReport(d, rep, formats, c.signer); err != nil {
		return outErr(c.command, err)
	}
	if err := pipeline.Emit(stdout, rep, c.out, formats, c.json); err != nil {
		return err
	}
	return verdictErr(verdict.Verdict(rep.Summary.Verdict))
}

// isTerminal reports whether w is a terminal (the progress bar's condition).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && progress.IsTerminal(f)
}

// shareResamples says whether a run's subjects and their controls share one set of
// bootstrap resamples (the same bits, drawn once): with controls, and not when plan times
// each check alone.
func shareResamples(c demoConfig) bool { return c.controls && c.replay.plan == nil }
