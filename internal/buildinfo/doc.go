// Package buildinfo says which build of the tool is running: the release version the
// reports carry, and the commit the binary was built from, read from what the Go
// toolchain stamps into every binary (runtime/debug.ReadBuildInfo).
//
// A binary built with `go build` or `go install ./cmd/audit` inside a git checkout
// carries the commit (vcs.revision) and whether the tree had uncommitted changes
// (vcs.modified); one installed with `go install MODULE/cmd/audit@VERSION` carries the
// module's version instead, whose pseudo-version ends in the commit; `go run` (and a
// build with -buildvcs=false, which GOFLAGS may set) stamps neither, and the description
// says so rather than guess:
//
//	fmt.Println(buildinfo.Describe("0.1.0", buildinfo.Read()))
//	// 0.1.0 (commit 0123456789ab, modified; go1.26.0)
//
// The reports carry only the release version, so that the same inputs and seed give the
// same bytes from any build of one release.
package buildinfo
