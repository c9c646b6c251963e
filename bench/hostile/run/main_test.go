package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The escape check finds what a terminal acts on (ESC, BEL, a C1 control as a code point
// or as a lone byte) and passes the tool's own Unicode, whose UTF-8 continuation bytes
// fall in 0x80–0x9F ("—" is E2 80 94, "≤" E2 89 A4, "×" C3 97).
func TestRawControl(t *testing.T) {
	for s, want := range map[string]bool{
		"plain ASCII\n": false,
		"ε ≤ 1 — 3 × 4, μ, δ′ → ∞\n": false,
		"\x1b[31mred":      true,
		"title\x07":        true,
		"csi \u009b2J":     true,
		"lone \x9b byte":   true,
		"lone \x85 byte":   true,
		"quoted \\x1b[31m": false,
	} {
		if got := rawControl([]byte(s)); got != want {
			t.Errorf("rawControl(%q) = %v, want %v", s, got, want)
		}
	}
}

// GNU time's report: the last line is "%M %e"; a signal's line before it gives the exit
// as 128 + the signal.
func TestParseTime(t *testing.T) {
	dir := t.TempDir()
	for text, want := range map[string]result{
		"1181184 29.76\n": {rssKiB: 1181184, seconds: 29.76, exit: 7},
		"Command exited with non-zero status 2\n16420 0.10\n": {rssKiB: 16420, seconds: 0.10, exit: 7},
		"Command terminated by signal 9\n3112960 120.01\n":    {rssKiB: 3112960, seconds: 120.01, exit: 137},
	} {
		p := filepath.Join(dir, "time")
		os.WriteFile(p, []byte(text), 0o644)
		r := result{exit: 7} // the status GNU time passed on, kept unless a signal ended it
		r.parseTime(p)
		if r.rssKiB != want.rssKiB || r.seconds != want.seconds || r.exit != want.exit {
			t.Errorf("%q: %d KiB, %.2f s, exit %d; want %d, %.2f, %d", text, r.rssKiB, r.seconds, r.exit, want.rssKiB, want.seconds, want.exit)
		}
	}
}
