package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
)

// What a run does to the report of an earlier run in its folder, as the README says: a
// command refused before it starts (a flag out of range, a record that is not in the
// data: exit 2) touches nothing, and the earlier report stays, byte for byte; a run that
// starts (its flags and data checked, its folder opened) removes the earlier report first,
// so one that then fails (a damaged checkpoint line, exit 2) leaves none beside it.
func TestEarlierReportKeptOrRemoved(t *testing.T) {
	out := filepath.Join(t.TempDir(), "d")
	demo := []string{"demo", "--trials", "8", "--variants", "strongly-convex", "--controls=false", "--out", out}
	if _, stderr, code := runCLI(t, demo...); code == exitUsage {
		t.Fatalf("the first demo: exit %d: %s", code, stderr)
	}
	before, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, refused := range [][]string{
		{"--trials", "7"},
		{"--delete", "9999"},
	} {
		_, stderr, code := runCLI(t, append(append([]string{}, demo...), refused...)...)
		if code != exitUsage {
			t.Fatalf("%v: exit %d, want 2: %s", refused, code, stderr)
		}
		if after, err := os.ReadFile(filepath.Join(out, "report.json")); err != nil || !bytes.Equal(after, before) {
			t.Errorf("%v, refused before it started, changed the earlier report (%v)", refused, err)
		}
	}
	// damage the checkpoint: the run starts, opens its folder, then refuses the line
	ckpts, _ := filepath.Glob(filepath.Join(out, "trials", "*.jsonl"))
	if len(ckpts) != 1 {
		t.Fatalf("checkpoints %v", ckpts)
	}
	b, _ := os.ReadFile(ckpts[0])
	lines := strings.SplitAfter(string(b), "\n")
	if len(lines) < 3 {
		t.Fatalf("checkpoint of %d lines", len(lines))
	}
	edited := strings.Replace(lines[1], `"published":[`, `"published":[1`, 1) // a value edited
	if edited == lines[1] {
		t.Fatalf("line 2 is not a trial: %.80s", lines[1])
	}
	lines[1] = edited
	if err := os.WriteFile(ckpts[0], []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, demo...)
	if code != exitUsage || !strings.Contains(stderr, ckpts[0]) {
		t.Fatalf("the damaged checkpoint: exit %d, want 2 naming it: %s", code, stderr)
	}
	for _, f := range pipeline.ReportNames() {
		if _, err := os.Stat(filepath.Join(out, f)); !os.IsNotExist(err) {
			t.Errorf("the run that started and failed left the earlier %s (%v)", f, err)
		}
	}
}
