package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/internal/buildinfo"
	"github.com/unlearnaudit/unlearnaudit/internal/cliflag"
	"github.com/unlearnaudit/unlearnaudit/internal/progress"
	"github.com/unlearnaudit/unlearnaudit/internal/shell"
)

// runShard runs part c.Shard of every subject's trials into OUT/shard-I-of-N
// (pipeline.Job.RunPart) and says what it ran and how to merge the parts.
func runShard(ctx context.Context, c demoConfig, prep *pipeline.Prepared, stdout io.Writer) error {
	m, err := c.RunPart(ctx, prep)
	if err != nil {
		return err
	}
	subjectsText := fmt.Sprintf("each of %d subjects", len(m.Subjects))
	if len(m.Subjects) == 1 {
		subjectsText = m.Subjects[0].Name
	}
	fmt.Fprintf(stdout, "part %s (from %s): %d of %d trials of %s in %s\n", c.Shard, c.ShardFrom, c.Shard.Trials(c.Trials), c.Trials, subjectsText, pipeline.ShownPath(c.PartDir()))
	fmt.Fprintf(stdout, "when every part is done: %s\n", mergeHint(c.Out))
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
	fs.StringVar(&ms.Date, "date", "", "the audit date the report states, YYYY-MM-DD or an RFC 3339 time (default: the parts' own --date when they were given one, else the day of $SOURCE_DATE_EPOCH, Unix seconds, else today, both in UTC); the same inputs, seed and date give the same report bytes")
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
		return fmt.Errorf("merge: no shard folders given (audit merge DIR... --out OUT)")
	}
	if _, err := auditDate("merge", ms.Date); err != nil { // refused before the shards are read
		return err
	}
	key, _, err := keys.load("merge") // the signing key is read again by the replay
	if err != nil {
		return err
	}
	bar := progress.New(stderr, !ms.Quiet && isTerminal(stderr))
	set, err := pipeline.GatherShards(ctx, dirs, ms.Out, key, keys.args(), func(done, total int) { bar.Update("merge: reading the parts' trials", done, total) })
	bar.Done()
	if err != nil {
		return err
	}
	if w := pipeline.ArchWarning(set, buildinfo.Arch()); w != "" {
		fmt.Fprintf(stderr, "merge: warning: %s\n", w)
	}
	m := set.Manifest()
	ms.KeyArgs = keys.args()
	argv, err := pipeline.ReplayArgv(m, ms)
	if err != nil {
		return err
	}
	err = runRunAs(ctx, argv, stdout, stderr, replay{fingerprint: m.Fingerprint, checks: m.Checks, shards: set})
	if exitCode(err) == exitUsage {
		return asMerge{err} // the replayed run's refusals are the merge's: named so
	}
	return err
}

// asMerge is an error of the run a merge replays, told as the merge's: "merge: …", not
// "run: …", which named a command the user did not type. Its chain is the run's.
type asMerge struct{ err error }

func (e asMerge) Error() string {
	msg := e.err.Error()
	if strings.HasPrefix(msg, "merge: ") { // the replay's own checks already say merge
		return msg
	}
	return "merge: " + strings.TrimPrefix(msg, "run: ")
}
func (e asMerge) Unwrap() error { return e.err }
