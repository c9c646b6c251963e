package audit

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// BindFlags defines a flag on fs for each parameter and returns the Args the flags fill
// as they are parsed: every parameter holds its default until given.
func BindFlags(fs *flag.FlagSet, params []Param) Args {
	args := DefaultArgs(params)
	for _, p := range params {
		set := func(v string) error { args.Set(p.Name, v); return nil }
		if p.Bool {
			fs.BoolFunc(p.Name, p.help(), set)
		} else {
			fs.Func(p.Name, p.help(), set)
		}
	}
	return args
}

// help is the parameter's usage as a flag shows it: its unit (as the value's name) and
// its default, unless that is the zero of its kind.
func (p Param) help() string {
	s := p.Usage
	if p.Unit != "" {
		s += " (unit: `" + p.Unit + "`)"
	}
	switch p.Default {
	case "", "0", "false":
	default:
		s += " (default " + p.Default + ")"
	}
	return s
}

// FlagSet makes the certificate's flags: --variant (the first variant by default) and
// one per parameter. Certify takes what they hold after parsing.
func (b Bounds) FlagSet(name string) (fs *flag.FlagSet, variant *string, args Args) {
	fs = flag.NewFlagSet(name, flag.ContinueOnError)
	names := make([]string, len(b.Variants))
	for i, v := range b.Variants {
		names[i] = v.Name + " (" + v.Summary + ")"
	}
	def := ""
	if len(b.Variants) > 0 {
		def = b.Variants[0].Name
	}
	variant = fs.String("variant", def, "the theorem to apply: "+strings.Join(names, ", "))
	return fs, variant, BindFlags(fs, b.Params)
}

// Certify computes the named variant's certificate.
func (b Bounds) Certify(variant string, args Args) ([]Row, error) {
	if !slices.ContainsFunc(b.Variants, func(v Variant) bool { return v.Name == variant }) {
		names := make([]string, len(b.Variants))
		for i, v := range b.Variants {
			names[i] = v.Name
		}
		return nil, fmt.Errorf("--variant %q: want one of %s", variant, strings.Join(names, ", "))
	}
	return b.Compute(variant, args)
}

// Run parses command-line arguments as the certificate's flags and computes it: the whole
// of "audit bounds NAME" but the printing.
func (b Bounds) Run(argv []string) ([]Row, error) {
	fs, variant, args := b.FlagSet("bounds")
	fs.SetOutput(io.Discard)
	if err := fs.Parse(argv); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return b.Certify(*variant, args)
}
