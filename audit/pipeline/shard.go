package pipeline

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/internal/progress"
)

// ShardSubjects lists the plan's subjects as audit.WithControls orders them, with their
// checkpoint files inside the plan's folder: what a shard's manifest records.
func (p Plan) ShardSubjects() []trials.ShardSubject {
	var out []trials.ShardSubject
	for _, a := range audit.WithControls(p.Subjects, p.Controls) {
		s := a.Subject
		out = append(out, trials.ShardSubject{Name: s.Name(), Fingerprint: trials.Fingerprint(s),
			File: filepath.ToSlash(trials.CheckpointPath(p.Checkpoints, s, p.Seed)), Params: trials.ParamsOf(s)})
	}
	return out
}

// Fingerprint is the plan's trials.RunFingerprint: tool names the tool and its version, args
// are the command's arguments a merge replays. Shards and their merge must agree on it.
func (p Plan) Fingerprint(tool string, args []string, checks string) string {
	return trials.RunFingerprint(tool, args, checks, p.Seed, p.Trials, p.ShardSubjects())
}

// RunShard runs part shard of every subject's trials (and its controls') into their
// checkpoints in the plan's folder, for trials.MergeShards to gather. It checks nothing and
// makes no report: Run does, with ResumeOnly, once every part is in. A checkpoint that does
// not fit is an *trials.CheckpointError in the chain.
func RunShard(ctx context.Context, p Plan, shard trials.Shard) error {
	if p.Folder == nil || shard.Whole() {
		return fmt.Errorf("%s: pipeline.RunShard: want a folder and a part of the trials", p.Command)
	}
	if p.Progress == nil {
		p.Progress = progress.New(io.Discard, false)
	}
	for _, a := range audit.WithControls(p.Subjects, p.Controls) {
		s := a.Subject
		eng := trials.Engine{Workers: p.Workers, Folder: p.Folder, Checkpoint: filepath.ToSlash(trials.CheckpointPath(p.Checkpoints, s, p.Seed)),
			Progress: p.Progress.Update, Shard: shard, Key: p.Key}
		_, err := eng.Run(ctx, s, p.Seed, p.Trials)
		p.Progress.Done()
		if err != nil {
			return fmt.Errorf("%s: %w", p.Command, err)
		}
	}
	return nil
}
