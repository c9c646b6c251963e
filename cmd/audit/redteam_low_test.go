package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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

// verify --holdout with 39 rows for 40 models was refused only after the game (9–15 s):
// it is refused before it. The command runs under a cancelled context, so a game played
// first would end it as interrupted (exit 130), not as bad input.
func TestHoldoutCheckedBeforeTheGame(t *testing.T) {
	dir := t.TempDir()
	claim := filepath.Join(dir, "claim.json")
	os.WriteFile(claim, []byte(`{"method":{"name":"d2d"},"claim":{"epsilon":1,"delta":1e-5}}`), 0o644)
	write := func(name string, n, d int) string {
		data := make([]float64, n*d)
		for i := range data {
			data[i] = float64(i%7) / 7
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, npyF8(n, d, data), 0o644)
		return p
	}
	u, r, h := write("u.npy", 40, 20), write("r.npy", 40, 20), write("h.npy", 39, 20)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var o, e bytes.Buffer
	err := run(ctx, []string{"verify", "--spec", claim, "--scores", "--unlearned", u, "--retrained", r, "--holdout", h, "--out", filepath.Join(dir, "v")}, strings.NewReader(""), &o, &e)
	if code := exitCode(err); code != exitUsage || !strings.Contains(err.Error(), "--holdout "+h) || !strings.Contains(err.Error(), "scores of 39 models") {
		t.Errorf("exit %d, %v; want exit 2 refusing --holdout before the game", code, err)
	}
}
