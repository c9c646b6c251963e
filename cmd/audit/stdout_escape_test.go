package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Paths the user names are shown on stdout, never obeyed by the terminal: a folder or file
// named with an OSC title sequence or ESC[31m is Go-quoted in keygen's, canaries' and the
// demo's lines, and the export line's path is shell-quoted in $'…'. Printing the raw
// path (the red team's cases k01, k02, p05) fails it.
func TestStdoutShowsPathsEscaped(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"keygen", "--out", filepath.Join(dir, "k\x1b]0;x\a")},
		{"canaries", "--seed", "1", "--out", filepath.Join(dir, "c\x1b[31m.json")},
		{"demo", "--trials", "8", "--variants", "strongly-convex", "--quiet", "--out", filepath.Join(dir, "d\x1b]0;t\a")},
	} {
		out, stderr, code := runCLI(t, args...)
		if code != 0 && code != 3 {
			t.Fatalf("%s: exit %d: %s", args[0], code, stderr)
		}
		if strings.ContainsAny(out+stderr, "\x1b\a") {
			t.Errorf("%s printed a raw escape: %q", args[0], out)
		}
		if !strings.Contains(out, `\x1b`) {
			t.Errorf("%s does not show the path's escape: %q", args[0], out)
		}
	}
}
