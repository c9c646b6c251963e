package reference_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
)

// The data sets are found where a flag or the environment puts them, in that order, and
// else are the copy embedded in the binary; a wrong directory is named.
func TestFindDatasets(t *testing.T) {
	root := t.TempDir()
	t.Setenv("UNLEARNAUDIT_DATASETS", "")
	if got, err := reference.FindDatasets(root); err != nil || got != root {
		t.Errorf("--datasets: %q, %v", got, err)
	}
	if _, err := reference.FindDatasets(filepath.Join(root, "nope")); err == nil || !strings.Contains(err.Error(), "--datasets") {
		t.Errorf("a missing --datasets: %v", err)
	}
	t.Setenv("UNLEARNAUDIT_DATASETS", filepath.Join(root, "nope"))
	if _, err := reference.FindDatasets(""); err == nil || !strings.Contains(err.Error(), "$UNLEARNAUDIT_DATASETS") {
		t.Errorf("a wrong $UNLEARNAUDIT_DATASETS: %v", err)
	}
	t.Setenv("UNLEARNAUDIT_DATASETS", root)
	if got, err := reference.FindDatasets(""); err != nil || got != root {
		t.Errorf("$UNLEARNAUDIT_DATASETS: %q, %v", got, err)
	}
	// Nothing named, from a folder with nothing near it: the embedded copy, whose files
	// are the repository's datasets/ byte for byte.
	t.Setenv("UNLEARNAUDIT_DATASETS", "")
	wd, _ := os.Getwd()
	t.Chdir(root)
	got, err := reference.FindDatasets("")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"sklearn/breast_cancer.csv", "liblinear/heart_scale", "mnist-t10k/t10k-images-idx3-ubyte.gz"} {
		a, err1 := os.ReadFile(filepath.Join(got, filepath.FromSlash(f)))
		b, err2 := os.ReadFile(filepath.Join(wd, "..", "datasets", filepath.FromSlash(f)))
		if err1 != nil || err2 != nil || len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s in %s: %d bytes (%v); the repository's %d (%v)", f, got, len(a), err1, len(b), err2)
		}
	}
}

func TestParseClassPair(t *testing.T) {
	if a, b, err := reference.ParseClassPair(" 3, 8"); err != nil || a != 3 || b != 8 {
		t.Errorf("3,8: %v %v %v", a, b, err)
	}
	for _, bad := range []string{"3", "3,8,1", "a,8", "3,3"} {
		// the value quoted; the caller names the flag or the spec field
		if _, _, err := reference.ParseClassPair(bad); err == nil || !strings.HasPrefix(err.Error(), strconv.Quote(bad)+": ") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
