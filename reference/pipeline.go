package reference

import (
	"fmt"
	"slices"
	"strings"
)

// A preprocessing pipeline names, in order, the steps that turn a file's features into the
// rows a model trains on. A model trained elsewhere is only comparable with the toolkit's
// retrains when both saw the same rows, so the steps are spelled out and recorded:
//
//	standardize  columns to mean 0, standard deviation 1 (dense: centring fills zeros)
//	max-abs      columns divided by their largest absolute value (keeps data sparse)
//	pixels       every value divided by 255 (8-bit images to [0, 1])
//	unit-ball    rows divided by the largest row norm (geometry kept, every ‖x‖ ≤ 1)
//	unit-rows    every non-zero row scaled to norm 1
//
// "none" applies nothing; the steps run in the order named.
var PipelineSteps = []string{"standardize", "max-abs", "pixels", "unit-ball", "unit-rows"}

// ParsePipeline reads a comma-separated list of PipelineSteps, or "none" for no step.
// A step named twice or an unknown name is an error that lists the steps.
func ParsePipeline(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "none" {
		return []string{}, nil
	}
	var steps []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		switch {
		case !slices.Contains(PipelineSteps, f):
			return nil, fmt.Errorf("preprocessing step %q: want none or a comma-separated list of %s", f, strings.Join(PipelineSteps, ", "))
		case slices.Contains(steps, f):
			return nil, fmt.Errorf("preprocessing step %q named twice", f)
		}
		steps = append(steps, f)
	}
	return steps, nil
}

// Preprocess applies steps (PipelineSteps names, in order) to a copy of ds and says what
// each did, for a report.
func (ds *Dataset) Preprocess(steps []string) (*Dataset, []string, error) {
	var said []string
	for _, s := range steps {
		switch s {
		case "standardize":
			ds = ds.Standardize()
			said = append(said, "columns standardised to mean 0, variance 1")
		case "max-abs":
			ds = ds.MaxAbsScale()
			said = append(said, "columns scaled by their largest absolute value, not centred")
		case "pixels":
			ds = ds.Scale(1.0 / 255)
			said = append(said, "values divided by 255 (pixels to [0, 1])")
		case "unit-ball":
			ds = ds.ScaleToUnitBall()
			said = append(said, "rows divided by the largest row norm (every row in the unit ball)")
		case "unit-rows":
			ds = ds.NormalizeRows()
			said = append(said, "rows scaled to Euclidean norm 1")
		default:
			return nil, nil, fmt.Errorf("preprocess: unknown step %q; want one of %s", s, strings.Join(PipelineSteps, ", "))
		}
	}
	return ds, said, nil
}
