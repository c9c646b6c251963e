package main

import (
	"strings"
	"testing"
)

// The red team's bounds command printed σ, ρ and the certified σ as NaN, exit 0.
func TestBoundsTinyDeltaRefused(t *testing.T) {
	out, stderr, code := runCLI(t, "bounds", "d2d", "--variant", "strongly-convex", "--lipschitz", "1", "--smoothness", "4", "--strong-convexity", "0.05",
		"--n", "1000", "--iterations", "5", "--epsilon", "1", "--delta", "4.9e-324")
	if code != exitUsage || !strings.Contains(stderr, "--delta 5e-324") || strings.Contains(out, "NaN") {
		t.Errorf("exit %d, %q, %q; want exit 2 naming --delta, no NaN printed", code, stderr, out)
	}
}

// --one-run-max 1 was silently ignored without --one-run.
func TestOneRunMaxWithoutOneRun(t *testing.T) {
	_, stderr, code := runCLI(t, "demo", "--one-run-max", "1", "--trials", "8", "--variants", "strongly-convex", "--out", t.TempDir())
	if code != exitUsage || !strings.Contains(stderr, "--one-run-max applies to --one-run only") {
		t.Errorf("exit %d, %q; want exit 2 saying --one-run-max needs --one-run", code, stderr)
	}
}
