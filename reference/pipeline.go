package reference

import (
	"fmt"
	"slices"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/internal/names"
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
var PipelineSteps []string

// A pipelineStep is a step with what it does and what it says in a report.
type pipelineStep struct {
	name, says string
	apply      func(*Dataset) *Dataset
}

var pipelineSteps = []pipelineStep{
	{"standardize", "columns standardised to mean 0, variance 1", (*Dataset).Standardize},
	{"max-abs", "columns scaled by their largest absolute value, not centred", (*Dataset).MaxAbsScale},
	{"pixels", "pixels scaled to [0, 1]", func(ds *Dataset) *Dataset { return ds.Scale(1.0 / 255) }},
	{"unit-ball", "rows divided by the largest row norm (every row in the unit ball)", (*Dataset).ScaleToUnitBall},
	{"unit-rows", "rows scaled to Euclidean norm 1", (*Dataset).NormalizeRows},
}

func init() {
	for _, st := range pipelineSteps {
		PipelineSteps = append(PipelineSteps, st.name)
	}
}

// ParsePipeline reads a comma-separated list of PipelineSteps, or "none" for no step.
// A step named twice or an unknown name is an error that lists the steps.
func ParsePipeline(s string) ([]string, error) {
	if strings.TrimSpace(s) == "none" {
		return []string{}, nil
	}
	return names.Parse(s, PipelineSteps, "preprocessing step", "none or a comma-separated list of "+strings.Join(PipelineSteps, ", "))
}

// Preprocess applies steps (PipelineSteps names, in order) to a copy of ds and says what
// each did, for a report.
func (ds *Dataset) Preprocess(steps []string) (*Dataset, []string, error) {
	var said []string
	for _, name := range steps {
		i := slices.IndexFunc(pipelineSteps, func(st pipelineStep) bool { return st.name == name })
		if i < 0 {
			return nil, nil, fmt.Errorf("preprocess: unknown step %s; want one of %s", clip.Quote(name), strings.Join(PipelineSteps, ", "))
		}
		ds = pipelineSteps[i].apply(ds)
		said = append(said, pipelineSteps[i].says)
	}
	return ds, said, nil
}
