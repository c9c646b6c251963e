package audit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/mia"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// A Method is one unlearning method's audit, as the toolkit's front ends drive it. Every
// method's audit package (d2daudit, sgluaudit, …) implements it and registers it with
// Register; the CLI looks methods up and holds no method-specific code, so a new method
// adds no file under cmd/.
type Method interface {
	// Name is the method's short name, e.g. "d2d"; subjects are named "name/…", and
	// "audit bounds name" computes its certificate.
	Name() string
	// Summary is one line for help output.
	Summary() string
	// DemoVariants are the variants the demo can audit, in their order of appearance.
	// Variant names are unique across methods: they are what --variants selects.
	DemoVariants() []Variant
	// DemoParams are the method's own demo settings; the CLI makes a flag of each.
	DemoParams() []Param
	// Demo builds the subjects of the wanted variants (a subset of DemoVariants) on the
	// demo's data and requests, with the method's settings in args.
	Demo(setup DemoSetup, variants []string, args Args) ([]Audited, error)
	// Bounds is the method's certificate computed from declared constants.
	Bounds() Bounds
	// Experiments are the papers' experiments "audit reproduce" re-runs; their names are
	// unique across methods.
	Experiments() []Experiment
}

// Bounds computes a method's certificate from declared constants: what "audit bounds
// NAME" prints. A front end makes a flag of each Param and a --variant flag choosing
// among Variants (the first is the default), then calls Compute.
type Bounds struct {
	About    string    // a paragraph for the help: the paper and what is computed
	Example  string    // the flags of a typical call, for the help
	Variants []Variant // the theorems it can apply; the first is the default
	Params   []Param
	// Compute returns the certificate's rows, in order. Its errors are bad input and name
	// the parameter at fault.
	Compute func(variant string, args Args) ([]Row, error)
}

// An Experiment is a paper's experiment "audit reproduce NAME" re-runs. Run computes and
// renders everything and returns it; the front end writes the files and prints, so an
// experiment that fails leaves nothing behind.
type Experiment struct {
	Name    string
	Summary string // one line (or two) for the list of experiments
	About   string // a paragraph for the help
	Params  []Param
	Run     func(ctx context.Context, env ExperimentEnv, args Args) (*Reproduced, error)
}

// ExperimentEnv is what the front end gives every experiment.
type ExperimentEnv struct {
	Out      string    // the directory the files will be written to, for the printed summary
	Version  string    // the tool's version, written into the results
	Progress io.Writer // where to say what is running
}

// A Variant is a named configuration of a method.
type Variant struct {
	Name    string
	Summary string
	// OneRunCost, when set, says why "demo --one-run" audits the variant only when
	// --variants names it: serving a one-run audit's m/2 deletions one by one costs
	// minutes.
	OneRunCost string
}

// Args are a method's settings by parameter name, as text, and which of them were given
// (the others hold their defaults). Its getters parse a value and name the parameter in
// their errors.
type Args struct {
	values map[string]string
	given  map[string]bool
}

// DefaultArgs holds every parameter at its default, none given.
func DefaultArgs(params []Param) Args {
	a := Args{values: map[string]string{}, given: map[string]bool{}}
	for _, p := range params {
		a.values[p.Name] = p.Default
	}
	return a
}

// Set gives a setting's value.
func (a Args) Set(name, value string) {
	a.values[name] = value
	a.given[name] = true
}

// Merge gives a the settings given in b (those b holds at their defaults are left alone).
func (a Args) Merge(b Args) {
	for name := range b.given {
		a.Set(name, b.values[name])
	}
}

// Given reports whether a setting was given rather than left at its default.
func (a Args) Given(name string) bool { return a.given[name] }

// Require returns one error per named setting that was not given, saying what needs it.
func (a Args) Require(what string, names ...string) []error {
	var errs []error
	for _, n := range names {
		if !a.given[n] {
			errs = append(errs, fmt.Errorf("--%s is required for %s", n, what))
		}
	}
	return errs
}

// Float parses the named setting as a number.
func (a Args) Float(name string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(a.values[name]), 64)
	if err != nil {
		return 0, fmt.Errorf("--%s %s: want a number", name, clip.Quote(a.values[name]))
	}
	return v, nil
}

// Int parses the named setting as an integer.
func (a Args) Int(name string) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(a.values[name]))
	if err != nil {
		return 0, fmt.Errorf("--%s %s: want an integer", name, clip.Quote(a.values[name]))
	}
	return v, nil
}

// Uint64 parses the named setting as a non-negative integer, e.g. a seed.
func (a Args) Uint64(name string) (uint64, error) {
	v, err := strconv.ParseUint(strings.TrimSpace(a.values[name]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("--%s %s: want a non-negative integer", name, clip.Quote(a.values[name]))
	}
	return v, nil
}

// Bool parses the named setting as a switch.
func (a Args) Bool(name string) (bool, error) {
	v, err := strconv.ParseBool(strings.TrimSpace(a.values[name]))
	if err != nil {
		return false, fmt.Errorf("--%s %s: want true or false", name, clip.Quote(a.values[name]))
	}
	return v, nil
}

// String returns the named setting.
func (a Args) String(name string) string { return a.values[name] }

// Audited is a subject with the checks that judge its trials. Check has one signature
// for every method.
type Audited struct {
	Subject Subject
	Check   func(ctx context.Context, results []TrialResult) ([]Finding, error)
	// Controls are negative controls: the same audit of mutants of the method with a known
	// bug, which it must FAIL. Run beside the subject (--controls), they show which real
	// bugs the audit catches on this data and trial count; one it does not catch is a
	// limit of the audit, reported as such. Empty when the method defines none.
	Controls []Control
}

// A Control is a mutant of an audited subject: its Bug in plain words, and the subject and
// check that audit it (the check is the real subject's own).
type Control struct {
	Name    string // short, e.g. "no-unlearning"
	Bug     string
	Audited Audited
}

// Mutant is a control's subject: Of with its unlearned run replaced by Run, a real bug
// planted; the claim and the retrain stay Of's. Its name and fingerprint add "~" and the
// bug, so its trials are never mixed with Of's. It runs its trials one at a time (it is
// never a BatchSubject), each through Run.
type Mutant struct {
	Of  Subject
	Bug string
	Run func(ctx context.Context, st reference.Streams) (reference.Release, error)
}

// Name is Of's name, "~", the bug.
func (m Mutant) Name() string { return m.Of.Name() + "~" + m.Bug }

// Params is Of's (0, unknown, when Of does not say): a control's models are the
// subject's, with a bug.
func (m Mutant) Params() int { return ParamsOf(m.Of) }

// Claim is Of's.
func (m Mutant) Claim() Claim { return m.Of.Claim() }

// Unlearned is the buggy run.
func (m Mutant) Unlearned(ctx context.Context, st reference.Streams) (reference.Release, error) {
	return m.Run(ctx, st)
}

// Retrained is Of's.
func (m Mutant) Retrained(ctx context.Context, st reference.Streams) (reference.Release, error) {
	return m.Of.Retrained(ctx, st)
}

// Fingerprint is Of's configuration and the bug.
func (m Mutant) Fingerprint() string {
	if f, ok := m.Of.(Fingerprinter); ok {
		return f.Fingerprint() + "~" + m.Bug
	}
	return "~" + m.Bug
}

// DemoSetup is what every method's demo subjects share: the data, the requests and the
// target, built once by NewDemoSetup.
type DemoSetup struct {
	All       *reference.Dataset // every record: 𝒟₀ and the held-out ones the requests add
	Data      *reference.Dataset // 𝒟₀, the data each method learns on
	Updates   []reference.Update // the requests, in order
	Deletions []int64            // the IDs the requests delete, in order
	Lambda    float64            // L2 weight of the logistic loss
	Radius    float64            // Θ's radius: holds every unconstrained minimiser
	Epsilon   float64
	Delta     float64
	Seed      uint64
	// Confidence and PowerAgainst configure the statistical checks (see EmpiricalRelease).
	Confidence   float64
	PowerAgainst float64
	// Attacks are the empirical attacks the checks run (nil: all).
	Attacks Attacks
	// Resamples, when set, are the bootstrap resamples the subjects' checks share
	// (CheckOptions.Resamples); nil shares nothing.
	Resamples *mia.Resamples
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Method{}
)

// Register makes a method known to the front ends. Registering two methods of one name,
// or a variant or parameter name another method already has, is a programmer error and
// panics.
func Register(m Method) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[m.Name()]; dup {
		panic(fmt.Sprintf("audit: method %q registered twice", m.Name()))
	}
	params := slices.Concat(m.DemoParams(), m.Bounds().Params)
	for _, e := range m.Experiments() {
		params = append(params, e.Params...)
	}
	for _, p := range params {
		if err := p.validate(); err != nil {
			panic(fmt.Sprintf("audit: method %q: %v", m.Name(), err))
		}
	}
	for _, other := range registry {
		for _, v := range m.DemoVariants() {
			if slices.ContainsFunc(other.DemoVariants(), func(o Variant) bool { return o.Name == v.Name }) {
				panic(fmt.Sprintf("audit: variant %q of method %q is also %q's", v.Name, m.Name(), other.Name()))
			}
		}
		for _, e := range m.Experiments() {
			if slices.ContainsFunc(other.Experiments(), func(o Experiment) bool { return o.Name == e.Name }) {
				panic(fmt.Sprintf("audit: experiment %q of method %q is also %q's", e.Name, m.Name(), other.Name()))
			}
		}
		for _, p := range m.DemoParams() {
			if slices.ContainsFunc(other.DemoParams(), func(o Param) bool { return o.Name == p.Name }) {
				panic(fmt.Sprintf("audit: parameter %q of method %q is also %q's", p.Name, m.Name(), other.Name()))
			}
		}
	}
	registry[m.Name()] = m
}

// Deregister removes a method; for tests that register a method of their own.
func Deregister(name string) {
	registryMu.Lock()
	defer registryMu.Unlock()
	delete(registry, name)
}

// Methods returns the registered methods in order of name.
func Methods() []Method {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]Method, 0, len(registry))
	for _, m := range registry {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Method) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// MethodOfVariant returns the method that offers the named demo variant.
func MethodOfVariant(variant string) (Method, bool) {
	for _, m := range Methods() {
		if slices.ContainsFunc(m.DemoVariants(), func(v Variant) bool { return v.Name == variant }) {
			return m, true
		}
	}
	return nil, false
}

// DemoVariantNames lists every registered demo variant, method by method.
func DemoVariantNames() []string {
	var out []string
	for _, m := range Methods() {
		for _, v := range m.DemoVariants() {
			out = append(out, v.Name)
		}
	}
	return out
}

// MethodNamed returns the registered method of that name.
func MethodNamed(name string) (Method, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	m, ok := registry[name]
	return m, ok
}

// ExperimentNamed returns the registered experiment of that name.
func ExperimentNamed(name string) (Experiment, bool) {
	for _, e := range AllExperiments() {
		if e.Name == name {
			return e, true
		}
	}
	return Experiment{}, false
}

// AllExperiments lists every registered method's experiments, method by method.
func AllExperiments() []Experiment {
	var out []Experiment
	for _, m := range Methods() {
		out = append(out, m.Experiments()...)
	}
	return out
}

// An ArgReader parses settings one after another and keeps every error, so that bad
// input is reported whole rather than one mistake per run.
type ArgReader struct {
	Args Args
	errs []error
}

// Float parses a number (0 on error).
func (r *ArgReader) Float(name string) float64 {
	v, err := r.Args.Float(name)
	r.Fail(err)
	return v
}

// Int parses an integer (0 on error).
func (r *ArgReader) Int(name string) int {
	v, err := r.Args.Int(name)
	r.Fail(err)
	return v
}

// Bool parses a switch (false on error).
func (r *ArgReader) Bool(name string) bool {
	v, err := r.Args.Bool(name)
	r.Fail(err)
	return v
}

// Require records an error for each named setting that was not given.
func (r *ArgReader) Require(what string, names ...string) {
	r.errs = append(r.errs, r.Args.Require(what, names...)...)
}

// Fail records err unless it is nil.
func (r *ArgReader) Fail(err error) {
	if err != nil {
		r.errs = append(r.errs, err)
	}
}

// Failf records an error.
func (r *ArgReader) Failf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf(format, args...))
}

// Ints parses a list setting of integers (Args.Ints), recording a failure.
func (r *ArgReader) Ints(name string) []int {
	v, err := r.Args.Ints(name)
	r.Fail(err)
	return v
}

// Err joins the errors recorded so far (nil if none).
func (r *ArgReader) Err() error { return errors.Join(r.errs...) }

// List splits a comma-separated setting, dropping empty items.
func (a Args) List(name string) []string {
	var out []string
	for _, f := range strings.Split(a.values[name], ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// Ints parses the named comma-separated setting as integers; an empty list is an error.
func (a Args) Ints(name string) ([]int, error) {
	var out []int
	for _, f := range a.List(name) {
		v, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("--%s: %s: want an integer", name, clip.Quote(f))
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--%s: name at least one value", name)
	}
	return out, nil
}

// Settings most experiments share.
var (
	SeedParam     = Param{Name: "seed", Usage: "root seed: the same inputs and seed give the same JSON, byte for byte", Default: "1"}
	WorkersParam  = Param{Name: "workers", Usage: "parallel runs (0: one per core)", Default: "0", Kind: Integer, Range: "[0, 1024]"}
	DatasetsParam = Param{Name: "datasets", Usage: "folder of the data sets, laid out as the repository's datasets/ (default: $UNLEARNAUDIT_DATASETS, else the copy built into the binary)"}
)

// The audit's own settings, declared once for the demo's flags and the spec file's fields.
var (
	TrialsParam = Param{Name: "trials", Usage: "trials per audited method", Default: "200",
		Kind: Integer, Range: fmt.Sprintf("[%d, %d]", MinEmpiricalTrials, MaxTrials)}
	ConfidenceParam   = Param{Name: "confidence", Usage: "confidence level of the statistical checks", Default: "0.95", Kind: Number, Range: "(0, 1)"}
	PowerAgainstParam = Param{Name: "power-against", Usage: "an empirical PASS must catch, with 80 % power, a Gaussian pair at this multiple F of the claimed ε",
		Default: strconv.FormatFloat(DefaultPowerAgainst, 'g', -1, 64), Kind: Number, Range: "(1, 1000]"}
	LambdaParam  = Param{Name: "lambda", Usage: "L2 weight λ of the logistic loss (its strong convexity)", Default: "0.05", Kind: Number, Range: "(0, inf)"}
	EpsilonParam = Param{Name: "epsilon", Usage: "target ε", Default: "1", Kind: Number, Range: "(0, inf)"}
	DeltaParam   = Param{Name: "delta", Usage: "target δ", Default: "1e-6", Kind: Number, Range: "(0, 1)"}
)

// Choose parses a setting that names one of several options: the value paired with the
// name given, or an error listing the names ("want paper or exact-shift").
func Choose[T any](a Args, name string, names []string, values []T) (T, error) {
	for i, n := range names {
		if a.values[name] == n {
			return values[i], nil
		}
	}
	var zero T
	return zero, fmt.Errorf("--%s %s: want %s", name, clip.Quote(a.values[name]), orList(names))
}
