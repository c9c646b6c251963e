package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/buildinfo"
)

// Each part's manifest names the architecture it ran on, and audit merge warns, naming the
// parts, when they are not all the merge's: the merged report is then no one machine's,
// byte for byte. Here one part's manifest is made another architecture's (no evidence
// key, so the manifest is plain JSON); the merge of parts as they ran says nothing.
func TestMergeOfPartsOfAnotherArchitectureWarns(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(spec, []byte(`{"schema": "unlearnaudit/spec/v1",
 "method": {"name": "d2d", "variants": ["strongly-convex"], "params": {"iterations": 12}},
 "claim": {"epsilon": 1, "delta": 0.01}, "deletes": [5, 9], "trials": 8, "seed": 4}`), 0o644); err != nil {
		t.Fatal(err)
	}
	shards := filepath.Join(dir, "shards")
	for i := range 2 {
		if _, stderr, code := runCLI(t, "run", "--spec", spec, "--controls=false", "--shard", []string{"0/2", "1/2"}[i], "--out", shards, "--quiet"); code != 0 {
			t.Fatalf("part %d: exit %d: %s", i, code, stderr)
		}
	}
	const warned = "floating point rounds per architecture"
	if _, stderr, code := runCLI(t, "merge", shards, "--out", filepath.Join(dir, "same"), "--quiet"); code != 0 || strings.Contains(stderr, warned) {
		t.Fatalf("merge of parts of this architecture: exit %d, stderr %s", code, stderr)
	}
	manifest := filepath.Join(shards, "shard-1-of-2", "shard.json")
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	here := `"arch": "` + buildinfo.Arch() + `"`
	if !strings.Contains(string(b), here) {
		t.Fatalf("%s does not name this build's architecture (%s):\n%s", manifest, here, b)
	}
	if err := os.WriteFile(manifest, []byte(strings.Replace(string(b), here, `"arch": "elsewhere64"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, "merge", shards, "--out", filepath.Join(dir, "mixed"), "--quiet")
	if code != 0 {
		t.Fatalf("merge of parts of two architectures: exit %d: %s", code, stderr)
	}
	want := "merge: warning: the parts ran on " + buildinfo.Arch() + " (part 0/2) and elsewhere64 (part 1/2) and this merge runs on " + buildinfo.Arch()
	if !strings.Contains(stderr, want) || !strings.Contains(stderr, warned) {
		t.Errorf("merge of parts of two architectures: stderr\n%s\nwant it to say %q", stderr, want)
	}
}
