package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/unlearnaudit/unlearnaudit/audit/evidence"
	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// smallReport writes a minimal valid report.json into dir and returns its path.
func smallReport(t *testing.T, dir string) string {
	t.Helper()
	r := &reports.Report{Schema: reports.Schema, Tool: reports.Tool{Name: "unlearnaudit", Version: version}, Command: "run",
		Data: reports.Data{Rows: 1, Features: 1}, Subjects: []reports.Subject{{Name: "s", Verdict: "PASS", Findings: []reports.Finding{{Check: "c", Verdict: "PASS", Required: true}}}}}
	r.Summarize()
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "report.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// audit report --out wrote a temporary file and renamed it over its target, whatever the
// target was: a device, a FIFO or a symbolic link became a plain file, exit 0. Each is
// refused, exit 2, naming it, and left as it was.
func TestReportOutRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	in := smallReport(t, dir)
	targets := map[string]string{}
	if dev := filepath.Join(dir, "nul"); syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3) == nil {
		targets[dev] = "a character device"
	} else {
		t.Log("mknod refused (not root?): the device case is skipped")
	}
	targets[testenv.FIFO(t, filepath.Join(dir, "ff"))] = "a FIFO"
	so := filepath.Join(dir, "so")
	if err := os.Symlink("/proc/self/fd/1", so); err != nil {
		t.Fatal(err)
	}
	targets[so] = "a symbolic link"
	for path, what := range targets {
		before, _ := os.Lstat(path)
		var (
			stderr string
			code   int
		)
		testenv.WithinDeadline(t, 10*time.Second, "report --out "+what, func() {
			_, stderr, code = runCLI(t, "report", "--in", in, "--format", "md", "--out", path)
		})
		if code != exitUsage || !strings.Contains(stderr, path) || !strings.Contains(stderr, what) {
			t.Errorf("--out %s: exit %d, %q; want exit 2 naming it as %s", what, code, stderr, what)
		}
		if after, err := os.Lstat(path); err != nil || !os.SameFile(before, after) || after.Mode() != before.Mode() {
			t.Errorf("--out %s was replaced (%v)", what, err)
		}
	}
}

// A FIFO where a key file, an envelope or the output folder's bookkeeping is expected hung
// the command (and swallowed SIGTERM): each is refused at once, exit 2, naming it.
func TestFIFOKeysAndBookkeepingAreRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := testenv.FIFO(t, filepath.Join(dir, "key.fifo"))
	out := filepath.Join(dir, "fo")
	manifest := testenv.FIFO(t, filepath.Join(out, ".audit-manifest.json"))
	demo := []string{"demo", "--trials", "8", "--variants", "strongly-convex", "--out", filepath.Join(dir, "o")}
	for _, c := range []struct {
		name  string
		env   map[string]string
		args  []string
		named string
	}{
		{"--evidence-key", nil, append(demo, "--evidence-key", fifo), fifo},
		{evidence.KeyEnv, map[string]string{evidence.KeyEnv: fifo}, demo, fifo},
		{"--sign-key", nil, append(demo, "--sign-key", fifo), fifo},
		{"check-report --key", nil, []string{"check-report", "--key", fifo, filepath.Join(dir, "report.json.dsse")}, fifo},
		{"a manifest in --out", nil, []string{"demo", "--trials", "8", "--variants", "strongly-convex", "--out", out}, manifest},
		{"a manifest in --out, --force", nil, []string{"demo", "--trials", "8", "--variants", "strongly-convex", "--out", out, "--force"}, manifest},
	} {
		if c.env != nil {
			withEnv(t, c.env)
		} else {
			withEnv(t, map[string]string{})
		}
		var (
			stderr string
			code   int
		)
		testenv.WithinDeadline(t, 20*time.Second, c.name+" a FIFO", func() { _, stderr, code = runCLI(t, c.args...) })
		if code != exitUsage || !strings.Contains(stderr, c.named) || !strings.Contains(stderr, "not a regular file") {
			t.Errorf("%s: exit %d, %q; want exit 2 naming %s as not a regular file", c.name, code, stderr, c.named)
		}
	}
}

// The red team's 1e308 scores panicked verify (index out of range in the histogram): they
// are audited (the sides are far apart: FAIL). Parameters of ±1e308, whose projections
// overflow, are refused, exit 2, naming the model's file.
func TestVerifyHugeValues(t *testing.T) {
	dir := t.TempDir()
	claim := filepath.Join(dir, "claim.json")
	os.WriteFile(claim, []byte(`{"method":{"name":"d2d"},"claim":{"epsilon":1,"delta":1e-5}}`), 0o644)
	rows := func(name string, n, d int, v func(i, j int) float64) string {
		var data []float64
		for i := range n {
			for j := range d {
				data = append(data, v(i, j))
			}
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, npyF8(n, d, data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	u := rows("huge_u.npy", 40, 50, func(int, int) float64 { return 1e308 })
	r := rows("ok_r.npy", 40, 50, func(i, j int) float64 { return 1 + 0.01*float64((i*50+j)%17) })
	_, stderr, code := runCLI(t, "verify", "--spec", claim, "--scores", "--unlearned", u, "--retrained", r, "--out", filepath.Join(dir, "v"))
	if code != exitFail {
		t.Errorf("scores of 1e308: exit %d, %s; want 1 (FAIL)", code, stderr)
	}
	mods := filepath.Join(dir, "models")
	os.MkdirAll(mods, 0o755)
	pu := rows("models/u.npy", 40, 3, func(i, j int) float64 { return math.MaxFloat64 * float64(1-2*((i+j)%2)) })
	pr := rows("models/r.npy", 40, 3, func(i, j int) float64 { return float64(i + j) })
	_, stderr, code = runCLI(t, "verify", "--spec", claim, "--unlearned", pu, "--retrained", pr, "--out", filepath.Join(dir, "p"))
	if code != exitUsage || !strings.Contains(stderr, "not a finite number") || !strings.Contains(stderr, "--unlearned "+pu+" (row 0)") {
		t.Errorf("parameters of ±Max: exit %d, %s; want 2 naming the file", code, stderr)
	}
}

// A report.json for report --in, a DSSE envelope or a report for check-report larger than
// its cap (reports.MaxJSONBytes, 64 MiB; the envelope its base64 and 1 MiB more) is refused
// by name, exit 2, before it is read: a 60 MB envelope cost 292 MB, a report 406 MB.
func TestOversizedReportsRefused(t *testing.T) {
	dir := t.TempDir()
	sparse := func(name string, size int64) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return p
	}
	if _, stderr, code := runCLI(t, "keygen", "--out", filepath.Join(dir, "keys")); code != exitPass {
		t.Fatalf("keygen: %d %s", code, stderr)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "keys", "*.pub"))
	if len(matches) != 1 {
		t.Fatalf("keygen wrote %v", matches)
	}
	pub := matches[0]
	rep := sparse("report.json", reports.MaxJSONBytes+1)
	env := sparse("report.json.dsse", reports.MaxEnvelopeBytes+1)
	small := smallReport(t, t.TempDir())
	for _, c := range []struct {
		name  string
		args  []string
		named string
	}{
		{"report --in", []string{"report", "--in", rep, "--format", "md"}, rep},
		{"check-report's envelope", []string{"check-report", "--key", pub, env}, env},
		{"check-report's report", []string{"check-report", "--key", pub, small, rep}, rep},
	} {
		var (
			stderr string
			code   int
		)
		alloc := testenv.Allocated(func() { _, stderr, code = runCLI(t, c.args...) })
		if code != exitUsage || !strings.Contains(stderr, c.named) || !strings.Contains(stderr, "larger than") {
			t.Errorf("%s: exit %d, %q; want exit 2 naming %s as too large", c.name, code, stderr, c.named)
		}
		if alloc > 8<<20 {
			t.Errorf("%s: %d bytes allocated to refuse it", c.name, alloc)
		}
	}
}
