package audit

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// A Param is a setting a method declares; front ends read it as text (a flag's value)
// and the method parses it with Args. Kind, Range and Choices declare the values it
// accepts: BindFlags refuses any other as the flag is parsed, so a setting is checked
// once, where it is given, whether or not the variant run uses it.
type Param struct {
	Name    string // the flag's name; a demo parameter's is unique across methods
	Usage   string // what it sets
	Default string // as typed on a command line; "" for none
	Unit    string // what the value measures or counts, e.g. "records"; "" for a pure number or a choice
	Bool    bool   // a switch: given alone it means true
	List    bool   // a comma-separated list, each element of Kind within Range

	Kind    ValueKind // how the value reads; Text accepts anything
	Range   string    // Number and Integer: the interval of accepted values, e.g. "[1, 1e6]" or "(0, inf]"; "" for any finite value
	Choices []string  // Choice: the accepted names
}

// ValueKind says how a parameter's value reads.
type ValueKind int

const (
	Text    ValueKind = iota // any text (a path, a list)
	Number                   // a finite float64 (infinite only where Range closes on inf)
	Integer                  // an int that fits the machine's int
	Choice                   // one of Param.Choices
)

// ValueRange is a parsed Param.Range: Lo and Hi with whether each end is included.
type ValueRange struct {
	Lo, Hi         float64
	LoOpen, HiOpen bool
}

// ParseRange reads "[a, b]", "(a, b)", "[a, b)" or "(a, b]"; a and b are numbers,
// -inf or inf.
func ParseRange(s string) (ValueRange, error) {
	t := strings.TrimSpace(s)
	if len(t) < 5 {
		return ValueRange{}, fmt.Errorf("interval %q: want [a, b] with ( or ) for open ends", s)
	}
	var iv ValueRange
	switch t[0] {
	case '[':
	case '(':
		iv.LoOpen = true
	default:
		return ValueRange{}, fmt.Errorf("interval %q: want [ or ( first", s)
	}
	switch t[len(t)-1] {
	case ']':
	case ')':
		iv.HiOpen = true
	default:
		return ValueRange{}, fmt.Errorf("interval %q: want ] or ) last", s)
	}
	lo, hi, ok := strings.Cut(t[1:len(t)-1], ",")
	if !ok {
		return ValueRange{}, fmt.Errorf("interval %q: want two ends separated by a comma", s)
	}
	var err1, err2 error
	iv.Lo, err1 = strconv.ParseFloat(strings.TrimSpace(lo), 64)
	iv.Hi, err2 = strconv.ParseFloat(strings.TrimSpace(hi), 64)
	if err := errors.Join(err1, err2); err != nil || math.IsNaN(iv.Lo) || math.IsNaN(iv.Hi) || iv.Lo > iv.Hi {
		return ValueRange{}, fmt.Errorf("interval %q: want numbers a ≤ b", s)
	}
	return iv, nil
}

// Contains reports whether x is in the interval.
func (iv ValueRange) Contains(x float64) bool {
	above := x > iv.Lo || (!iv.LoOpen && x == iv.Lo)
	below := x < iv.Hi || (!iv.HiOpen && x == iv.Hi)
	return above && below
}

// interval is the parameter's declared range; a malformed Range is a programmer error
// (Register checks every parameter, so front ends never meet one).
func (p Param) interval() ValueRange {
	if p.Range == "" {
		return ValueRange{Lo: -math.MaxFloat64, Hi: math.MaxFloat64}
	}
	iv, err := ParseRange(p.Range)
	if err != nil {
		panic(fmt.Sprintf("audit: parameter %q: %v", p.Name, err))
	}
	return iv
}

// A ParamError is a value its parameter does not accept.
type ParamError struct {
	Name, Value string
	Want        string // what the parameter accepts, e.g. "want an integer in [8, 1e6]"
}

func (e *ParamError) Error() string {
	// numbers read best bare ("--trials 7"), names and text quoted ("--pabi \"nope\"")
	v := clip.Quote(e.Value)
	if _, err := strconv.ParseFloat(e.Value, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		v = clip.Text(e.Value)
	}
	return fmt.Sprintf("--%s %s: %s", e.Name, v, e.Want)
}

// Check says whether value is one the parameter accepts; a *ParamError names the flag
// and what it wants ("--trials \"0\": want an integer in [8, 1e6]").
func (p Param) Check(value string) error {
	if want := p.refuse(value, true); want != "" {
		return &ParamError{Name: p.Name, Value: value, Want: want}
	}
	return nil
}

// refuse says what the parameter wants instead of value, or "" when it accepts it;
// inRange false checks only that the value reads as the parameter's kind.
func (p Param) refuse(value string, inRange bool) string {
	v := strings.TrimSpace(value)
	if p.Bool {
		if _, err := strconv.ParseBool(v); err != nil {
			return "want true or false"
		}
		return ""
	}
	if p.List {
		one := p
		one.List = false
		for i, f := range strings.Split(v, ",") {
			if want := one.refuse(f, inRange); want != "" {
				return fmt.Sprintf("element %d: %s (a comma-separated list)", i+1, want)
			}
		}
		return ""
	}
	switch p.Kind {
	case Number:
		iv := p.interval()
		x, err := strconv.ParseFloat(v, 64)
		switch {
		case errors.Is(err, strconv.ErrRange) && math.IsInf(x, 0):
			return fmt.Sprintf("overflows float64 (largest ±%g)", math.MaxFloat64)
		case err != nil && !errors.Is(err, strconv.ErrRange), math.IsNaN(x):
			return "want a number" // an underflow to zero or a subnormal is still a number
		case inRange && !iv.Contains(x):
			return "want a number in " + p.Range
		}
	case Integer:
		iv := p.interval()
		x, err := strconv.ParseInt(v, 10, strconv.IntSize)
		switch {
		case errors.Is(err, strconv.ErrRange):
			return fmt.Sprintf("overflows a %d-bit integer", strconv.IntSize)
		case err != nil:
			return "want an integer"
		case inRange && !iv.Contains(float64(x)):
			return "want an integer in " + p.Range
		}
	case Choice:
		if !slices.Contains(p.Choices, v) {
			return "want " + orList(p.Choices)
		}
	}
	return ""
}

// validate checks the declaration itself: its range reads and its default reads as its
// kind. The default may lie outside the range: 0 often stands for "not given" (a
// required constant) or "automatic" (workers), which a user cannot type meaningfully.
func (p Param) validate() error {
	if p.Kind == Choice && len(p.Choices) == 0 {
		return fmt.Errorf("parameter %q: a choice without choices", p.Name)
	}
	if p.Range != "" {
		if p.Kind != Number && p.Kind != Integer {
			return fmt.Errorf("parameter %q: a range on a parameter that is not a number", p.Name)
		}
		if _, err := ParseRange(p.Range); err != nil {
			return fmt.Errorf("parameter %q: %w", p.Name, err)
		}
	}
	if p.Default != "" {
		if want := p.refuse(p.Default, false); want != "" {
			return fmt.Errorf("parameter %q: its default %q: %s", p.Name, p.Default, want)
		}
	}
	return nil
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if k := len(names); k > 1 {
		return strings.Join(names[:k-1], ", ") + " or " + names[k-1]
	}
	return strings.Join(names, "")
}

// A Setting is a Param bound to the field that holds its value: a method declares its
// settings once, as a struct and the list of its fields' Settings, and its flags (the
// Params, SettingParams), a spec file's method.params and the values it computes with
// (ReadSettings) all come from that list. A setting is then named once, where it is
// declared; the code that uses it reads a field, so a misspelt name is a compile error,
// not a lookup that fails at run time (or, for a text, silently reads "").
type Setting struct {
	Param Param
	read  func(a Args) error
}

// IntSetting binds an integer setting to *dst.
func IntSetting(dst *int, p Param) Setting {
	return Setting{Param: p, read: func(a Args) (err error) { *dst, err = a.Int(p.Name); return err }}
}

// FloatSetting binds a number setting to *dst.
func FloatSetting(dst *float64, p Param) Setting {
	return Setting{Param: p, read: func(a Args) (err error) { *dst, err = a.Float(p.Name); return err }}
}

// BoolSetting binds a switch to *dst.
func BoolSetting(dst *bool, p Param) Setting {
	return Setting{Param: p, read: func(a Args) (err error) { *dst, err = a.Bool(p.Name); return err }}
}

// IntsSetting binds a comma-separated list of integers to *dst (Args.Ints: an empty list
// is an error).
func IntsSetting(dst *[]int, p Param) Setting {
	return Setting{Param: p, read: func(a Args) (err error) { *dst, err = a.Ints(p.Name); return err }}
}

// Uint64Setting binds a non-negative integer (a seed) to *dst (Args.Uint64).
func Uint64Setting(dst *uint64, p Param) Setting {
	return Setting{Param: p, read: func(a Args) (err error) { *dst, err = a.Uint64(p.Name); return err }}
}

// ListSetting binds a comma-separated list of texts to *dst (Args.List: empty items
// dropped, none is an empty list).
func ListSetting(dst *[]string, p Param) Setting {
	return Setting{Param: p, read: func(a Args) error { *dst = a.List(p.Name); return nil }}
}

// StringSetting binds a text or choice setting to *dst.
func StringSetting(dst *string, p Param) Setting {
	return Setting{Param: p, read: func(a Args) error { *dst = a.String(p.Name); return nil }}
}

// SettingParams are the settings' Params, in order: what DemoParams returns.
func SettingParams(ss []Setting) []Param {
	out := make([]Param, len(ss))
	for i, s := range ss {
		out[i] = s.Param
	}
	return out
}

// ReadSettings fills each setting's field from a, and returns every error at once: a
// value that does not read as its kind (named by its flag), and a setting a holds no
// value for — Args built from other Params than these settings', a programmer error
// named here rather than read as "".
func ReadSettings(a Args, ss []Setting) error {
	r := ArgReader{Args: a}
	for _, s := range ss {
		if _, ok := a.values[s.Param.Name]; !ok {
			r.Failf("setting %q: no value given or defaulted (the Args were not built from these settings' Params)", s.Param.Name)
			continue
		}
		r.Fail(s.read(a))
	}
	return r.Err()
}

// ChoiceSetting binds a choice to *dst: the value paired with the name given, names and
// values in the order of p.Choices, so the names are declared once, in the Param. A
// values list that does not pair with p.Choices is a programmer error, refused here,
// at declaration.
func ChoiceSetting[T any](dst *T, p Param, values []T) Setting {
	if len(values) != len(p.Choices) {
		panic(fmt.Sprintf("audit: setting %q: %d values for %d choices", p.Name, len(values), len(p.Choices)))
	}
	return Setting{Param: p, read: func(a Args) (err error) { *dst, err = Choose(a, p.Name, p.Choices, values); return err }}
}

// A Given is a setting's value and whether it was given (IsSet) rather than left at its
// default, for the settings whose absence means something: a constant a variant requires,
// a default that depends on another setting. It also knows its flag's name, so that
// Require names a missing setting from the field, not from a second spelling of the name.
// ReadSettings fills all three (GivenSetting).
type Given[T any] struct {
	Value T
	IsSet bool
	flag  string
}

// FlagGiven is the setting's flag name and whether it was given (for Require).
func (g Given[T]) FlagGiven() (flag string, isSet bool) { return g.flag, g.IsSet }

// GivenSetting binds a setting to dst.Value with bind (IntSetting, FloatSetting, …) and
// records in dst whether the setting was given.
func GivenSetting[T any](dst *Given[T], bind func(*T, Param) Setting, p Param) Setting {
	s := bind(&dst.Value, p)
	read := s.read
	s.read = func(a Args) error {
		dst.IsSet, dst.flag = a.Given(p.Name), p.Name
		return read(a)
	}
	return s
}

// A Requirable is a setting that knows whether it was given: a Given.
type Requirable interface {
	FlagGiven() (flag string, isSet bool)
}

// Require returns one error per setting not given, saying what needs it (as Args.Require
// does by name): "--lipschitz is required for --variant perfect". The settings must have
// been read (ReadSettings); one that was not is named as such rather than as "--".
func Require(what string, settings ...Requirable) []error {
	var errs []error
	for _, s := range settings {
		switch flag, isSet := s.FlagGiven(); {
		case flag == "":
			errs = append(errs, fmt.Errorf("a setting required for %s was never read (ReadSettings)", what))
		case !isSet:
			errs = append(errs, fmt.Errorf("--%s is required for %s", flag, what))
		}
	}
	return errs
}
