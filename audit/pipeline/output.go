package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/unlearnaudit/unlearnaudit/internal/outdir"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// ReportNames are the report files a command may leave in its folder, every format:
// the ones a run removes when it starts, so that no earlier report sits beside its
// failure as if it were its result; the signed envelope among them.
func ReportNames() []string {
	names := make([]string, 0, len(reports.ReportFormats)+1)
	for _, f := range reports.ReportFormats {
		names = append(names, "report."+f)
	}
	return append(names, "report.json"+reports.SignedSuffix) // --sign-key's envelope
}

// CheckOut refuses an output folder (--out) that is empty or an input, and one whose
// named files would replace an input (a spec called report.json in --out). The error
// names command.
func CheckOut(command, out string, names []string, inputs ...outdir.Input) error {
	if err := outdir.CheckOut("--out", out, inputs...); err != nil {
		return fmt.Errorf("%s: %w", command, err)
	}
	for _, n := range names {
		if err := outdir.CheckOut("--out", filepath.Join(out, filepath.FromSlash(n)), inputs...); err != nil {
			return fmt.Errorf("%s: %w", command, err)
		}
	}
	return nil
}

// OpenOut opens a command's output folder (outdir.Open); its refusals say the way out
// (OutError).
func OpenOut(command, dir string, force bool) (*outdir.Dir, error) {
	d, err := outdir.Open(dir, outdir.Options{Force: force})
	if errors.Is(err, syscall.ENOTDIR) { // mkdir's "not a directory" says nothing of why
		if st, serr := os.Stat(dir); serr == nil && !st.IsDir() {
			return nil, fmt.Errorf("%s: output folder %s is a file, not a folder: give --out a folder's name (it is created if need be)", command, dir)
		}
		return nil, fmt.Errorf("%s: output folder %s: a file stands in its path where a folder must be: give --out another (%w)", command, dir, err)
	}
	if err != nil {
		return nil, OutError(command, err)
	}
	return d, nil
}

// OutError names command in an output folder's error and, for its refusals (files the
// tool did not write, a damaged manifest), says the way out: move them, or --force.
func OutError(command string, err error) error {
	var (
		fe *outdir.ForeignError
		me *outdir.ManifestError
	)
	switch {
	case errors.As(err, &fe):
		them := "it"
		if len(fe.Names) > 1 {
			them = "them"
		}
		return fmt.Errorf("%s: %w; move %s away, or give --force to let this run replace %s", command, err, them, them)
	case errors.As(err, &me):
		return fmt.Errorf("%s: %w; give --force to take the folder over", command, err)
	}
	return fmt.Errorf("%s: %w", command, err)
}

// outFiles are what a run claims in its opened folder before it writes any.
type outFiles struct {
	command string
	reports []string // claimed, then removed: no earlier report sits beside this run's failure
	keep    []string // claimed and kept (a part's manifest, rewritten as it goes)
	// checkpoints are claimed, removed with fresh, and recorded as appended to, inside the
	// folder trials (created if need be; "" with no checkpoints)
	checkpoints []string
	trials      string
	fresh       bool
}

// prepare readies an opened output folder for a run, the whole audit's or a part's:
// every file the run may replace or remove is claimed before any is touched, the old
// report removed, with fresh the kept trials too, and the checkpoints recorded as the
// tool's before a line is written to them.
func (o outFiles) prepare(d *outdir.Dir) error {
	claimed := append(append(append([]string{}, o.reports...), o.keep...), o.checkpoints...)
	if err := d.Claim(claimed...); err != nil {
		return OutError(o.command, err)
	}
	if len(o.reports) > 0 {
		if err := d.Remove(o.reports...); err != nil {
			return OutError(o.command, err)
		}
	}
	if o.fresh {
		if err := d.Remove(o.checkpoints...); err != nil {
			return OutError(o.command, fmt.Errorf("--fresh: %w", err))
		}
	}
	if o.trials == "" {
		return nil
	}
	if err := d.MkdirAll(o.trials); err != nil {
		return fmt.Errorf("%s: %w", o.command, err)
	}
	if err := d.Appending(o.checkpoints...); err != nil {
		return OutError(o.command, err)
	}
	return nil
}
