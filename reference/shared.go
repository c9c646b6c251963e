package reference

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// ErrNoSharedDatasets is FindSharedDatasets' error when nothing names or holds the
// shared datasets.
var ErrNoSharedDatasets = errors.New("shared datasets not found beside the working directory or its parents; give --datasets DIR or set $UNLEARNAUDIT_DATASETS")

// FindSharedDatasets locates the folder of the shared datasets (../shared/datasets of a
// checkout): dir when given, else $UNLEARNAUDIT_DATASETS, else shared/datasets beside the
// working directory or one of its parents.
func FindSharedDatasets(dir string) (string, error) {
	if dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return "", fmt.Errorf("--datasets %s: not a directory", dir)
		}
		return dir, nil
	}
	if env := os.Getenv("UNLEARNAUDIT_DATASETS"); env != "" {
		if st, err := os.Stat(env); err != nil || !st.IsDir() {
			return "", fmt.Errorf("$UNLEARNAUDIT_DATASETS=%s: not a directory", env)
		}
		return env, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find datasets: %w", err)
	}
	for {
		for _, cand := range []string{filepath.Join(wd, "shared", "datasets"), filepath.Join(wd, "..", "shared", "datasets")} {
			if st, err := os.Stat(cand); err == nil && st.IsDir() {
				return filepath.Clean(cand), nil
			}
		}
		parent := filepath.Dir(wd)
		if parent == wd {
			return "", ErrNoSharedDatasets
		}
		wd = parent
	}
}

// LoadIDXClasses reads an idx images file and its labels (DefaultLabelsPath) and keeps
// classes pos (→ +1) and neg (→ −1), pixels scaled to [0, 1] and rows to Euclidean norm 1:
// the preprocessing every MNIST-style experiment here uses. It returns the labels file's
// path beside the data.
func LoadIDXClasses(images string, pos, neg float64) (ds *Dataset, labels string, err error) {
	labels = DefaultLabelsPath(images)
	all, err := LoadIDX(images, labels)
	if err != nil {
		return nil, "", err
	}
	pair, err := all.SelectClasses(pos, neg)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", images, err)
	}
	return pair.Scale(1.0 / 255).NormalizeRows(), labels, nil
}

// ParseClassPair reads two distinct class labels written "A,B", as --classes takes them;
// its errors quote the value, for the caller to name the flag or field.
func ParseClassPair(s string) (a, b float64, err error) {
	parts := strings.Split(s, ",")
	if len(parts) != 2 {
		return 0, 0, fmt.Errorf("%s: want two labels A,B", clip.Quote(s))
	}
	a, err1 := strconv.ParseFloat(strings.TrimSpace(parts[0]), 64)
	b, err2 := strconv.ParseFloat(strings.TrimSpace(parts[1]), 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("%s: labels must be numbers", clip.Quote(s))
	}
	if a == b {
		return 0, 0, fmt.Errorf("%s: the two labels must differ", clip.Quote(s))
	}
	return a, b, nil
}
