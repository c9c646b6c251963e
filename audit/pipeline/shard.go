package pipeline

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/internal/progress"
)

// ShardSubjects lists the plan's subjects as audit.WithControls orders them, with their
// checkpoint files inside the plan's folder: what a shard's manifest records.
func (p Plan) ShardSubjects() []audit.ShardSubject {
	var out []audit.ShardSubject
	for _, a := range audit.WithControls(p.Subjects, p.Controls) {
		s := a.Subject
		out = append(out, audit.ShardSubject{Name: s.Name(), Fingerprint: audit.Fingerprint(s),
			File: filepath.ToSlash(audit.CheckpointPath(p.Checkpoints, s, p.Seed)), Params: audit.ParamsOf(s)})
	}
	return out
}

// Fingerprint is the plan's audit.RunFingerprint: tool names the tool and its version, args
// are the command's arguments a merge replays. Shards and their merge must agree on it.
func (p Plan) Fingerprint(tool string, args []string) string {
	return audit.RunFingerprint(tool, args, p.Seed, p.Trials, p.ShardSubjects())
}

// RunShard runs part shard of every subject's trials (and its controls') into their
// checkpoints in the plan's folder, for audit.MergeShards to gather. It checks nothing and
// makes no report: Run does, with ResumeOnly, once every part is in. A checkpoint that does
// not fit is an *audit.CheckpointError in the chain.
func RunShard(ctx context.Context, p Plan, shard audit.Shard) error {
	if p.Folder == nil || shard.Whole() {
		return fmt.Errorf("%s: pipeline.RunShard: want a folder and a part of the trials", p.Command)
	}
	if p.Progress == nil {
		p.Progress = progress.New(io.Discard, false)
	}
	for _, a := range audit.WithControls(p.Subjects, p.Controls) {
		s := a.Subject
		eng := audit.Engine{Workers: p.Workers, Folder: p.Folder, Checkpoint: filepath.ToSlash(audit.CheckpointPath(p.Checkpoints, s, p.Seed)),
			Progress: p.Progress.Update, Shard: shard, Key: p.Key}
		_, err := eng.Run(ctx, s, p.Seed, p.Trials)
		p.Progress.Done()
		if err != nil {
			return fmt.Errorf("%s: %w", p.Command, err)
		}
	}
	return nil
}
