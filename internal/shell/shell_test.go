package shell_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/unlearnaudit/unlearnaudit/internal/shell"
)

// Hostile are words a shell would split, expand, run or read as an option if printed raw.
var Hostile = []string{
	"plain", "two words", "it's", `"double"`, "$(touch PWNED)", "`touch PWNED2`", "$HOME", "${PATH}", "a;touch PWNED3",
	"a && touch PWNED4", "a|touch PWNED5", "line\nbreak", "tab\there", "*", "?", "[a]", "~", "~root", "-x", "--out=-y",
	"", " ", "'", "''", `\`, `a\'b`, "!", "#comment", "a=b", "{a,b}", "<in", ">out", "&", "é ü 𝒟", "\x01\x7f",
}

// runPrinted runs a printed command line through sh -c in an empty folder with printf as
// its program and returns the arguments it received; it fails the test if the command
// created any file there (something was executed).
func runPrinted(t *testing.T, line string) []string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sh -c %q: %v: %s", line, err, stderr.String())
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("sh -c %q created %v: something was executed", line, left)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

func TestJoinThroughShell(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, w := range Hostile {
		words := []string{"printf", `%s\0`, "before", w, "after"}
		got := runPrinted(t, shell.Join(words))
		if want := []string{"before", w, "after"}; !slices.Equal(got, want) {
			t.Errorf("%q printed as %s arrived as %q", w, shell.Join(words), got)
		}
	}
	all := append([]string{"printf", `%s\0`}, Hostile...)
	if got := runPrinted(t, shell.Join(all)); !slices.Equal(got, Hostile) {
		t.Errorf("all at once arrived as %q", got)
	}
	// a command name holding "=" is a command, not an assignment
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "a=b"), []byte("#!/bin/sh\nprintf '%s\\0' ran \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := runPrinted(t, shell.Join([]string{filepath.Join(bin, "a=b"), "x"})); !slices.Equal(got, []string{"ran", "x"}) {
		t.Errorf("a=b: %q", got)
	}
	if got := shell.Join([]string{"a=b", "x"}); got != "'a=b' x" {
		t.Errorf("Join(a=b x) = %s", got)
	}
}

func TestQuoteLeavesPlainWordsBare(t *testing.T) {
	for _, w := range []string{"audit", "--spec=audit.json", "shard-0-of-2", "/tmp/a_b.c", "--delete=1,2", "user@host:"} {
		if got := shell.Quote(w); got != w {
			t.Errorf("Quote(%q) = %q, want it bare", w, got)
		}
	}
	if got := shell.Arg("-rf"); got != "./-rf" {
		t.Errorf("Arg(-rf) = %q", got)
	}
	if got := shell.Arg("/abs/-x"); got != "/abs/-x" {
		t.Errorf("Arg(/abs/-x) = %q", got)
	}
}

// A word a terminal would act on (ESC, BEL, C1, bidi, bytes that are not UTF-8) is printed
// in $'…' quoting: the printed line holds none of those raw, and bash, reading it, gets
// the word back byte for byte. Printing such words in plain single quotes (the old Quote)
// fails the first check; a wrong escape, the second.
func TestQuoteEscapesWhatATerminalActsOn(t *testing.T) {
	words := []string{"k\x1b]0;x\x07", "sh\x1b[31m", "c\u009bq", "bidi\u202eevil", "\xff\xfe", "mix 'q' \\ \x1b\n"}
	for _, w := range words {
		q := shell.Quote(w)
		if strings.ContainsAny(q, "\x1b\x07\u009b\u202e") || !utf8.ValidString(q) {
			t.Errorf("Quote(%q) = %q: raw", w, q)
		}
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to read $'…'")
	}
	for _, w := range words {
		line := shell.Join([]string{"printf", `%s\0`, w})
		cmd := exec.Command(bash, "-c", line)
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("bash -c %q: %v", line, err)
		}
		if got := strings.TrimSuffix(string(out), "\x00"); got != w {
			t.Errorf("%q printed as %s arrived as %q", w, line, got)
		}
	}
}
