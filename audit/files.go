package audit

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// RunArgs runs the experiment with its settings given as command-line flags (argv), the
// others at their defaults: "audit reproduce NAME argv…" without the rendering, the
// writing and the printing.
func (e Experiment) RunArgs(ctx context.Context, env ExperimentEnv, argv []string) (*reports.Reproduction, error) {
	fs := flag.NewFlagSet(e.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	args := BindFlags(fs, e.Params)
	if err := ParseFlags(fs, argv); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %s", clip.Quote(fs.Arg(0)))
	}
	return e.Run(ctx, env, args)
}
