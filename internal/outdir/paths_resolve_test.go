package outdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// resolveByWalk is resolve as it was, one folder at a time from the end: the reference the
// bisection must agree with.
func resolveByWalk(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	var rest []string
	for p := abs; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{real}, rest...)...)
		}
		if p == filepath.Dir(p) {
			return abs
		}
		rest = append([]string{filepath.Base(p)}, rest...)
	}
}

// resolve finds the longest prefix that resolves by bisection; it gives what the walk
// from the end gave, through links and on paths whose tail does not exist yet, at every
// depth the tail can start. Planting an off-by-one in the bisection (hi for lo) fails it.
func TestResolveIsTheWalksAnswer(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "b", "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "a", "b"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	paths := []string{
		dir, filepath.Join(dir, "a"), filepath.Join(dir, "a", "b", "c"),
		filepath.Join(dir, "a", "b", "c", "new"), filepath.Join(dir, "a", "new", "deeper", "still"),
		filepath.Join(dir, "link"), filepath.Join(dir, "link", "c", "x", "y"), filepath.Join(dir, "new"),
		filepath.Join(dir, "link", "..", "b", "z"), "relative/new", ".", "/",
	}
	for _, p := range paths {
		if got, want := resolve(p), resolveByWalk(p); got != want {
			t.Errorf("resolve(%q) = %q; the walk gives %q", p, got, want)
		}
	}
}

// A path longer than the system opens is refused by CheckOut at once, for --out and for
// an input alike, naming the flag and echoing a clipped head (the red team's 50 KB
// "a/a/…" --out took 100 s to resolve, past SIGTERM, before this bound). Removing the
// length check fails it.
func TestCheckOutRefusesPathsTooLong(t *testing.T) {
	long := strings.Repeat("a/", MaxPath/2+1)
	for _, c := range []struct {
		out string
		in  []Input
	}{
		{out: long},
		{out: "out", in: []Input{{Flag: "--a", Path: long}}},
	} {
		err := CheckOut("--out", c.out, c.in...)
		if err == nil {
			t.Fatalf("a path of %d bytes accepted", len(long))
		}
		if msg := err.Error(); len(msg) > 1024 || !strings.Contains(msg, "the system opens at most 4096") {
			t.Errorf("message of %d bytes: %.200s", len(msg), msg)
		}
	}
	if err := CheckOut("--out", strings.Repeat("a/", MaxPath/2-1)); err != nil {
		t.Errorf("a path of %d bytes refused: %v", MaxPath-2, err)
	}
}
