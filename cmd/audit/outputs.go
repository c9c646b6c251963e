package main

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/unlearnaudit/unlearnaudit/internal/outdir"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// forceUsage is --force's help, the same for every command that writes a folder.
const forceUsage = "take over files in the output folder the tool did not write, or that were edited since (reports, trial files): they are replaced or removed like its own"

// forceFlag declares --force.
func forceFlag(fs *flag.FlagSet, force *bool) { fs.BoolVar(force, "force", false, forceUsage) }

// reportNames are the report files a command may leave in its folder, every format:
// the ones a run removes when it starts, so that no earlier report sits beside its
// failure as if it were its result; the signed envelope among them.
func reportNames() []string {
	names := make([]string, 0, len(reports.ReportFormats)+1)
	for _, f := range reports.ReportFormats {
		names = append(names, "report."+f)
	}
	return append(names, "report.json"+reports.SignedSuffix) // --sign-key's envelope
}

// checkOut refuses, as bad usage, an output folder that is empty or an input, and one
// whose named files would replace an input (a spec called report.json in --out).
func checkOut(command, out string, names []string, inputs ...outdir.Input) error {
	if err := outdir.CheckOut("--out", out, inputs...); err != nil {
		return usagef("%s: %v", command, err)
	}
	for _, n := range names {
		if err := outdir.CheckOut("--out", filepath.Join(out, filepath.FromSlash(n)), inputs...); err != nil {
			return usagef("%s: %v", command, err)
		}
	}
	return nil
}

// openOut opens a command's output folder (outdir.Open): a folder another process holds,
// or whose manifest is damaged, is bad usage (exit 2).
func openOut(command, dir string, force bool) (*outdir.Dir, error) {
	d, err := outdir.Open(dir, outdir.Options{Force: force})
	if err != nil {
		return nil, outErr(command, err)
	}
	return d, nil
}

// outErr turns the output folder's refusals into usage errors with the way out.
func outErr(command string, err error) error {
	var (
		fe *outdir.ForeignError
		le *outdir.LockedError
		me *outdir.ManifestError
	)
	switch {
	case errors.As(err, &fe):
		them := "it"
		if len(fe.Names) > 1 {
			them = "them"
		}
		return usagef("%s: %v; move %s away, or give --force to let this run replace %s", command, err, them, them)
	case errors.As(err, &me):
		return usagef("%s: %v; give --force to take the folder over", command, err)
	case errors.As(err, &le):
		return usagef("%s: %v", command, err)
	}
	return fmt.Errorf("%s: %w", command, err)
}
