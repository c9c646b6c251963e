package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/datasets"
)

// From a folder with nothing in it, --data datasets/liblinear/heart_scale reads the copy of
// the repository's file built into the binary (the report's input has its SHA-256, from
// datasets/SHA256SUMS); a datasets/… path that names no data set is still refused.
func TestDemoDataBuiltIn(t *testing.T) {
	t.Chdir(t.TempDir())
	out := filepath.Join(t.TempDir(), "r")
	_, stderr, code := runCLI(t, "demo", "--data", "datasets/liblinear/heart_scale", "--format", "libsvm", "--variants", "strongly-convex",
		"--trials", "8", "--delta", "1e-2", "--attacks", "game", "--out", out, "--quiet")
	if code != exitPass && code != exitFail && code != exitInconclusive {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Inputs []struct{ Role, Path, SHA256 string }
		Data   struct{ Rows, Features int }
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	const heartScale = "5defa0a4c4c5bdaf3f55ae3828310252e8565c13ee37ce279e0b86d82e7f4ce9" // datasets/SHA256SUMS
	if len(rep.Inputs) != 1 || rep.Inputs[0].SHA256 != heartScale || rep.Data.Rows != 270 || rep.Data.Features != 13 {
		t.Errorf("inputs %+v, %d × %d; want heart_scale's (%s), 270 × 13", rep.Inputs, rep.Data.Rows, rep.Data.Features, heartScale)
	}
	// the report names the data set as the repository does: the cache folder it was
	// extracted to is the user's, and would make two users' reports differ
	dir, err := datasets.Dir()
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Inputs[0].Path != "datasets/liblinear/heart_scale" || bytes.Contains(b, []byte(dir)) || bytes.Contains(md, []byte(dir)) {
		t.Errorf("input named %q; the report names the cache folder %s: %v", rep.Inputs[0].Path, dir, bytes.Contains(b, []byte(dir)) || bytes.Contains(md, []byte(dir)))
	}
	if _, stderr, code := runCLI(t, "demo", "--data", "datasets/liblinear/nope", "--format", "libsvm", "--out", filepath.Join(t.TempDir(), "x")); code != exitUsage {
		t.Errorf("a datasets/ path that names no data set: exit %d, want %d: %s", code, exitUsage, stderr)
	}
}
