package reference_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
)

// The shared datasets are found where a flag, the environment or the layout of a checkout
// puts them, in that order; a wrong directory is named.
func TestFindSharedDatasets(t *testing.T) {
	root := t.TempDir()
	shared := filepath.Join(root, "shared", "datasets")
	deep := filepath.Join(root, "repo", "cmd", "audit")
	for _, d := range []string{shared, deep} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(deep)
	t.Setenv("UNLEARNAUDIT_DATASETS", "")
	if got, err := reference.FindSharedDatasets(""); err != nil || got != shared {
		t.Errorf("from a checkout: %q, %v; want %q", got, err, shared)
	}
	if got, err := reference.FindSharedDatasets(deep); err != nil || got != deep {
		t.Errorf("--datasets: %q, %v", got, err)
	}
	if _, err := reference.FindSharedDatasets(filepath.Join(root, "nope")); err == nil || !strings.Contains(err.Error(), "--datasets") {
		t.Errorf("a missing --datasets: %v", err)
	}
	t.Setenv("UNLEARNAUDIT_DATASETS", filepath.Join(root, "nope"))
	if _, err := reference.FindSharedDatasets(""); err == nil || !strings.Contains(err.Error(), "$UNLEARNAUDIT_DATASETS") {
		t.Errorf("a wrong $UNLEARNAUDIT_DATASETS: %v", err)
	}
	t.Setenv("UNLEARNAUDIT_DATASETS", "")
	t.Chdir(t.TempDir())
	// Nothing here: the search climbs to the root and gives up, unless the machine keeps
	// a shared/datasets folder above the temporary directory, which is then what it finds.
	if got, err := reference.FindSharedDatasets(""); !errors.Is(err, reference.ErrNoSharedDatasets) && !(err == nil && strings.HasSuffix(got, filepath.Join("shared", "datasets"))) {
		t.Errorf("nothing to find: %q, %v", got, err)
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
