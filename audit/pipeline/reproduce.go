package pipeline

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/internal/outdir"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// WriteExperiments lists every registered method's experiments (audit.AllExperiments) as
// audit reproduce's help does: the names in one column, each summary re-flowed beside its
// name within 92 columns of text.
func WriteExperiments(w io.Writer) {
	width := 0
	for _, e := range audit.AllExperiments() {
		width = max(width, len(e.Name))
	}
	for _, e := range audit.AllExperiments() {
		for i, l := range reports.Wrap(strings.Join(strings.Fields(e.Summary), " "), 92-width) {
			name := ""
			if i == 0 {
				name = e.Name
			}
			fmt.Fprintf(w, "  %-*s  %s\n", width, name, l)
		}
	}
}

// Reproduce runs the experiment e with args and writes its results into the output
// folder d. The files every experiment writes (NAME.json and NAME.md) are claimed first,
// so that a folder holding files of that name the tool did not write is refused before
// any work (an *outdir.ForeignError). The experiment returns report values; they are
// dated (date; "" leaves them undated), rendered (reports.Reproduction.Render) and
// written. The errors are the folder's, or the experiment's wrapped.
func Reproduce(ctx context.Context, e audit.Experiment, args audit.Args, env audit.ExperimentEnv, d *outdir.Dir, date string) (*reports.Reproduced, error) {
	if err := d.Claim(e.Name+".json", e.Name+".md"); err != nil {
		return nil, err
	}
	rep, err := e.Run(ctx, env, args)
	if err != nil {
		return nil, err
	}
	rep.Date = date
	res, err := rep.Render(env.Out)
	if err != nil {
		return nil, err
	}
	if err := d.WriteFiles(res.Files); err != nil {
		return nil, err
	}
	return res, nil
}
