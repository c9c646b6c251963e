package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Info is what a binary knows of its own build.
type Info struct {
	Module    string // the main module's version: "(devel)" for a local build, vX.Y.Z or a pseudo-version from go install …@version
	Commit    string // vcs.revision; "" when not stamped
	Modified  bool   // vcs.modified: built from a tree with uncommitted changes
	GoVersion string // the toolchain that built it
}

// Read is the running binary's Info; the zero Info when the binary carries none.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{}
	}
	return FromBuildInfo(bi)
}

// FromBuildInfo extracts Info from build information.
func FromBuildInfo(bi *debug.BuildInfo) Info {
	in := Info{Module: bi.Main.Version, GoVersion: bi.GoVersion}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Commit = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

// Describe is the one line `audit version` prints: the release, then where the build
// came from — its commit (12 hex digits), the module version go install recorded, or a
// note that neither was stamped (go run, a build with -buildvcs=false, or in a git worktree).
func Describe(release string, in Info) string {
	var from []string
	switch {
	case in.Commit != "":
		c := in.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if in.Modified {
			c += ", modified"
		}
		from = append(from, "commit "+c)
	case in.Module != "" && in.Module != "(devel)":
		from = append(from, "module "+in.Module)
	default:
		from = append(from, "commit not stamped: go run, a build with -buildvcs=false, or a build in a git worktree")
	}
	if in.GoVersion != "" {
		from = append(from, in.GoVersion)
	}
	return fmt.Sprintf("%s (%s)", release, strings.Join(from, "; "))
}

// Arch is what decides this build's floating-point rounding: its GOARCH, and on amd64 the
// microarchitecture level it was built for ("amd64/v3": from v3 the compiler fuses
// multiply–adds, as it does on arm64), when the build recorded it.
func Arch() string {
	bi, _ := debug.ReadBuildInfo()
	return archOf(runtime.GOARCH, bi)
}

// archOf is Arch for goarch and the build information bi (nil: none).
func archOf(goarch string, bi *debug.BuildInfo) string {
	if goarch != "amd64" || bi == nil {
		return goarch
	}
	for _, s := range bi.Settings {
		if s.Key == "GOAMD64" && s.Value != "" {
			return goarch + "/" + s.Value
		}
	}
	return goarch
}
