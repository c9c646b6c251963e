package verdict

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/internal/atomicfile"
)

// The report values below are made by the audit and the method packages and rendered by
// package reports; they live here, in the leaf, so that reports imports none of what
// computes them.

// A Row is one quantity of a certificate: a key (of the JSON object a front end may
// print), its value (a number, an integer, a string or a list), and what it is: the
// formula and source, or the other reading where a spec flags one.
type Row struct {
	Key   string
	Value any
	Note  string
}

// Reproduced is an experiment's outcome, rendered.
type Reproduced struct {
	Files map[string][]byte // file name → contents, to write into ExperimentEnv.Out
	JSON  []byte            // the result, printed with --json
	Text  string            // the summary printed otherwise
	// Verdict is the overall verdict the front end exits with (PASS 0, FAIL 1,
	// INCONCLUSIVE 3): a judged FAIL fails; a judged INCONCLUSIVE, or no judged finding at
	// all, is INCONCLUSIVE; only judged findings that all pass make a PASS. Experiments
	// take it from reports.Reproduction.Render, which applies that rule, and never
	// override it.
	Verdict Verdict
}

// Write writes the outcome's files into dir, creating it, each file atomically and in
// order of name.
func (r *Reproduced) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	for _, name := range slices.Sorted(maps.Keys(r.Files)) {
		if err := atomicfile.WriteFileAtomic(filepath.Join(dir, name), r.Files[name]); err != nil {
			return err
		}
	}
	return nil
}

// Utility is how well both sides' models still work: the loss and accuracy of the
// unlearned and of the retrained models on the forget, retain and test sets. It is a
// measurement beside the verdict, never a part of it: unlearning is judged by the
// forgetting checks, and a compliance reader wants to see beside them that the model
// still works (and, on the forget set, that it does about as well there as a retrain).
type Utility struct {
	Source string       `json:"source"` // where the per-record values came from
	Rows   []UtilityRow `json:"rows"`
}

// UtilityRow is one measurement: the mean over a side's models of each model's mean over
// the set's records, and the standard deviation of those model means (n − 1 in the
// denominator; 0 for one model).
type UtilityRow struct {
	Set     string  `json:"set"`     // forget, retain or test
	Measure string  `json:"measure"` // loss or accuracy
	Side    string  `json:"side"`    // unlearned or retrained
	Models  int     `json:"models"`
	Records int     `json:"records"`
	Mean    float64 `json:"mean"`
	SD      float64 `json:"sd"`
}

// OutputFormats are the renderings of a report, by file extension, that a spec or a
// command may ask for: JSON is the source of the others.
var OutputFormats = []string{"json", "md", "html", "pdf"}

// FigureFormats are the formats a figure is drawn in.
var FigureFormats = []string{"svg", "png", "pdf"}
