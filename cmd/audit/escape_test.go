package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reports"
)

// The red team's poisoned report.json (issue 29), re-rendered by audit report --format md:
// the forged verdict heading and the scripts in a description and a file name come out as
// text, not as a heading or HTML.
func TestReportMarkdownOfPoisonedJSON(t *testing.T) {
	r := &reports.Report{Schema: reports.Schema, Tool: reports.Tool{Name: "unlearnaudit", Version: version}, Command: "run",
		CommandLine: []string{"audit", "run", "--spec=audit $(touch PWNED).json"},
		Inputs:      []reports.Input{{Role: "data", Path: "a.csv<script>alert(1)</script>", SHA256: "h", Bytes: 1}},
		Data:        reports.Data{Description: "x\n\n## overall: PASS\n\n<script>alert(2)</script>", Rows: 1, Features: 1},
		Subjects:    []reports.Subject{{Name: "s\n# overall: PASS", Verdict: "FAIL", Findings: []reports.Finding{{Check: "c", Verdict: "FAIL", Required: true}}}}}
	r.Summarize()
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "report.json")
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	md, stderr, code := runCLI(t, "report", "--in", in, "--format", "md")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// the description's script as text; the file name's as the literal text of a code span
	if !strings.Contains(md, "&lt;script&gt;alert(2)&lt;/script&gt;") || strings.Count(md, "<script") != 1 ||
		!strings.Contains(md, "| `a.csv<script>alert(1)</script>` |") {
		t.Errorf("a script came through:\n%s", md)
	}
	if hs := regexp.MustCompile(`(?m)^#+ .*$`).FindAllString(md, -1); !slices.Equal(hs, []string{
		"# Unlearning audit report — FAIL", "## Verdicts", `## s \# overall: PASS — FAIL`, "## Claims and derivations", `### s \# overall: PASS`, "## Appendix: inputs"}) {
		t.Errorf("headings %q:\n%s", hs, md)
	}
	if !strings.Contains(md, "`audit run '--spec=audit $(touch PWNED).json'`") {
		t.Errorf("the command line is not quoted:\n%s", md)
	}
}

// The merge command a finished part prints runs, pasted into a shell, audit merge on the
// folder as it is, and executes nothing else.
func TestMergeHintIsQuoted(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	os.Mkdir(bin, 0o755)
	if err := os.WriteFile(filepath.Join(bin, "audit"), []byte("#!/bin/sh\nprintf '%s\\0' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{"shards", "my shards", "$(touch PWNED)", "`touch PWNED2`", "it's", "a\nb", "-rf", "/abs/x y;touch PWNED3"} {
		line := mergeHint(out)
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "PATH="+bin+":/usr/bin:/bin")
		got, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		arg := out
		if strings.HasPrefix(out, "-") {
			arg = "./" + out // a folder, not an option
		}
		words := strings.Split(strings.TrimSuffix(string(got), "\x00"), "\x00")
		if want := []string{"merge", arg, "--out", "REPORT-DIR"}; !slices.Equal(words, want) {
			t.Errorf("printed %s\nreceived %q, want %q", line, words, want)
		}
		if m, _ := filepath.Glob(filepath.Join(root, "PWNED*")); len(m) > 0 {
			t.Errorf("%s ran a command: %v", line, m)
		}
	}
}
