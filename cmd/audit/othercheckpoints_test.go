package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A rerun whose configuration changed (here the claimed ε, which the checkpoint's
// fingerprint holds, as it holds SGLU's lockstep and precision) names a new checkpoint
// and starts its trials over; it warns, naming the old file, that it does not resume it.
// A rerun of that same configuration resumes its own file and says nothing of the old
// one, and neither does the first run. Planted and caught: the warning given even when
// the subject's own checkpoint is resumed (the third run then warns).
func TestRerunOfAnotherConfigurationWarns(t *testing.T) {
	out := filepath.Join(t.TempDir(), "d")
	demo := func(eps string) string {
		t.Helper()
		_, stderr, code := runCLI(t, "demo", "--trials", "8", "--variants", "strongly-convex", "--controls=false", "--epsilon", eps, "--out", out)
		if code == exitUsage {
			t.Fatalf("demo --epsilon %s: exit %d: %s", eps, code, stderr)
		}
		return stderr
	}
	const warned = "under another configuration"
	if stderr := demo("1"); strings.Contains(stderr, warned) {
		t.Fatalf("the first run warned of other checkpoints: %s", stderr)
	}
	first, _ := filepath.Glob(filepath.Join(out, "trials", "*.jsonl"))
	if len(first) != 1 {
		t.Fatalf("checkpoints after the first run: %v", first)
	}
	stderr := demo("2")
	if !strings.Contains(stderr, "demo: warning: "+first[0]+" keeps trials of ") || !strings.Contains(stderr, warned) {
		t.Errorf("the rerun under another ε: no warning naming %s:\n%s", first[0], stderr)
	}
	if stderr := demo("2"); strings.Contains(stderr, warned) {
		t.Errorf("the rerun of the same configuration, which resumes, warned:\n%s", stderr)
	}
}
