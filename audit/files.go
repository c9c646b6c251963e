package audit

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// Write writes the outcome's files into dir, creating it, each file atomically and in
// order of name.
func (r *Reproduced) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	for _, name := range slices.Sorted(maps.Keys(r.Files)) {
		if err := WriteFileAtomic(filepath.Join(dir, name), r.Files[name]); err != nil {
			return err
		}
	}
	return nil
}

// RunArgs runs the experiment with its settings given as command-line flags (argv), the
// others at their defaults: "audit reproduce NAME argv…" without the printing and the
// writing.
func (e Experiment) RunArgs(ctx context.Context, env ExperimentEnv, argv []string) (*Reproduced, error) {
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
