package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/evidence"
	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/internal/cliflag"
	"github.com/unlearnaudit/unlearnaudit/internal/outdir"
	"github.com/unlearnaudit/unlearnaudit/internal/progress"
	"github.com/unlearnaudit/unlearnaudit/internal/shell"
)

// toolName is the tool and version a shard's manifest records.
func toolName() string { return "unlearnaudit " + version }

// runShard runs part c.shard of every subject's trials into OUT/shard-I-of-N: a manifest
// (shard.json, marked complete only at the end) and a checkpoint file per subject. It
// checks nothing and writes no report: audit merge does, once every part is in.
func runShard(ctx context.Context, c demoConfig, plan pipeline.Plan, stdout io.Writer) error {
	dir := filepath.Join(c.out, c.shard.Name())
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	m := trials.ShardManifest{Tool: toolName(), Shard: c.shard.String(), From: c.shardFrom, Dir: wd, Args: c.replayArgs,
		Seed: c.seed, Trials: c.trials, Subjects: plan.ShardSubjects()}
	m.Fingerprint = plan.Fingerprint(toolName(), c.replayArgs)
	// one writer per part: a requeued task beside its old copy is refused, naming it
	d, err := openOut("run", dir, c.force)
	if err != nil {
		return err
	}
	defer d.Close()
	if old, err := trials.ReadShardManifest(d.Join(trials.ShardManifestFile), c.key); err == nil && old.Fingerprint != m.Fingerprint && !c.fresh {
		return usagef("run: %s holds part %s of another audit (fingerprint %.12s…, this one's %.12s…); give another --out, or --fresh to replace it", dir, old.Shard, old.Fingerprint, m.Fingerprint)
	}
	checkpoints := make([]string, len(m.Subjects))
	for i, s := range m.Subjects {
		checkpoints[i] = s.File
	}
	if err := d.Claim(append([]string{trials.ShardManifestFile}, checkpoints...)...); err != nil {
		return outErr("run", err)
	}
	if c.fresh {
		if err := d.Remove(checkpoints...); err != nil {
			return outErr("run", fmt.Errorf("--fresh: %w", err))
		}
	}
	if err := d.MkdirAll("trials"); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if err := d.Appending(checkpoints...); err != nil {
		return outErr("run", err)
	}
	if err := writeShardManifest(d, m, c.key); err != nil {
		return err
	}
	plan.Folder = d
	if err := pipeline.RunShard(ctx, plan, c.shard); err != nil {
		var ce *trials.CheckpointError
		if errors.As(err, &ce) {
			return usageError{fmt.Errorf("%w (--fresh discards this part's kept trials and starts over)", err)}
		}
		return err
	}
	m.Complete = true
	if err := writeShardManifest(d, m, c.key); err != nil {
		return err
	}
	subjectsText := fmt.Sprintf("each of %d subjects", len(m.Subjects))
	if len(m.Subjects) == 1 {
		subjectsText = m.Subjects[0].Name
	}
	fmt.Fprintf(stdout, "part %s (from %s): %d of %d trials of %s in %s\n", c.shard, c.shardFrom, c.shard.Trials(c.trials), c.trials, subjectsText, pipeline.ShownPath(dir))
	fmt.Fprintf(stdout, "when every part is done: %s\n", mergeHint(c.out))
	return nil
}

// writeShardManifest writes a part's shard.json into its opened folder.
func writeShardManifest(d *outdir.Dir, m trials.ShardManifest, key *evidence.Key) error {
	b, err := trials.EncodeShardManifest(m, key)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if err := d.WriteFiles(map[string][]byte{trials.ShardManifestFile: b}); err != nil {
		return outErr("run", err)
	}
	return nil
}

// mergeHint is the merge command a finished part prints, its folder quoted for a shell
// (REPORT-DIR is for the user to fill in).
func mergeHint(out string) string {
	return shell.Join([]string{invokedAs, "merge", shell.Arg(out)}) + " --out REPORT-DIR"
}

// runMerge gathers the parts of a sharded audit run and checks and reports them exactly as
// the one-machine run of the same command would: the same report, byte for byte.
func runMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var ms pipeline.MergeSettings
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&ms.Out, "out", "audit-report", "directory for the report and the merged trial files")
	audit.Var(fs, &ms.Workers, audit.WorkersParam)
	fs.BoolVar(&ms.Quiet, "quiet", false, "no progress bar on stderr")
	fs.BoolVar(&ms.JSON, "json", false, "print the report's JSON on stdout instead of the summary table")
	forceFlag(fs, &ms.Force)
	var keys evidenceFlags
	keys.register(fs)
	dateFlag(fs, &ms.Date)
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: audit merge DIR... [--out OUT]

Merges the parts of an audit run with --shard (each DIR is a part's folder, or the --out
folder holding shard-I-of-N folders), then checks and reports exactly as the run without
--shard would: OUT/report.json is byte-identical to the one-machine run's. Shards of
different audits, parts given twice and missing trials are refused, naming the parts to
rerun and the command that reruns them (a rerun resumes where the part stopped).

Example (a Slurm array of 4 tasks, then the merge):
  sbatch --array=0-3 --wrap 'audit run --spec audit.json --out shards'
  audit merge shards --out report

Flags:`)
		cliflag.Print(fs.Output(), fs)
	}
	dirs, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		return usagef("merge: no shard folders given (audit merge DIR... --out OUT)")
	}
	if _, err := auditDate("merge", ms.Date); err != nil { // refused before the shards are read
		return err
	}
	key, _, err := keys.load("merge") // the signing key is read again by the replay
	if err != nil {
		return err
	}
	bar := progress.New(stderr, !ms.Quiet && isTerminal(stderr))
	set, err := pipeline.GatherShards(ctx, dirs, ms.Out, key, func(done, total int) { bar.Update("merge: reading the parts' trials", done, total) })
	bar.Done()
	if err != nil {
		return err
	}
	m := set.Manifest()
	ms.KeyArgs = keys.args()
	argv, err := pipeline.ReplayArgv(m, ms)
	if err != nil {
		return err
	}
	return runRunAs(ctx, argv, stdout, stderr, replay{fingerprint: m.Fingerprint, shards: set})
}
