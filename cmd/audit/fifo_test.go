package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
)

// A FIFO named as data, a model, a spec or a shard's manifest hung the command forever
// (and swallowed the first SIGTERM): each is refused at once, exit 2, naming the file.
func TestFIFOInputsAreRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := func(name string) string { return testenv.FIFO(t, filepath.Join(dir, name)) }
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
		var (
			stderr string
			code   int
		)
		testenv.WithinDeadline(t, 10*time.Second, c.name+": the command on a FIFO", func() { _, stderr, code = runCLI(t, args...) })
		if code != exitUsage || !strings.Contains(stderr, named) || !strings.Contains(stderr, "not a regular file") {
			t.Errorf("%s: exit %d, %q; want exit 2 naming %s as not a regular file", c.name, code, stderr, named)
		}
	}
}
