package audit

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// BindFlags defines a flag on fs for each parameter and returns the Args the flags fill
// as they are parsed: every parameter holds its default until given.
func BindFlags(fs *flag.FlagSet, params []Param) Args {
	args := DefaultArgs(params)
	for _, p := range params {
		set := func(v string) error {
			if err := refused(fs, p, v); err != nil {
				return err
			}
			args.Set(p.Name, v)
			return nil
		}
		fs.Var(&textFlag{set: set, isBool: p.Bool, kind: p.Kind, list: p.List}, p.Name, p.help())
	}
	return args
}

// textFlag is a flag that keeps the text it was last given, so that a command line read
// back with flag.Visit (a report's provenance) shows it: flag.Func's values print as "".
// Its zero value prints as "", so the usage shows no "(default …)" beside the parameter's
// own help, which already names the default.
type textFlag struct {
	text   string
	set    func(string) error
	isBool bool
	kind   ValueKind
	list   bool
}

// Placeholder names the value in help: N for an integer, X for a number, NAME for a
// choice, VALUE for text.
func (f *textFlag) Placeholder() string {
	p := [...]string{Text: "VALUE", Number: "X", Integer: "N", Choice: "NAME"}[f.kind]
	if f.list {
		p += ",…"
	}
	return p
}

func (f *textFlag) String() string {
	if f == nil {
		return ""
	}
	return f.text
}

func (f *textFlag) Set(v string) error {
	if err := f.set(v); err != nil {
		return err
	}
	f.text = v
	return nil
}

// IsBoolFlag lets a boolean parameter stand alone (--controls for --controls=true).
func (f *textFlag) IsBoolFlag() bool { return f.isBool }

// help is the parameter's usage as a flag shows it, followed by its unit (as the
// value's name), its range or choices, and its default unless that is the zero of its kind:
// "iteration budget I (unit: gradient steps; in [1, 1e9]; default 10)".
func (p Param) help() string {
	var notes []string
	if p.Unit != "" {
		notes = append(notes, "unit: `"+p.Unit+"`")
	}
	switch {
	case p.Range != "":
		notes = append(notes, "in "+p.Range)
	case p.Kind == Choice && !strings.Contains(p.Usage, p.Choices[0]):
		notes = append(notes, orList(p.Choices))
	}
	switch p.Default {
	case "", "0", "false":
	default:
		notes = append(notes, "default "+p.Default)
	}
	if len(notes) == 0 {
		return p.Usage
	}
	return p.Usage + " (" + strings.Join(notes, "; ") + ")"
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
func (b Bounds) Certify(ctx context.Context, variant string, args Args) ([]verdict.Row, error) {
	if !slices.ContainsFunc(b.Variants, func(v Variant) bool { return v.Name == variant }) {
		names := make([]string, len(b.Variants))
		for i, v := range b.Variants {
			names[i] = v.Name
		}
		return nil, fmt.Errorf("--variant %s: want one of %s", clip.Quote(variant), strings.Join(names, ", "))
	}
	// A δ so small that c/δ overflows (4.9e-324, inside the range (0, 1)) makes ln(c/δ)
	// +Inf and σ NaN: refused by name, as the demo refuses it, before a formula prints NaN.
	if args.Given("delta") {
		if d, err := args.Float("delta"); err == nil && d > 0 && d < minDelta {
			return nil, fmt.Errorf("--delta %g: too small to compute with: the noise scales grow with ln(c/δ), whose c/δ overflows float64 below about 1e-308; want δ ≥ %g", d, minDelta)
		}
	}
	rows, err := b.Compute(ctx, variant, args)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if f, ok := r.Value.(float64); ok && math.IsNaN(f) {
			return nil, fmt.Errorf("%s is NaN: these settings are outside what the %s certificate can compute", r.Key, variant)
		}
	}
	return rows, nil
}

// Run parses command-line arguments as the certificate's flags and computes it: the whole
// of "audit bounds NAME" but the printing.
func (b Bounds) Run(ctx context.Context, argv []string) ([]verdict.Row, error) {
	fs, variant, args := b.FlagSet("bounds")
	fs.SetOutput(io.Discard)
	if err := ParseFlags(fs, argv); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %s", clip.Quote(fs.Arg(0)))
	}
	return b.Certify(ctx, *variant, args)
}

// Var defines a flag for p on fs that stores its value in dst, refusing as it is parsed
// any value p does not accept; dst starts at p's default. It is how a front end declares
// its own settings (--trials, --workers) with the ranges methods' parameters have.
func Var[T int | float64 | string](fs *flag.FlagSet, dst *T, p Param) {
	if err := p.validate(); err != nil {
		panic("audit: " + err.Error())
	}
	assign := func(v string) {
		v = strings.TrimSpace(v)
		switch d := any(dst).(type) {
		case *int:
			*d, _ = strconv.Atoi(v) // refuse (or validate, for the default) has read it
		case *float64:
			*d, _ = strconv.ParseFloat(v, 64)
		case *string:
			*d = v
		}
	}
	if p.Default != "" {
		assign(p.Default) // a default outside the range means "automatic": it is kept
	}
	fs.Var(&textFlag{set: func(v string) error {
		if err := refused(fs, p, v); err != nil {
			return err
		}
		assign(v)
		return nil
	}, kind: p.Kind, list: p.List}, p.Name, p.help())
}

// refusals holds, per flag set being parsed, the value a parameter refused: the flag
// package reports it only as text ("invalid value … for flag -x: …"), and ParseFlags
// returns it in the form every other settings error takes ("--trials 7: want …").
var refusals sync.Map // *flag.FlagSet → *ParamError

// refused checks a flag's value against its parameter and records a refusal for ParseFlags.
func refused(fs *flag.FlagSet, p Param, v string) error {
	if want := p.refuse(v, true); want != "" {
		pe := &ParamError{Name: p.Name, Value: v, Want: want}
		refusals.Store(fs, pe)
		return pe
	}
	return nil
}

// ParseFlags parses argv with fs. A value a declared parameter refuses comes back as its
// *ParamError ("--trials 7: want an integer in [8, 1000000]"); other errors are the flag
// package's, with the name or value they quote clipped (flagError).
func ParseFlags(fs *flag.FlagSet, argv []string) error {
	refusals.Delete(fs)
	err := fs.Parse(argv)
	if pe, ok := refusals.LoadAndDelete(fs); ok && err != nil {
		return pe.(*ParamError)
	}
	return flagError(err)
}

// flagError is a flag package error with what it echoes of the command line clipped
// (clip.Text, clip.Quote): the flag package writes an unknown flag's name raw and a bad
// value whole, twice ("invalid boolean value "…" for -x: parse error: parsing "…""), so an
// 8 MB argument made a 16 MB message. Other errors (ErrHelp, nil) are returned as they are.
func flagError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, p := range []string{"flag provided but not defined: -", "bad flag syntax: ", "flag needs an argument: -"} {
		if rest, ok := strings.CutPrefix(msg, p); ok {
			return fmt.Errorf("%s%s", p, clip.Text(rest))
		}
	}
	for _, p := range []string{"invalid boolean value ", "invalid value "} {
		rest, ok := strings.CutPrefix(msg, p)
		if !ok {
			continue
		}
		q, qerr := strconv.QuotedPrefix(rest)
		v, uerr := strconv.Unquote(q)
		if qerr != nil || uerr != nil {
			break
		}
		flagName, detail, _ := strings.Cut(strings.TrimPrefix(rest[len(q):], " for "), ": ")
		if len(detail) > clip.Max { // the parser's error, which may quote the value again
			detail = "not a valid value"
		}
		return fmt.Errorf("%s%s for %s: %s", p, clip.Quote(v), clip.Text(flagName), detail)
	}
	return err
}
