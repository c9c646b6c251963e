package main

import (
	"flag"
)

// forceUsage is --force's help, the same for every command that writes a folder.
const forceUsage = "take over files in the output folder the tool did not write, or that were edited since (reports, trial files): they are replaced or removed like its own"

// forceFlag declares --force.
func forceFlag(fs *flag.FlagSet, force *bool) { fs.BoolVar(force, "force", false, forceUsage) }
