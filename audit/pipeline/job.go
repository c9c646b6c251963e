package pipeline

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/canary"
	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/evidence"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/internal/buildinfo"
	"github.com/unlearnaudit/unlearnaudit/internal/outdir"
	"github.com/unlearnaudit/unlearnaudit/internal/progress"
	"github.com/unlearnaudit/unlearnaudit/internal/shell"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// A Job is an audit's settings as audit demo's flags, or a spec file with flags over it
// (audit run, ApplySpec), give them: what to audit, how, and into which folder. Prepare
// checks them and sets the audit up; Audit, RunPart and OneRun run it into Out.
type Job struct {
	Command     string   // "demo" or "run": the report's command and the errors' prefix
	CommandLine []string // the command line that decides the report, for its provenance
	Version     string   // the tool's version
	Date        string   // the audit date the report states (reports.AuditDate)
	Out         string   // the output folder

	Seed                     uint64
	Trials, Workers          int
	Confidence, PowerAgainst float64
	Lambda, Epsilon, Delta   float64
	Deletes                  string // record IDs, comma-separated; "": the demo's choice
	Variants                 string // comma-separated (Variants)
	VariantsGiven            bool   // the variants were named (OneRun then runs costly ones too)
	Attacks                  string // audit.AttackNames, comma-separated
	Formats                  string // the renderings beside report.json (Formats)
	Data                     DataSource
	MethodArgs               audit.Args // every method's own settings, by flag name
	Controls                 bool       // also audit each subject's negative controls

	Fresh  bool               // discard the kept trials of this configuration first
	Force  bool               // take over the folder's files the tool did not write
	Key    *evidence.Key      // authenticates the kept trials; nil: unauthenticated
	Signer ed25519.PrivateKey // signs the report; nil: not signed
	// KeyArgs are the flags that name the keys' files (--evidence-key, --sign-key), for
	// the rerun commands a refused checkpoint prints: a rerun without them would keep
	// untagged trials, which a run with the key then refuses, and sign no report.
	KeyArgs []string

	Spec     string          // the spec file the settings came from, an input Out may not replace
	FromSpec map[string]bool // the settings, by flag name, the spec gave: errors name its fields

	Shard      trials.Shard // the part of the trials to run (RunPart); whole: the audit
	ShardFrom  string       // what assigned the part: "--shard" or an environment variable
	ReplayArgs []string     // the arguments a part's manifest keeps for audit merge to replay
	// Replay is audit merge's run of the command again; zero for an ordinary run.
	Replay Replay
	// Timing is audit plan --spec's setup, which times each check alone: the subjects then
	// share no bootstrap resamples with their controls.
	Timing   bool
	Progress *progress.Bar // trials done and checks running; nil: none shown
	// Warn, if set, is told what the user should know before the trials that is not an
	// error: a subject's trials kept in the folder under another configuration, which
	// this run starts afresh beside instead of resuming.
	Warn func(string)
}

// A Replay is audit merge's run of a sharded audit's command again: the parts'
// fingerprint (trials.RunFingerprint), which the configuration must still have, and their
// trials, written into the folder as the checkpoints. The audit then runs no trial.
type Replay struct {
	Fingerprint string
	Checks      string // the parts' check settings (trials.ShardManifest.Checks); "" in older manifests
	Shards      *trials.ShardSet
}

// DemoParams are every registered method's own demo settings, the flags audit demo
// declares and the defaults a spec's method.params is merged into.
func DemoParams() []audit.Param {
	var params []audit.Param
	for _, m := range audit.Methods() {
		params = append(params, audit.DemoParamsOf(m)...)
	}
	return params
}

// ApplySpec takes the settings the spec s (read from file) gives; the flags in given
// (by name) override the spec's trials, attacks, folder and formats. Errors about the
// spec's settings then name its fields (Job.FromSpec), not the flags.
func (j *Job) ApplySpec(s *spec.Spec, file string, given map[string]bool) {
	j.Spec, j.FromSpec = file, map[string]bool{"delete": true, "delta": true, "epsilon": true, "lambda": true, "variants": true, "trials": !given["trials"]}
	if !given["trials"] {
		j.Trials = s.Trials
	}
	if !given["attacks"] && s.Attacks != nil {
		j.Attacks = strings.Join(s.Attacks, ",")
	}
	SpecOutputs(given, s, &j.Out, &j.Formats)
	j.Seed, j.Confidence, j.PowerAgainst = s.Seed, s.Confidence, s.PowerAgainst
	j.Lambda, j.Epsilon, j.Delta = s.Lambda, s.Epsilon, s.Delta
	j.Variants = strings.Join(s.Variants, ",")
	ids := make([]string, len(s.Deletes))
	for i, id := range s.Deletes {
		ids[i] = strconv.FormatInt(id, 10)
	}
	j.Deletes = strings.Join(ids, ",")
	j.Data.SetFromSpec(s, file)
	j.MethodArgs = audit.DefaultArgs(DemoParams())
	j.MethodArgs.Merge(s.Params)
}

// SpecOutputs takes the spec's output folder and formats where the flags in given did not
// name them.
func SpecOutputs(given map[string]bool, s *spec.Spec, out, formats *string) {
	if !given["out"] && s.Outputs.Dir != "" {
		*out = s.Outputs.Dir
	}
	if !given["formats"] {
		*formats = strings.Join(s.Outputs.Formats, ",")
	}
}

// name is how errors name a setting: its flag, or the field of the spec that gave it.
func (j *Job) name(flag string) string {
	if j.FromSpec[flag] {
		return j.Spec + ": " + audit.SpecField(flag, -1)
	}
	return "--" + flag
}

// inputs are the files the audit reads, which its outputs may not replace.
func (j *Job) inputs() []outdir.Input {
	in := []outdir.Input{{Flag: "--spec", Path: j.Spec}, {Flag: "--data", Path: j.Data.Path}, {Flag: "--labels", Path: j.Data.Labels}}
	if j.Data.Path != "" && j.Data.Format == "idx" && j.Data.Labels == "" {
		in = append(in, outdir.Input{Flag: "--labels", Path: reference.DefaultLabelsPath(j.Data.Path)})
	}
	return in
}

// Prepared is a job set up: its plan, the renderings to write, and the warnings to show
// before the trials (constants below float64's resolution).
type Prepared struct {
	Plan     Plan
	Formats  []string
	Warnings []string
}

// reportSettings parses what the report is rendered in and which attacks it runs: the
// settings a trial audit and a one-run audit both refuse before any work.
func (j *Job) reportSettings() ([]string, audit.Attacks, error) {
	formats, err := Formats(j.Formats)
	if err != nil {
		return nil, nil, err
	}
	attacks, err := audit.ParseAttacks(j.Attacks)
	if err != nil {
		return nil, nil, fmt.Errorf("--attacks: %w", err)
	}
	return formats, attacks, nil
}

// Prepare checks the job's settings and sets its audit up, before any trial: the formats,
// attacks and deletions are parsed, the output folder checked against the inputs, the data
// loaded, the trials checked against the memory cap (the error names --trials or the spec's
// field), and the subjects made.
func (j *Job) Prepare(ctx context.Context) (*Prepared, error) {
	formats, attacks, err := j.reportSettings()
	if err != nil {
		return nil, err
	}
	if err := CheckOut(j.Command, j.Out, ReportNames(), j.inputs()...); err != nil {
		return nil, err
	}
	deletes, err := ParseIDs(j.Deletes)
	if err != nil {
		return nil, err
	}
	data, err := j.Data.Load(ctx, j.Seed)
	if err != nil {
		return nil, err
	}
	if err := trials.CheckTrialCapacity(j.Trials, data.Set.Dim(), j.Data.Limits()); err != nil {
		return nil, fmt.Errorf("%s: %s %d on %s: %w", j.Command, j.name("trials"), j.Trials, j.Data.Path, err)
	}
	subjects, requests, err := NewSubjects(ctx, data.Set, j.setup(deletes, attacks))
	if err != nil {
		return nil, err
	}
	if j.Spec != "" {
		// the spec is an input as the data are: the report names it and its SHA-256, so a
		// report can be tied to the spec it was run from (verify's already did)
		in, err := reports.HashFile("spec", j.Spec)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", j.Command, err)
		}
		data.Inputs = append([]reports.Input{in}, data.Inputs...)
	}
	var warnings []string
	for _, a := range subjects {
		if why := checks.Unrepresentable(a.Subject); why != "" {
			return nil, fmt.Errorf("%s: %s", j.Command, why)
		}
		if w := checks.PrecisionWarning(a.Subject); w != "" {
			warnings = append(warnings, w)
		}
	}
	return &Prepared{Formats: formats, Warnings: warnings, Plan: Plan{Command: j.Command, CommandLine: j.CommandLine, Version: j.Version, Date: j.Date,
		Seed: j.Seed, Trials: j.Trials, Workers: j.Workers, Confidence: j.Confidence, Data: data, Requests: requests,
		Subjects: subjects, Controls: j.Controls, Key: j.Key, Checkpoints: "trials", ResumeOnly: j.Replay.Fingerprint != "", Progress: j.Progress}}, nil
}

// setup is what the job's subjects are made from. The subjects share one set of bootstrap
// resamples with their controls when controls are checked, and not when plan times each
// check alone (it would time the draws once, for the first check only).
func (j *Job) setup(deletes []int64, attacks audit.Attacks) Setup {
	return Setup{Deletes: deletes, Lambda: j.Lambda, Epsilon: j.Epsilon, Delta: j.Delta,
		Seed: j.Seed, Confidence: j.Confidence, PowerAgainst: j.PowerAgainst, Attacks: attacks,
		Variants: j.Variants, MethodArgs: j.MethodArgs, Spec: j.Spec, FromSpec: j.FromSpec,
		ShareResamples: j.Controls && !j.Timing}
}

// checkSettings are the checks' settings as the spec and flags resolved them, which a
// part's manifest records (trials.ShardManifest.Checks): the trials do not depend on the
// confidence, the power asked for or the attacks, but the report does, so a spec edited
// between the parts and the merge is refused, not read.
func (j *Job) checkSettings() string {
	return fmt.Sprintf("confidence %v, power against %v×, attacks %q", j.Confidence, j.PowerAgainst, j.Attacks)
}

// toolName is the tool and version a part's manifest records.
func (j *Job) toolName() string { return Tool(j.Version).Name + " " + j.Version }

// Audit runs the prepared audit into the job's folder and writes its report there: the
// folder is opened and readied (claims, the old report removed, with Fresh the kept
// trials, the parts' trials written in for a Replay, whose configuration must be the
// parts'), the plan run, resuming from the kept trials, and the report written (signed
// with Signer). A checkpoint that does not fit says that Fresh starts over.
func (j *Job) Audit(ctx context.Context, p *Prepared) (*reports.Report, error) {
	plan := p.Plan
	if j.Replay.Fingerprint != "" {
		if got := plan.Fingerprint(j.toolName(), j.ReplayArgs, j.Replay.Checks); got != j.Replay.Fingerprint {
			// at the parts' own check settings: the spec's data, claim or method changed
			return nil, fmt.Errorf("merge: the audit's configuration changed since the shards ran (fingerprint %.12s…, the shards' %.12s…): the spec, its data or the tool's version differ; rerun the shards", got, j.Replay.Fingerprint)
		}
		if checks := j.checkSettings(); j.Replay.Checks != "" && checks != j.Replay.Checks {
			return nil, fmt.Errorf("merge: the spec's check settings changed since the shards ran (%s; the shards ran with %s): the report would not be the one the parts were run for; restore the spec, or rerun the shards", checks, j.Replay.Checks)
		}
	}
	d, err := OpenOut(j.Command, j.Out, j.Force)
	if err != nil {
		return nil, err
	}
	defer d.Close() // a run that stopped before any trial leaves no folder it created
	plan.Folder = d
	j.warnOtherCheckpoints(d, plan)
	files := outFiles{command: j.Command, reports: ReportNames(), checkpoints: plan.CheckpointFiles(), trials: plan.Checkpoints, fresh: j.Fresh}
	if err := files.prepare(d); err != nil {
		return nil, err
	}
	// the checkpoints are opened beneath the folder, following no link (outdir.Dir)
	if j.Replay.Shards != nil {
		if err := j.Replay.Shards.WriteCheckpoints(d, plan.Checkpoints); err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
	}
	rep, err := Run(ctx, plan)
	if err != nil {
		var ce *trials.CheckpointError
		if errors.As(err, &ce) && j.Replay.Shards != nil { // the parts' trials: they are what to redo
			return nil, fmt.Errorf("%w; the parts' trials cannot be merged by this version: rerun every part from scratch, then merge again: %s", err, strings.Join(j.Replay.Shards.RerunCommands(append([]string{"--fresh"}, partKeyArgs(j.KeyArgs)...)...), "; "))
		}
		if errors.As(err, &ce) { // Run's errors name the command already
			return nil, fmt.Errorf("%w (--fresh discards this configuration's kept trials and starts over%s)", err, j.rerun())
		}
		return nil, err
	}
	if err := WriteReport(d, rep, p.Formats, j.Signer); err != nil {
		return nil, OutError(j.Command, err)
	}
	return rep, nil
}

// rerun is ": " and the command that runs the job again from scratch (audit run, its
// replayed arguments, --fresh, its keys, its part and folder; every word quoted for a
// shell), or "" where the job keeps no arguments to replay (demo's, a merge's). A part's
// keys are partKeyArgs's, as audit merge prints them.
func (j *Job) rerun() string {
	if j.Command != "run" || j.ReplayArgs == nil {
		return ""
	}
	args := append(append([]string{"audit", "run"}, j.ReplayArgs...), "--fresh")
	if j.Shard.Whole() {
		args = append(args, j.KeyArgs...)
	} else {
		args = append(append(args, partKeyArgs(j.KeyArgs)...), "--shard="+j.Shard.String())
	}
	return ": " + shell.Join(append(args, "--out="+j.Out))
}

// PartDir is the folder of the job's part of the trials: Out/shard-I-of-N.
func (j *Job) PartDir() string { return filepath.Join(j.Out, j.Shard.Name()) }

// RunPart runs the job's part (Shard) of every subject's trials into PartDir: a manifest
// (trials.ShardManifestFile, marked complete only at the end) and a checkpoint file per
// subject. It checks nothing and writes no report: audit merge does, once every part is
// in. A folder holding a part of another audit is refused unless Fresh; a requeued task
// beside its old copy is refused by the folder's lock. It returns the part's manifest.
func (j *Job) RunPart(ctx context.Context, p *Prepared) (*trials.ShardManifest, error) {
	plan, dir := p.Plan, j.PartDir()
	if j.Warn != nil && j.Shard.Index >= j.Trials {
		// part I owns trials I, I + N, …: with no more than I trials it owns none
		j.Warn(fmt.Sprintf("part %s of %d trials holds none of them (part I runs trials I, I + N, …): it runs nothing; %d parts at most have work", j.Shard, j.Trials, j.Trials))
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	m := trials.ShardManifest{Tool: j.toolName(), Shard: j.Shard.String(), From: j.ShardFrom, Dir: wd, Args: j.ReplayArgs,
		Seed: j.Seed, Trials: j.Trials, Subjects: plan.ShardSubjects(), Arch: buildinfo.Arch()}
	m.Checks = j.checkSettings()
	m.Fingerprint = plan.Fingerprint(j.toolName(), j.ReplayArgs, m.Checks)
	d, err := OpenOut("run", dir, j.Force)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if old, err := trials.ReadShardManifest(d.Join(trials.ShardManifestFile), j.Key); err == nil && old.Fingerprint != m.Fingerprint && !j.Fresh {
		return nil, fmt.Errorf("run: %s holds part %s of another audit (fingerprint %.12s…, this one's %.12s…); give another --out, or --fresh to replace it", dir, old.Shard, old.Fingerprint, m.Fingerprint)
	}
	files := outFiles{command: "run", keep: []string{trials.ShardManifestFile}, checkpoints: plan.CheckpointFiles(), trials: plan.Checkpoints, fresh: j.Fresh}
	if err := files.prepare(d); err != nil {
		return nil, err
	}
	if err := writeShardManifest(d, m, j.Key); err != nil {
		return nil, err
	}
	plan.Folder = d
	if err := RunShard(ctx, plan, j.Shard); err != nil {
		var ce *trials.CheckpointError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("%w (--fresh discards this part's kept trials and starts over%s)", err, j.rerun())
		}
		return nil, err
	}
	m.Complete = true
	if err := writeShardManifest(d, m, j.Key); err != nil {
		return nil, err
	}
	return &m, nil
}

// warnOtherCheckpoints tells Warn, for each subject (and control) whose checkpoint the
// folder does not hold, of the folder's checkpoints of that subject and seed under another
// configuration: a rerun after a setting, the data or the tool changed (SGLU's lockstep on
// or off, its precision, an upgrade) names a new file and starts the trials over, and the
// hours the old file holds would otherwise go unused without a word.
func (j *Job) warnOtherCheckpoints(d *outdir.Dir, plan Plan) {
	if j.Warn == nil || plan.Checkpoints == "" {
		return
	}
	written := d.Written(plan.Checkpoints)
	for _, a := range audit.WithControls(plan.Subjects, plan.Controls) {
		own := filepath.ToSlash(trials.CheckpointPath(plan.Checkpoints, a.Subject, plan.Seed))
		if slices.Contains(written, own) {
			continue // resumed
		}
		for _, other := range trials.OtherCheckpoints(plan.Checkpoints, a.Subject, plan.Seed, written) {
			j.Warn(fmt.Sprintf("%s keeps trials of %s at seed %d under another configuration (other settings, data or claim, SGLU's lockstep or precision, or another version of the tool): this run does not resume them; it starts %s afresh. Rerun with that configuration to resume them, or remove the file",
				d.Join(other), a.Subject.Name(), plan.Seed, d.Join(own)))
		}
	}
}

// writeShardManifest writes a part's manifest into its opened folder.
func writeShardManifest(d *outdir.Dir, m trials.ShardManifest, key *evidence.Key) error {
	b, err := trials.EncodeShardManifest(m, key)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if err := d.WriteFiles(map[string][]byte{trials.ShardManifestFile: b}); err != nil {
		return OutError("run", err)
	}
	return nil
}

// OneRunLadder is the one-run demo's canary counts: 32, 64, … up to largest
// (--one-run-max), which must lie in [32, canary.MaxCanaries].
func OneRunLadder(largest int) ([]int, error) {
	if largest < 32 || largest > canary.MaxCanaries {
		return nil, fmt.Errorf("--one-run-max %d: want 32 to %d", largest, canary.MaxCanaries)
	}
	var ladder []int
	for m := 32; m <= largest; m *= 2 {
		ladder = append(ladder, m)
	}
	return ladder, nil
}

// PreparedOneRun is a one-run demo set up (PrepareOneRun): its plan and the renderings
// to write.
type PreparedOneRun struct {
	Plan    OneRunPlan
	Formats []string
}

// PrepareOneRun checks the job's settings for the one-run demo (audit demo --one-run),
// with canary counts climbing to largest, and loads its data: the requests delete the
// canaries, so Deletes is refused.
func (j *Job) PrepareOneRun(ctx context.Context, largest int) (*PreparedOneRun, error) {
	ladder, err := OneRunLadder(largest)
	if err != nil {
		return nil, err
	}
	formats, attacks, err := j.reportSettings()
	if err != nil {
		return nil, err
	}
	if j.Deletes != "" {
		return nil, errors.New("--one-run: the requests delete the included canaries; --delete does not apply")
	}
	if err := CheckOut(j.Command, j.Out, ReportNames(), j.inputs()...); err != nil {
		return nil, err
	}
	data, err := j.Data.Load(ctx, j.Seed)
	if err != nil {
		return nil, err
	}
	return &PreparedOneRun{Formats: formats, Plan: OneRunPlan{Command: j.Command, CommandLine: j.CommandLine, Version: j.Version, Date: j.Date, Data: data,
		Setup: Setup{Lambda: j.Lambda, Epsilon: j.Epsilon, Delta: j.Delta, Seed: j.Seed, Confidence: j.Confidence, PowerAgainst: j.PowerAgainst,
			Attacks: attacks, Variants: j.Variants, MethodArgs: j.MethodArgs},
		VariantsGiven: j.VariantsGiven, Ladder: ladder}}, nil
}

// OneRun runs the prepared one-run demo into the job's folder (the old report removed
// first, so that it does not sit beside this run's failure) and writes its report there.
func (j *Job) OneRun(ctx context.Context, p *PreparedOneRun) (*OneRunOutcome, error) {
	d, err := OpenOut(j.Command, j.Out, j.Force)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if err := (outFiles{command: j.Command, reports: ReportNames()}).prepare(d); err != nil {
		return nil, err
	}
	res, err := OneRun(ctx, p.Plan)
	if err != nil {
		return nil, err
	}
	if err := WriteReport(d, res.Report, p.Formats, nil); err != nil {
		return nil, OutError(j.Command, err)
	}
	return res, nil
}

// PlanQuestion is audit plan --spec's question q of this job: power against q.Against,
// else against the job's PowerAgainst (the spec's power.against), else AnswerPlan's default.
func (j *Job) PlanQuestion(q PlanQuestion) PlanQuestion {
	if q.Against == 0 {
		q.Against = j.PowerAgainst
	}
	return q
}
