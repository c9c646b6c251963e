package trials

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/gausstest"
)

// writeShards runs the 3 parts of n trials of gausstest.NewCounting(-1) into dir's shard folders.
func writeShards(t *testing.T, dir string, n int) {
	t.Helper()
	for p := range 3 {
		sub, sh := gausstest.NewCounting(-1), Shard{p, 3}
		d := filepath.Join(dir, sh.Name())
		os.MkdirAll(filepath.Join(d, "trials"), 0o755)
		file := "trials/" + filepath.Base(CheckpointPath("", sub, 7))
		if _, err := (Engine{Workers: 1, Shard: sh, Checkpoint: filepath.Join(d, file)}).Run(context.Background(), sub, 7, n); err != nil {
			t.Fatal(err)
		}
		subj := []ShardSubject{{Name: sub.Name(), Fingerprint: Fingerprint(sub), File: file, Params: ParamsOf(sub)}}
		m := ShardManifest{Tool: "test", Shard: sh.String(), Args: []string{"--x=1"}, Seed: 7, Trials: n, Subjects: subj, Complete: true}
		m.Fingerprint = RunFingerprint(m.Tool, m.Args, "", 7, n, subj)
		if err := WriteShardManifest(d, m, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// A merge cancelled while it reads the parts' trials (a SIGTERM to audit merge) reads no
// line after the one during which it was cancelled, and returns the context's error and no
// set: nothing half merged is left to write. Before, the merge read every line of every
// part first (18 MB took 1.6–4.8 s to answer a SIGTERM). Counted by mergeLineRead, so
// no clock is asserted.
func TestMergeStopsWhenCancelled(t *testing.T) {
	dir := t.TempDir()
	writeShards(t, dir, 300) // 100 trial lines and a header per part
	for _, cancelAt := range []int{0, 1, 10, 150} {
		ctx, cancel := context.WithCancel(context.Background())
		if cancelAt == 0 {
			cancel()
		}
		lines := 0
		mergeLineRead = func() {
			if lines++; lines == cancelAt {
				cancel()
			}
		}
		set, err := MergeShards(ctx, []string{dir}, nil)
		mergeLineRead = nil
		cancel()
		if !errors.Is(err, context.Canceled) || set != nil {
			t.Errorf("cancelled at line %d: %v (set %v); want context.Canceled and no set", cancelAt, err, set != nil)
		}
		if lines != cancelAt {
			t.Errorf("cancelled at line %d: %d lines read; want none after it", cancelAt, lines)
		}
	}
	// the negative control: not cancelled, the same merge reads every line and succeeds
	lines := 0
	mergeLineRead = func() { lines++ }
	defer func() { mergeLineRead = nil }()
	if _, err := MergeShards(context.Background(), []string{dir}, nil); err != nil {
		t.Fatal(err)
	}
	if want := 3 * (1 + 100 + 1); lines != want { // header, trials, the end (read as an empty line)
		t.Errorf("an uncancelled merge read %d lines; want %d", lines, want)
	}
}
