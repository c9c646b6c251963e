package audit

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/internal/regular"
)

// WriteFileAtomic writes body to path through a temporary file in the same directory,
// renamed into place: a reader never sees half a file, and a failure leaves none.
func WriteFileAtomic(path string, body []byte) error {
	return WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(body)
		return err
	})
}

// WriteAtomic is WriteFileAtomic for a body too large to hold: write streams it into the
// temporary file (buffered), which is renamed into place only if write succeeds. A path
// that exists and is not a regular file (a device, a FIFO, a symbolic link) is refused,
// not replaced: see regular.Replaceable.
func WriteAtomic(path string, write func(io.Writer) error) error {
	if err := regular.Replaceable(path); err != nil {
		return fmt.Errorf("write %s: refused: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(tmp, 1<<16)
	werr := write(bw)
	if werr == nil {
		werr = bw.Flush()
	}
	merr := tmp.Chmod(0o644)
	cerr := tmp.Close()
	if err := errors.Join(werr, merr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	// checked again: the write may have taken a while
	if err := regular.Replaceable(path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: refused: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

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
