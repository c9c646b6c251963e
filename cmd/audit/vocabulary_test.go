package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit"
)

// Every command's help shows each flag once, as --name with a placeholder (never Go's
// "value"), with at most one default, and none of the old names kept as aliases.
func TestHelpOneVocabulary(t *testing.T) {
	aliases := []string{"--claim-epsilon", "--factor", "--against "}
	cmds := []string{"demo", "run", "merge", "verify", "report", "check-report", "keygen", "canaries", "estimate", "epsilon", "plan",
		"bounds d2d", "bounds hf", "bounds olu", "bounds safe", "bounds sglu"}
	for _, e := range audit.AllExperiments() {
		cmds = append(cmds, "reproduce "+e.Name)
	}
	for _, cmd := range cmds {
		stdout, stderr, code := runCLI(t, append(strings.Fields(cmd), "-h")...)
		help := stdout + stderr
		if code != exitPass || !strings.Contains(help, "\n  --") {
			t.Errorf("%s -h: exit %d, no flags listed:\n%s", cmd, code, help)
			continue
		}
		for _, block := range strings.Split(help, "\n  --")[1:] {
			if strings.Count(block, "(default") > 1 {
				t.Errorf("%s: a flag shows two defaults: --%s", cmd, block)
			}
			if first, _, _ := strings.Cut(block, "\n"); strings.HasSuffix(first, " value") {
				t.Errorf("%s: --%s names its value \"value\"", cmd, first)
			}
		}
		if regexp.MustCompile(`(?m)^  -[a-z]`).MatchString(help) {
			t.Errorf("%s: a flag listed with one dash:\n%s", cmd, help)
		}
		for _, a := range aliases {
			if strings.Contains(help, a) {
				t.Errorf("%s: the help shows the old name %s", cmd, a)
			}
		}
	}
}

// plan's old flag names still parse, as the new ones; both at once are refused.
func TestPlanOldFlagNames(t *testing.T) {
	newOut, _, code := runCLI(t, "plan", "--trials", "200", "--delta", "1e-3", "--epsilon", "1", "--power-against", "3", "--json")
	if code != exitPass {
		t.Fatalf("new names: exit %d", code)
	}
	oldOut, _, code := runCLI(t, "plan", "--trials", "200", "--delta", "1e-3", "--claim-epsilon", "1", "--factor", "3", "--json")
	if code != exitPass || oldOut != newOut {
		t.Errorf("old names: exit %d\n%s\nwant\n%s", code, oldOut, newOut)
	}
	if !strings.Contains(newOut, `"factor":3`) {
		t.Errorf("--power-against 3 not planned: %s", newOut)
	}
	_, stderr, code := runCLI(t, "plan", "--trials", "200", "--delta", "1e-3", "--epsilon", "1", "--factor", "3", "--power-against", "3")
	if code != exitUsage || !strings.Contains(stderr, "--factor and --power-against name the same setting") {
		t.Errorf("both names: exit %d, %s", code, stderr)
	}
}

// The experiments' summaries are one column, beside names padded to the longest.
func TestReproduceHelpAligned(t *testing.T) {
	stdout, _, _ := runCLI(t, "reproduce", "-h")
	col := -1
	for _, l := range strings.Split(stdout, "\n") {
		if !strings.HasPrefix(l, "  ") || strings.TrimSpace(l) == "" {
			continue
		}
		i := strings.IndexFunc(l[2:], func(r rune) bool { return r == ' ' })
		j := 2 + i + strings.IndexFunc(l[2+i:], func(r rune) bool { return r != ' ' })
		if strings.HasPrefix(l, "   ") { // a continuation line
			j = len(l) - len(strings.TrimLeft(l, " "))
		}
		if col < 0 {
			col = j
		} else if j != col {
			t.Errorf("summary at column %d, want %d: %q", j, col, l)
		}
		if len([]rune(l)) > col+92 {
			t.Errorf("line too long: %q", l)
		}
	}
	if col < 0 {
		t.Fatal("no experiments listed")
	}
}
