package main

import (
	"flag"

	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/internal/outdir"
)

// forceUsage is --force's help, the same for every command that writes a folder.
const forceUsage = "take over files in the output folder the tool did not write, or that were edited since (reports, trial files): they are replaced or removed like its own"

// forceFlag declares --force.
func forceFlag(fs *flag.FlagSet, force *bool) { fs.BoolVar(force, "force", false, forceUsage) }

// reportNames are the report files a command may leave in its folder (pipeline.ReportNames).
func reportNames() []string { return pipeline.ReportNames() }

// checkOut refuses an output folder that is empty or an input (pipeline.CheckOut).
func checkOut(command, out string, names []string, inputs ...outdir.Input) error {
	return pipeline.CheckOut(command, out, names, inputs...)
}

// openOut opens a command's output folder (pipeline.OpenOut).
func openOut(command, dir string, force bool) (*outdir.Dir, error) {
	return pipeline.OpenOut(command, dir, force)
}

// outErr says an output folder's refusal with the way out (pipeline.OutError).
func outErr(command string, err error) error { return pipeline.OutError(command, err) }
