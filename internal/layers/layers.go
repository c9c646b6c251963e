// Package layers declares the order the module's packages are stacked in, lowest first,
// and its test checks that no package imports one above it (issue 42: reports and the
// instruments depend on leaves only, never on the audit root, mia or retrain). A package
// may import packages of its own layer or of lower ones. The order is data, not code
// anyone calls: it is here, in one place, so that a new package has to be placed in it
// (the test fails for a package no layer names) and a wrong arrow is caught by go test.
package layers

import (
	"path"
	"strings"
)

// A Layer is a named set of packages, by import path relative to the module (a pattern's
// * matches one path element, as in path.Match; "x/..." matches x and everything below).
type Layer struct {
	Name     string
	Packages []string
}

// Order is the layering, lowest first (issue 42's protocol, point 5). Leaves are the
// vocabulary and the instruments: pure functions of counts and samples.
var Order = []Layer{
	{"leaves", []string{"internal/...", "audit/verdict", "audit/epsilon", "audit/onerun",
		"audit/estimate", "audit/evidence", "audit/threshold", "reports/table", "reference/dp",
		"reference/internal/...", "datasets"}},
	// reports renders values it is handed and imports leaves alone (LeavesOnly), so every
	// package above may build a report.
	{"reports", []string{"reports"}},
	{"models and data", []string{"reference/...", "artifact", "retrain", "mia", "internal/gausstest"}},
	{"trial engine", []string{"audit/trials/..."}},
	{"shared checks", []string{"audit/checks/..."}},
	{"method contract", []string{"audit"}},
	{"method kit", []string{"audit/methodkit", "audit/controls"}},
	{"spec", []string{"audit/spec/..."}},
	{"verify and canaries", []string{"audit/verify/...", "audit/canary/...", "audit/detection"}},
	{"methods", []string{"audit/*audit", "audit/methods/skeleton"}},
	{"registry and properties", []string{"audit/methods", "props"}},
	{"pipeline", []string{"audit/pipeline/...", "internal/audittest"}},
	{"commands", []string{"cmd/...", "bench/...", "examples/...", "python"}},
}

// LeavesOnly are the packages, above the leaves, that may import leaves alone: the
// renderer of reports is fed values, it does not compute them.
var LeavesOnly = []string{"reports"}

// Of returns the index in Order of the layer of pkg (relative to the module), and false
// when no layer names it. Exact names win over patterns, and a longer pattern over a
// shorter one, so that internal/audittest sits where it is named and not with internal/....
func Of(pkg string) (int, bool) {
	best, bestLen := -1, -1
	for i, l := range Order {
		for _, p := range l.Packages {
			n := matchLen(p, pkg)
			if n > bestLen {
				best, bestLen = i, n
			}
		}
	}
	return best, best >= 0
}

// matchLen is how specific a match of pattern p on pkg is: -1 for none, the pattern's
// length for a pattern, and more than any pattern for an exact name.
func matchLen(p, pkg string) int {
	switch {
	case p == pkg:
		return 1 << 20
	case strings.HasSuffix(p, "/..."):
		base := strings.TrimSuffix(p, "/...")
		if pkg == base || strings.HasPrefix(pkg, base+"/") {
			return len(base)
		}
	case strings.ContainsAny(p, "*?["):
		if ok, _ := path.Match(p, pkg); ok {
			return len(p)
		}
	}
	return -1
}

// An Edge is an import: From imports To (paths relative to the module).
type Edge struct{ From, To string }

// Check returns the imports of graph (each package's imports within the module) that go
// up the order or leave the leaves from a LeavesOnly package, with why, and the packages
// no layer names.
func Check(graph map[string][]string) (bad map[Edge]string, unplaced []string) {
	bad = map[Edge]string{}
	leaf := func(p string) bool { l, ok := Of(p); return ok && l == 0 }
	for from, imps := range graph {
		lf, ok := Of(from)
		if !ok {
			unplaced = append(unplaced, from)
			continue
		}
		for _, to := range imps {
			lt, ok := Of(to)
			if !ok {
				continue // reported as unplaced under its own name
			}
			switch {
			case lt > lf:
				bad[Edge{from, to}] = "imports a package of a higher layer: " + Order[lf].Name + " < " + Order[lt].Name
			case leavesOnly(from) && !leaf(to):
				bad[Edge{from, to}] = "may import leaves only, and " + to + " is in layer " + Order[lt].Name
			}
		}
	}
	return bad, unplaced
}

func leavesOnly(pkg string) bool {
	for _, p := range LeavesOnly {
		if p == pkg {
			return true
		}
	}
	return false
}
