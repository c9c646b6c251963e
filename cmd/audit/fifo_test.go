package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO named as data, a model, a spec or a shard's manifest hung the command forever
// (and swallowed the first SIGTERM): each is refused at once, exit 2, naming the file.
func TestFIFOInputsAreRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	spec := filepath.Join(dir, "spec.json")
	os.WriteFile(spec, []byte(`{"method": {"name": "d2d"}, "claim": {"epsilon": 1, "delta": 1e-3}}`), 0o644)
	models := filepath.Join("testdata", "verify")
	for _, c := range []struct {
		name string
		args func() (named string, args []string)
	}{
		{"data", func() (string, []string) {
			p := fifo("data.csv")
			return p, []string{"demo", "--data", p, "--format", "csv", "--out", filepath.Join(dir, "o1")}
		}},
		{"model", func() (string, []string) {
			p := fifo("unlearned/m.npy")
			return p, []string{"verify", "--spec", spec, "--unlearned", filepath.Dir(p), "--retrained", filepath.Join(models, "retrained"), "--out", filepath.Join(dir, "o2")}
		}},
		{"spec", func() (string, []string) {
			p := fifo("fifo-spec.json")
			return p, []string{"run", "--spec", p, "--out", filepath.Join(dir, "o3")}
		}},
		{"shard.json", func() (string, []string) {
			p := fifo("shards/shard-0-of-1/shard.json")
			return p, []string{"merge", filepath.Join(dir, "shards"), "--out", filepath.Join(dir, "o4")}
		}},
	} {
		named, args := c.args()
		type result struct {
			stderr string
			code   int
		}
		done := make(chan result, 1)
		go func() { _, stderr, code := runCLI(t, args...); done <- result{stderr, code} }()
		select {
		case r := <-done:
			if r.code != exitUsage || !strings.Contains(r.stderr, named) || !strings.Contains(r.stderr, "not a regular file") {
				t.Errorf("%s: exit %d, %q; want exit 2 naming %s as not a regular file", c.name, r.code, r.stderr, named)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: a FIFO hung the command", c.name)
		}
	}
}
