package trials

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/unlearnaudit/unlearnaudit/internal/gausstest"
	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
)

// A checkpoint that is a FIFO hung a resuming run forever (io.ReadAll on a pipe no one
// writes): it is refused at once as not a regular file, naming it.
func TestEngineRefusesCheckpointFIFO(t *testing.T) {
	path := testenv.FIFO(t, filepath.Join(t.TempDir(), "trials.jsonl"))
	var err error
	testenv.WithinDeadline(t, 5*time.Second, "resuming from a FIFO", func() {
		_, err = (Engine{Checkpoint: path}).Run(context.Background(), gausstest.NewCounting(-1), 5, 6)
	})
	var ce *CheckpointError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("%v; want the FIFO refused by name", err)
	}
}

// A checkpoint that is a symbolic link to a regular file was followed: the run read the
// target and appended its trials there. It is refused by name, the target untouched.
func TestEngineRefusesCheckpointSymlink(t *testing.T) {
	dir := t.TempDir()
	target, path := filepath.Join(dir, "elsewhere.txt"), filepath.Join(dir, "trials.jsonl")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	_, err := (Engine{Checkpoint: path}).Run(context.Background(), gausstest.NewCounting(-1), 5, 6)
	var ce *CheckpointError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("%v; want the link refused by name", err)
	}
	if b, _ := os.ReadFile(target); len(b) != 0 {
		t.Errorf("the link's target was written: %d bytes", len(b))
	}
}

// Resuming costs in proportion to the checkpoint: 20,000 trials of 6 MB allocate under 16
// times the file (59 MB measured; the decoding dominates). The read is now a line at a
// time, each bounded; the whole-file read it replaced cost 68 MB here, too close for this
// bound to tell them apart: it guards against a regression to super-linear cost, and the
// FIFO test above against the unbounded read.
func TestEngineResumeCostIsLinear(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "trials.jsonl")
	const n = 20_000
	if _, err := (Engine{Checkpoint: path}).Run(ctx, gausstest.NewCounting(-1), 5, n); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	c := gausstest.NewCounting(-1)
	var err error
	got := testenv.Allocated(func() { _, err = (Engine{Checkpoint: path}).Run(ctx, c, 5, n) })
	if err != nil || c.Runs.Load() != 0 {
		t.Fatalf("resume: %v, %d trials rerun", err, c.Runs.Load())
	}
	t.Logf("resuming %d bytes allocated %d", st.Size(), got)
	if limit := uint64(16*st.Size()) + 1<<20; got > limit {
		t.Errorf("resuming %d bytes allocated %d (limit %d)", st.Size(), got, limit)
	}
}
