package cliflag

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// aliasUsage opens an alias's usage: Print leaves such flags out, Canonical reads the
// flag they stand for from it.
const aliasUsage = "alias of --"

// Alias declares old as another name of the flag canonical, which must exist: it parses
// into the same value and is left out of the help.
func Alias(fs *flag.FlagSet, old, canonical string) {
	f := fs.Lookup(canonical)
	if f == nil {
		panic("cliflag: alias " + old + " of undeclared flag " + canonical)
	}
	fs.Var(f.Value, old, aliasUsage+canonical+" (the old name, kept for one release)")
}

// Canonical is the flag a name sets: the name itself, or for an alias the flag it
// stands for.
func Canonical(fs *flag.FlagSet, name string) string {
	if f := fs.Lookup(name); f != nil {
		if rest, ok := strings.CutPrefix(f.Usage, aliasUsage); ok {
			c, _, _ := strings.Cut(rest, " ")
			return c
		}
	}
	return name
}

// Conflicts is an error naming the first flag set under two of its names (an alias and
// the flag, or two aliases): the later would silently win.
func Conflicts(fs *flag.FlagSet) error {
	given := map[string]string{} // canonical → the name given
	var err error
	fs.Visit(func(f *flag.Flag) {
		c := Canonical(fs, f.Name)
		if prev, ok := given[c]; ok && err == nil {
			err = fmt.Errorf("--%s and --%s name the same setting (--%s); give one", prev, f.Name, c)
		}
		given[c] = f.Name
	})
	return err
}

// Print writes the help of every flag but the aliases, in name order: "--name
// PLACEHOLDER" on one line, the usage indented below it, with the default appended
// unless it is the zero value or the usage already says what it is.
func Print(w io.Writer, fs *flag.FlagSet) {
	var b strings.Builder
	fs.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Usage, aliasUsage) {
			return
		}
		name, usage := flag.UnquoteUsage(f)
		if p, ok := f.Value.(interface{ Placeholder() string }); ok && !strings.Contains(f.Usage, "`") {
			name = p.Placeholder()
		}
		b.WriteString("  --" + f.Name)
		if name != "" && !isBool(f) {
			b.WriteString(" " + name)
		}
		b.WriteString("\n    \t" + strings.ReplaceAll(usage, "\n", "\n    \t"))
		if !zero(f.DefValue) && !saysDefault(usage) {
			if name == "string" {
				fmt.Fprintf(&b, " (default %q)", f.DefValue)
			} else {
				fmt.Fprintf(&b, " (default %v)", f.DefValue)
			}
		}
		b.WriteString("\n")
	})
	io.WriteString(w, b.String())
}

// saysDefault reports whether a usage states its default itself ("(default 2)", "default:
// the spec's", "; default 0.95)"), which Print then does not repeat.
func saysDefault(usage string) bool {
	return strings.Contains(usage, "(default") || strings.Contains(usage, "default:") || strings.Contains(usage, "; default ")
}

func isBool(f *flag.Flag) bool {
	bf, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && bf.IsBoolFlag()
}

func zero(v string) bool {
	switch v {
	case "", "0", "false", "0s", "[]":
		return true
	}
	return false
}
