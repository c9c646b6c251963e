package main

import (
	"crypto/sha256"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/artifact"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// The scikit-learn tutorial's command that writes verify's fixtures again, run as written.
const makeModels = "/usr/bin/python3 cmd/audit/testdata/verify/make_models.py"

// TestMakeModelsRegeneratesTheFixtures runs docs/scikit-learn.md's make_models.py command from the
// repository root: it writes into a new temporary folder (under the test's TMPDIR), the
// files it writes are the committed fixtures, value for value, and the committed ones are
// left as they are; named as its folder, the fixtures' own (not empty) are refused with
// nothing written.
func TestMakeModelsRegeneratesTheFixtures(t *testing.T) {
	readme, err := os.ReadFile("../../docs/scikit-learn.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), "`"+makeModels+"`") {
		t.Fatalf("docs/scikit-learn.md does not show `%s`", makeModels)
	}
	if out, err := exec.Command("/usr/bin/python3", "-c", "import numpy, sklearn").CombinedOutput(); err != nil {
		msg := "/usr/bin/python3 cannot import numpy and sklearn (apt-get install python3-sklearn): " + strings.TrimSpace(string(out))
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	fixtures := filepath.Join("testdata", "verify")
	before := dirHashes(t, fixtures)
	tmp := t.TempDir()
	args := strings.Fields(makeModels)
	cmd := exec.CommandContext(t.Context(), args[0], args[1:]...)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", makeModels, err, out)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	written := strings.TrimPrefix(first, "writing into ")
	if written == first || filepath.Dir(written) != tmp {
		t.Fatalf("%s: first line %q, want writing into a new folder in %s", makeModels, first, tmp)
	}
	got := dirHashes(t, written)
	var names []string
	for name := range before {
		if name != "make_models.py" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	if len(got) != len(names) {
		t.Errorf("make_models.py wrote %d files, the committed fixtures are %d", len(got), len(names))
	}
	for _, name := range names {
		if _, ok := got[name]; !ok {
			t.Errorf("make_models.py did not write %s", name)
			continue
		}
		want, _, err := artifact.LoadModel(filepath.Join(fixtures, name), reference.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		have, _, err := artifact.LoadModel(filepath.Join(written, name), reference.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if len(have) != len(want) {
			t.Errorf("%s: %d values, the committed file %d", name, len(have), len(want))
			continue
		}
		// The values are O(1); a BLAS rounds the minimiser's last bits differently from
		// one CPU to another (4e-15 measured), far below any difference that would matter.
		for i := range want {
			if d := math.Abs(have[i] - want[i]); !(d <= 1e-12) {
				t.Errorf("%s: value %d is %v, committed %v", name, i, have[i], want[i])
				break
			}
		}
	}

	// Named as its folder, the committed fixtures are refused before anything is written.
	// (the script's own folder, relative to the repository root it runs from)
	cmd = exec.CommandContext(t.Context(), args[0], args[1], filepath.Dir(args[1]))
	cmd.Dir = "../.."
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "is not empty") {
		t.Errorf("%s %s: %v, want an error saying the folder is not empty:\n%s", makeModels, fixtures, err, out)
	}
	after := dirHashes(t, fixtures)
	for name, h := range before {
		if after[name] != h {
			t.Errorf("the committed fixture %s changed", name)
		}
	}
	if len(after) != len(before) {
		t.Errorf("the fixtures' folder holds %d files, %d before the script ran", len(after), len(before))
	}
}

// dirHashes is the SHA-256 of every file under dir, by path relative to it.
func dirHashes(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	h := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		h[rel] = sha256.Sum256(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}
