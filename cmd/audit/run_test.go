package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A spec runs the audit the equivalent demo flags run: the reports agree byte for byte
// but for the command (and command line) that made them and the spec, which the run's
// report names first among its inputs.
func TestRunSpecMatchesDemoFlags(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "audit.json")
	if err := os.WriteFile(spec, []byte(`{"schema": "unlearnaudit/spec/v1",
	  "method": {"name": "d2d", "variants": ["strongly-convex"], "params": {"iterations": 12}},
	  "claim": {"epsilon": 1, "delta": 0.01}, "deletes": [5, 9], "trials": 8, "seed": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	runOut, demoOut := filepath.Join(dir, "run"), filepath.Join(dir, "demo")
	if _, stderr, code := runCLI(t, "run", "--spec", spec, "--out", runOut, "--controls=false"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "demo", "--out", demoOut, "--variants", "strongly-convex", "--iterations", "12",
		"--epsilon", "1", "--delta", "0.01", "--delete", "5,9", "--trials", "8", "--seed", "3"); code != 0 {
		t.Fatalf("demo: exit %d: %s", code, stderr)
	}
	ra, _ := readReport(t, runOut)
	rb, b := readReport(t, demoOut)
	if want := []string{"audit", "run", "--controls=false", "--spec=" + spec}; !slices.Equal(ra.CommandLine, want) {
		t.Errorf("run's command line %q, want %q", ra.CommandLine, want)
	}
	if want := []string{"audit", "demo", "--delete=5,9", "--delta=0.01", "--epsilon=1", "--iterations=12", "--seed=3", "--trials=8", "--variants=strongly-convex"}; !slices.Equal(rb.CommandLine, want) {
		t.Errorf("demo's command line %q, want %q", rb.CommandLine, want)
	}
	// the run names its spec among its inputs, with the file's SHA-256
	specBytes, _ := os.ReadFile(spec)
	if sum := sha256.Sum256(specBytes); len(ra.Inputs) == 0 || ra.Inputs[0].Role != "spec" || ra.Inputs[0].Path != spec || ra.Inputs[0].SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("run's inputs %+v; want the spec %s first, with its SHA-256", ra.Inputs, spec)
	} else {
		ra.Inputs = ra.Inputs[1:]
		if len(ra.Inputs) == 0 {
			ra.Inputs = rb.Inputs // none left: as the demo wrote none (null or [])
		}
	}
	ra.Command, ra.CommandLine = rb.Command, rb.CommandLine
	if a, err := ra.JSON(); err != nil || !bytes.Equal(a, b) {
		t.Errorf("run --spec and the demo's flags wrote different reports (%v)", err)
	}
}

// A bad spec exits 2 naming the file and the field, and writes nothing.
func TestRunRefusesBadSpec(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ spec, want string }{
		{`{"method": {"name": "sglu", "params": {"sglu-sigma": -1}}}`, "method.params.sglu-sigma: -1: want a number in (0, inf)"},
		{`{"method": {"name": "d2d"}, "trails": 8}`, "trails: unknown field"},
		{`{"method": {"name": "d2d"}, "data": {"file": "missing.csv", "format": "csv"}}`, "missing.csv"},
		// a λ near 0 makes σ and Δ overflow: named before any trial, not as a trial's +Inf
		{`{"method": {"name": "d2d", "variants": ["strongly-convex"]}, "model": {"loss": "logistic", "lambda": 1e-300}}`, "beyond what float64 computes with"},
	} {
		spec := filepath.Join(dir, "s.json")
		os.WriteFile(spec, []byte(c.spec), 0o644)
		out := filepath.Join(dir, "out")
		_, stderr, code := runCLI(t, "run", "--spec", spec, "--out", out)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, %q; want 2 and %q", c.spec, code, stderr, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: %s was created", c.spec, out)
		}
	}
	if _, stderr, code := runCLI(t, "run"); code != exitUsage || !strings.Contains(stderr, "--spec is required") {
		t.Errorf("no spec: exit %d, %q", code, stderr)
	}
}

// audit report re-renders a finished audit from its JSON alone: the Markdown and the
// JSON are the files the run wrote, byte for byte; a file that is not a report is refused.
func TestReportRerenders(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r")
	if _, stderr, code := runCLI(t, "demo", "--out", out, "--variants", "strongly-convex", "--trials", "8", "--delta", "0.01"); code != 0 {
		t.Fatalf("demo: exit %d: %s", code, stderr)
	}
	for _, c := range []struct{ format, file string }{{"md", "report.md"}, {"json", "report.json"}} {
		want, err := os.ReadFile(filepath.Join(out, c.file))
		if err != nil {
			t.Fatal(err)
		}
		got, stderr, code := runCLI(t, "report", "--in", filepath.Join(out, "report.json"), "--format", c.format)
		if code != 0 || got != string(want) {
			t.Errorf("%s: exit %d (%s); output equals %s: %v", c.format, code, stderr, c.file, got == string(want))
		}
	}
	page, stderr, code := runCLI(t, "report", "--in", filepath.Join(out, "report.json"), "--format", "html")
	if code != 0 || !strings.Contains(page, `<table id="verdicts">`) || !strings.Contains(page, "d2d/strongly-convex") {
		t.Errorf("html: exit %d (%s); the page lacks the verdict table or the subject", code, stderr)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"schema": "other"}`), 0o644)
	if _, stderr, code := runCLI(t, "report", "--in", bad); code != exitUsage || !strings.Contains(stderr, "bad.json") {
		t.Errorf("not a report: exit %d, %q", code, stderr)
	}
}

// --json prints exactly the report.json the run writes, for scripts.
func TestJSONOutputIsTheReport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	stdout, stderr, code := runCLI(t, "demo", "--out", out, "--variants", "strongly-convex", "--trials", "8", "--delta", "0.01", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil || stdout != string(want) {
		t.Errorf("stdout is not report.json (%v):\n%s", err, stdout)
	}
}

// audit help CMD prints the command's own help, examples included, on stdout.
func TestHelpCommand(t *testing.T) {
	for _, cmd := range []string{"demo", "run", "verify", "report"} {
		stdout, stderr, code := runCLI(t, "help", cmd)
		if code != 0 || !strings.Contains(stdout, "usage: audit "+cmd) || !strings.Contains(stdout, "xample") {
			t.Errorf("help %s: exit %d, stdout %q, stderr %q", cmd, code, stdout, stderr)
		}
	}
}
