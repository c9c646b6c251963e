package audit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// countingSubject counts executions and can be made to fail from a given trial on.
type countingSubject struct {
	gaussSubject
	runs     *atomic.Int64
	failAt   int // trials ≥ failAt error; < 0 never
	cancel   context.CancelFunc
	cancelAt int
}

func (c countingSubject) Unlearned(ctx context.Context, s reference.Streams) (reference.Release, error) {
	if c.failAt >= 0 && s.Trial >= c.failAt {
		return reference.Release{}, errors.New("boom")
	}
	if c.cancel != nil && s.Trial == c.cancelAt {
		c.cancel()
	}
	c.runs.Add(1)
	return c.gaussSubject.Unlearned(ctx, s)
}

func counting(failAt int) countingSubject {
	return countingSubject{gaussSubject: newGauss(4, 0.1, 1), runs: new(atomic.Int64), failAt: failAt}
}

func TestEngineIndependentOfWorkers(t *testing.T) {
	ctx := context.Background()
	one, err := Engine{Workers: 1}.Run(ctx, counting(-1), 9, 30)
	if err != nil {
		t.Fatal(err)
	}
	four, err := Engine{Workers: 4}.Run(ctx, counting(-1), 9, 30)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(one, four); diff != "" {
		t.Fatalf("results depend on the worker count:\n%s", diff)
	}
	other, _ := Engine{Workers: 4}.Run(ctx, counting(-1), 10, 30)
	if cmp.Equal(one, other) {
		t.Fatal("a different seed gave the same trials")
	}
}

func TestEngineResumesFromCheckpoint(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "trials.jsonl")
	fresh, err := Engine{Workers: 2}.Run(ctx, counting(-1), 3, 20)
	if err != nil {
		t.Fatal(err)
	}
	// An audit dies at trial 12: the run fails, but the finished trials are on disk.
	broken := counting(12)
	if _, err := (Engine{Workers: 1, Checkpoint: path}).Run(ctx, broken, 3, 20); err == nil || !strings.Contains(err.Error(), "trial 12") {
		t.Fatalf("got %v; want the error of trial 12", err)
	}
	if n := broken.runs.Load(); n != 12 {
		t.Fatalf("%d trials ran before the failure, want 12", n)
	}
	// Resume: only the 8 missing trials run, and the results equal a fresh run.
	again := counting(-1)
	got, err := Engine{Workers: 2, Checkpoint: path}.Run(ctx, again, 3, 20)
	if err != nil {
		t.Fatal(err)
	}
	if n := again.runs.Load(); n != 8 {
		t.Fatalf("resume ran %d trials, want 8", n)
	}
	if diff := cmp.Diff(fresh, got); diff != "" {
		t.Fatalf("resumed results differ from a fresh run:\n%s", diff)
	}
	// A third run reads everything back and runs nothing.
	idle := counting(-1)
	if _, err := (Engine{Checkpoint: path}).Run(ctx, idle, 3, 20); err != nil || idle.runs.Load() != 0 {
		t.Fatalf("complete checkpoint: err %v, %d trials ran", err, idle.runs.Load())
	}
}

func TestEngineDropsTornLastLine(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "trials.jsonl")
	if _, err := (Engine{Checkpoint: path}).Run(ctx, counting(-1), 5, 6); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(b), "\n")
	// keep the header and trials 0..3 whole, then half of trial 4's line: an interrupted write
	torn := strings.Join(lines[:5], "") + lines[5][:len(lines[5])/2]
	os.WriteFile(path, []byte(torn), 0o644)
	c := counting(-1)
	got, err := Engine{Checkpoint: path}.Run(ctx, c, 5, 6)
	if err != nil {
		t.Fatal(err)
	}
	if c.runs.Load() != 2 {
		t.Fatalf("after a torn line %d trials reran, want 2", c.runs.Load())
	}
	want, _ := Engine{}.Run(ctx, counting(-1), 5, 6)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatal(diff)
	}
	b, _ = os.ReadFile(path)
	if n := strings.Count(string(b), "\n"); n != 7 {
		t.Fatalf("checkpoint has %d lines, want header + 6", n)
	}
}

func TestEngineRefusesForeignCheckpoint(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "trials.jsonl")
	if _, err := (Engine{Checkpoint: path}).Run(ctx, counting(-1), 5, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := (Engine{Checkpoint: path}).Run(ctx, counting(-1), 6, 3); err == nil || !strings.Contains(err.Error(), "another audit") {
		t.Fatalf("another seed: %v", err)
	}
	os.WriteFile(path, []byte("{\"schema\":\"x\"}\n"), 0o644)
	if _, err := (Engine{Checkpoint: path}).Run(ctx, counting(-1), 5, 3); err == nil || !strings.Contains(err.Error(), path+":1") {
		t.Fatalf("bad header: %v", err)
	}
}

func TestEngineStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c := counting(-1)
	c.cancel, c.cancelAt = cancel, 3
	_, err := Engine{Workers: 1}.Run(ctx, c, 1, 1000)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v; want context.Canceled", err)
	}
	if n := c.runs.Load(); n > 10 {
		t.Fatalf("%d trials ran after cancellation", n)
	}
}
