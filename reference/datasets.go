package reference

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/datasets"
	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// FindDatasets locates the folder of the data sets the reproductions read (the layout of
// the repository's datasets/: sklearn/, liblinear/, mnist-t10k/): dir when given (--datasets),
// else $UNLEARNAUDIT_DATASETS, else the copy embedded in the binary (datasets.Dir writes
// it out once to the user's cache), so an installed binary needs nothing beside it.
func FindDatasets(dir string) (string, error) {
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
	return datasets.Dir()
}

// LoadIDXClasses reads an idx images file and its labels (DefaultLabelsPath) and keeps
// classes pos (→ +1) and neg (→ −1), pixels scaled to [0, 1] and rows to Euclidean norm 1:
// the preprocessing every MNIST-style experiment here uses. It returns the labels file's
// path beside the data. lim caps the values read (LoadIDX).
func LoadIDXClasses(images string, pos, neg float64, lim Limits) (ds *Dataset, labels string, err error) {
	labels = DefaultLabelsPath(images)
	all, err := LoadIDX(images, labels, lim)
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
