package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
)

// The smaller refusals of issue 29: each exits 2, names the spec field or flag the value
// came from, quotes no more than a short piece of it, and writes nothing.
func TestSmallerRefusals(t *testing.T) {
	dir := t.TempDir()
	spec := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(`{"schema": "unlearnaudit/spec/v1", `+body+`}`), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const method = `"method": {"name": "d2d", "variants": ["strongly-convex"]}, "claim": {"epsilon": 1, "delta": 1e-6}, "trials": 8`
	long := strings.Repeat("y", 10000)
	runHostile(t, []hostileCase{
		{"a spec's deletion not in the data names deletes[0]", []string{"run", "--spec", spec("neg.json", method+`, "deletes": [-1]`), "--out", "{out}"},
			[]string{"neg.json: deletes[0]: record ID -1 is not in the dataset"}},
		{"a spec's empty deletes", []string{"run", "--spec", spec("empty.json", method+`, "deletes": []`), "--out", "{out}"},
			[]string{"empty.json: deletes: an empty list", "leave deletes out"}},
		{"a string for a number", []string{"run", "--spec", spec("str.json", `"method": {"name": "d2d"}, "trials": "8"`), "--out", "{out}"},
			[]string{`str.json: trials: "8": want a JSON integer, not a string`}},
		{"a string for a method's number", []string{"run", "--spec", spec("strp.json", `"method": {"name": "d2d", "params": {"iterations": "10"}}`), "--out", "{out}"},
			[]string{`strp.json: method.params.iterations: "10": want a JSON integer, not a string`}},
		{"a variant twice in a spec", []string{"run", "--spec", spec("dup.json", `"method": {"name": "d2d", "variants": ["perfect", "perfect"]}`), "--out", "{out}"},
			[]string{`dup.json: method.variants[1]: "perfect" named twice`}},
		{"a variant twice in --variants", []string{"demo", "--variants", "perfect,hf,perfect", "--out", "{out}"},
			[]string{`--variants: "perfect" named twice`}},
		{"a δ too small for the noise, from the flag", []string{"demo", "--delta", "4.9e-324", "--variants", "perfect", "--trials", "8", "--out", "{out}"},
			[]string{"--delta: 5e-324 is too small to compute with", "want δ ≥ 1e-300"}},
		{"a δ too small for the noise, from the spec", []string{"run", "--spec", spec("tiny.json", `"method": {"name": "d2d", "variants": ["perfect"]}, "claim": {"epsilon": 1, "delta": 4.9e-324}, "trials": 8`), "--out", "{out}"},
			[]string{"tiny.json: claim.delta: 5e-324 is too small to compute with"}},
		{"a spec's data without a format names data.format", []string{"run", "--spec", spec("nofmt.json", method+`, "data": {"file": "x.csv"}`), "--out", "{out}"},
			[]string{"nofmt.json: data.format is required with"}},
		{"a 10,000-character value", []string{"demo", "--format", long, "--data", "x.csv", "--out", "{out}"},
			[]string{`--format "` + long[:64] + `"… (10000 bytes)`}},
		{"a 10,000-character flag value", []string{"demo", "--trials", long, "--out", "{out}"},
			[]string{`--trials "` + long[:64] + `"… (10000 bytes)`}},
	})
	// nothing quoted whole: no message carries the long value
	for _, args := range [][]string{{"demo", "--variants", long}, {"demo", "--delete", long}, {"demo", "--attacks", long}, {"demo", "--formats", long}, {"report", "--format", long}, {"bogus" + long}} {
		_, stderr, code := runCLI(t, args...)
		if code != exitUsage || strings.Contains(stderr, long) || !strings.Contains(stderr, "\"… (100") {
			t.Errorf("%.30v: exit %d, a message of %d bytes: %.300s", args, code, len(stderr), stderr)
		}
	}
}

// A CSV cell of 10,000 characters is quoted by its first 64 in the refusal.
func TestLongCellClipped(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 30 {
		if i == 3 {
			b.WriteString("1," + strings.Repeat("x", 10000) + ",1\n")
			continue
		}
		b.WriteString("1,2,1\n")
	}
	data := filepath.Join(dir, "long.csv")
	os.WriteFile(data, []byte(b.String()), 0o644)
	runHostile(t, []hostileCase{{"a long cell", []string{"demo", "--data", data, "--format", "csv", "--out", "{out}"},
		// refused as it passes reference.MaxFieldBytes, never read whole (its length unknown)
		[]string{"long.csv:4: column 2: the field starting \"" + strings.Repeat("x", 64) + "\" runs past 1024 bytes"}}})
}

var repeatedPrefix = regexp.MustCompile(`(?:^|: )([a-z][a-z -]*): ([a-z][a-z -]*): `)

// No message says its command twice ("demo: demo: checkpoint …"): a damaged checkpoint,
// through demo and run.
func TestNoRepeatedPrefix(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	specPath := filepath.Join(dir, "s.json")
	os.WriteFile(specPath, []byte(`{"schema": "unlearnaudit/spec/v1", "method": {"name": "d2d", "variants": ["strongly-convex"]}, "trials": 8}`), 0o644)
	for _, args := range [][]string{
		{"demo", "--out", out, "--trials", "8", "--variants", "strongly-convex", "--quiet"},
		{"run", "--spec", specPath, "--out", out, "--controls=false", "--quiet"},
	} {
		if _, stderr, code := runCLI(t, args...); code == exitUsage {
			t.Fatalf("%v: %s", args, stderr)
		}
		files, _ := filepath.Glob(filepath.Join(out, "trials", "*.jsonl"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			lines := strings.SplitAfter(string(b), "\n")
			os.WriteFile(f, []byte(lines[0]+"{}\n"+strings.Join(lines[1:], "")), 0o644)
		}
		_, stderr, code := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "trial line without its checksum") {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if m := repeatedPrefix.FindStringSubmatch(stderr); m != nil && m[1] == m[2] {
			t.Errorf("%v: a repeated prefix %q: %s", args, m[0], stderr)
		}
		if !strings.HasPrefix(stderr, args[0]+": checkpoint ") {
			t.Errorf("%v: %s; want it to start %q", args, stderr, args[0]+": checkpoint")
		}
		os.RemoveAll(out)
	}
}

// Every command's -h prints its usage once (merge printed it twice).
func TestHelpPrintedOnce(t *testing.T) {
	for _, c := range []string{"demo", "run", "merge", "verify", "report", "canaries", "bounds", "estimate", "epsilon", "plan", "reproduce"} {
		stdout, stderr, code := runCLI(t, c, "-h")
		if code != exitPass {
			t.Errorf("%s -h: exit %d", c, code)
		}
		if n := strings.Count(stdout+stderr, "usage: "); n != 1 {
			t.Errorf("%s -h printed its usage %d times", c, n)
		}
	}
}

// A data file that cannot be opened is named by the setting that named it: --data, or
// the spec's data.file.
func TestMissingDataFileNamesItsSetting(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.csv")
	if _, stderr, code := runCLI(t, "demo", "--data", missing, "--format", "csv", "--out", filepath.Join(dir, "d")); code != exitUsage || !strings.Contains(stderr, "--data: load "+missing) {
		t.Errorf("demo --data of a missing file: exit %d, %q; want 2 naming --data", code, stderr)
	}
	// a missing labels file is named as such, not as --data
	images := filepath.Join(testenv.Datasets(t), "mnist-t10k", "t10k-images-idx3-ubyte.gz")
	labels := filepath.Join(dir, "labels.gz")
	if _, stderr, code := runCLI(t, "demo", "--data", images, "--format", "idx", "--labels", labels, "--out", filepath.Join(dir, "i")); code != exitUsage || !strings.Contains(stderr, "--labels: ") || !strings.Contains(stderr, labels) {
		t.Errorf("demo --labels of a missing file: exit %d, %q; want 2 naming --labels", code, stderr)
	}
	spec := filepath.Join(dir, "spec.json")
	os.WriteFile(spec, []byte(`{"data": {"file": "nope.csv", "format": "csv"}, "method": {"name": "d2d"}, "claim": {"epsilon": 1, "delta": 1e-6}}`), 0o644)
	if _, stderr, code := runCLI(t, "run", "--spec", spec, "--out", filepath.Join(dir, "r")); code != exitUsage || !strings.Contains(stderr, spec+": data.file: load "+missing) {
		t.Errorf("a spec's missing data file: exit %d, %q; want 2 naming data.file", code, stderr)
	}
}
