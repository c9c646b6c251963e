package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A symbolic link planted as OUT/trials, pointing at a folder outside --out, was followed:
// the run wrote its checkpoints there (O_NOFOLLOW guarded only a path's last element).
// demo, run (whole or a shard) and merge now refuse it, exit 2, naming the link, with
// --force too, and write nothing through it.
func TestPlantedTrialsLinkIsRefused(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "spec.json", `{"schema": "unlearnaudit/spec/v1",
	  "method": {"name": "d2d", "variants": ["strongly-convex"], "params": {"iterations": 12}},
	  "claim": {"epsilon": 1, "delta": 1e-3}, "deletes": [5, 9], "trials": 16, "seed": 4}`)
	shards := filepath.Join(dir, "shards")
	for _, p := range []string{"0/2", "1/2"} {
		if out, stderr, code := runCLI(t, "run", "--spec", spec, "--shard", p, "--out", shards, "--controls=false", "--quiet"); code != 0 {
			t.Fatalf("part %s: exit %d: %s%s", p, code, out, stderr)
		}
	}
	for _, c := range []struct {
		name string
		args func(out string) []string
		link func(out string) string // where the planted link goes
	}{
		{"demo", func(out string) []string {
			return []string{"demo", "--out", out, "--trials", "8", "--variants", "strongly-convex", "--quiet"}
		}, func(out string) string { return filepath.Join(out, "trials") }},
		{"run", func(out string) []string {
			return []string{"run", "--spec", spec, "--out", out, "--controls=false", "--quiet"}
		}, func(out string) string { return filepath.Join(out, "trials") }},
		{"run --shard", func(out string) []string {
			return []string{"run", "--spec", spec, "--shard", "0/2", "--out", out, "--controls=false", "--quiet"}
		}, func(out string) string { return filepath.Join(out, "shard-0-of-2", "trials") }},
		{"merge", func(out string) []string {
			return []string{"merge", shards, "--out", out, "--quiet"}
		}, func(out string) string { return filepath.Join(out, "trials") }},
	} {
		for _, force := range []bool{false, true} {
			out := filepath.Join(t.TempDir(), "out")
			elsewhere := t.TempDir()
			link := c.link(out)
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(elsewhere, link); err != nil {
				t.Fatal(err)
			}
			args := c.args(out)
			if force {
				args = append(args, "--force")
			}
			_, stderr, code := runCLI(t, args...)
			if code != exitUsage || !strings.Contains(stderr, link) || !strings.Contains(stderr, "symbolic link") {
				t.Errorf("%s (force %v) with %s planted: exit %d, %q; want 2 naming the link", c.name, force, link, code, stderr)
			}
			if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
				t.Errorf("%s (force %v) wrote %d files through the link into %s", c.name, force, len(entries), elsewhere)
			}
		}
	}
}
