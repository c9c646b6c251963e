package cliflag

import (
	"flag"
	"slices"
	"strings"
)

// Set reports which flags were given on the command line, by their canonical names (an
// alias sets its flag).
func Set(fs *flag.FlagSet) map[string]bool {
	m := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { m[Canonical(fs, f.Name)] = true }) // an alias sets its flag
	return m
}

// Given lists the flags given, as --name=value in name order, but the ones left out.
// An old name is listed as the flag it sets, so a record of the command line is the same
// bytes whichever name was typed.
func Given(fs *flag.FlagSet, leftOut ...string) []string {
	type given struct{ name, value string }
	var gs []given
	fs.Visit(func(f *flag.Flag) {
		// an old name is recorded as the flag it sets, so the report is the same bytes
		if name := Canonical(fs, f.Name); !slices.Contains(leftOut, name) {
			gs = append(gs, given{name, f.Value.String()})
		}
	})
	slices.SortFunc(gs, func(a, b given) int { return strings.Compare(a.name, b.name) }) // in name order
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = "--" + g.name + "=" + g.value
	}
	return out
}

// IfGiven is p when the flag name was given (in Set's map), else nil: a setting that
// overrides another (a spec's) only when the command line states it.
func IfGiven[T any](set map[string]bool, name string, p *T) *T {
	if set[name] {
		return p
	}
	return nil
}
