// Package repocheck holds the tests of the repository as a whole, and no code.
//
// They check what a newcomer relies on without reading the code: NOTICE lists every file
// carrying another project's copyright and every module go.mod requires; CONTRIBUTING.md's
// commands name tests, flags, scripts and files that exist; docs/reference.md's layout
// table is the packages' own synopses (go test ./internal/repocheck -run
// TestReferenceLayout -update rewrites it); the package comments' code snippets name
// identifiers that exist; the files the README and docs name in code spans exist.
package repocheck
