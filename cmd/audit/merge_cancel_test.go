package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A merge whose context is done while it reads the parts (a SIGTERM) stops there, exit
// 130, and leaves nothing: no output folder, no merged trials, no report. Before, it
// read every part regardless, then wrote the merged trials into --out before the
// cancelled run noticed.
func TestMergeCancelledWritesNothing(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "audit.json")
	os.WriteFile(spec, []byte(`{"schema": "unlearnaudit/spec/v1",
	  "method": {"name": "d2d", "variants": ["strongly-convex"], "params": {"iterations": 12}},
	  "claim": {"epsilon": 1, "delta": 1e-6}, "deletes": [5, 9], "trials": 40, "seed": 4}`), 0o644)
	shards := filepath.Join(dir, "shards")
	for _, p := range []string{"0/2", "1/2"} {
		if out, stderr, code := runCLI(t, "run", "--spec", spec, "--shard", p, "--out", shards, "--controls=false", "--quiet"); code != 0 {
			t.Fatalf("part %s: exit %d: %s%s", p, code, out, stderr)
		}
	}
	out := filepath.Join(dir, "merged")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	err := run(ctx, []string{"merge", shards, "--out", out, "--quiet"}, strings.NewReader(""), &stdout, &stderr)
	if code := exitCode(err); code != exitInterrupted {
		t.Errorf("cancelled merge: exit %d (%v), want %d", code, err, exitInterrupted)
	}
	if _, err := os.Lstat(out); !os.IsNotExist(err) {
		entries, _ := filepath.Glob(filepath.Join(out, "*", "*"))
		t.Errorf("a cancelled merge left %s (%v): %v", out, err, entries)
	}
	if stdout.Len() > 0 {
		t.Errorf("a cancelled merge printed %q", stdout.String())
	}
}
