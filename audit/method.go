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

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reports"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/mia"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// A Method is one unlearning method's audit, as the toolkit's front ends drive it: a name
// and a line of help, and nothing else. What a method can do besides is said by the
// capability interfaces it implements, which the front ends discover by type assertion
// (as gonum's optimize discovers a Needser or a Statuser): a demo (Demoer), a certificate
// from declared constants (Certifier), the papers' experiments (Reproducer). A method
// implements the ones it has and no stub for the others.
//
// Every method's audit package (d2daudit, sgluaudit, …) registers its Method with
// MustRegister; the CLI looks methods up and holds no method-specific code, so a new
// method adds no file under cmd/ (docs/adding-a-method.md).
type Method interface {
	// Name is the method's short name, e.g. "d2d"; subjects are named "name/…", "audit
	// bounds name" computes its certificate, and its demo parameters are named "name-…".
	Name() string
	// Summary is one line for help output.
	Summary() string
}

// A Demoer is a method with a demo: subjects the toolkit builds on the demo's data and
// requests ("audit demo", a spec's "run", a recipe's retrains).
type Demoer interface {
	Method
	// DemoVariants are the variants the demo can audit, in their order of appearance.
	// Variant names are unique across methods: they are what --variants selects.
	DemoVariants() []Variant
	// DemoParams are the method's own demo settings; the CLI makes a flag of each, and a
	// spec file's method.params names them. Each is named "NAME-…" after the method
	// (Register refuses one that is not, unless UnprefixedParams lists it).
	DemoParams() []Param
	// Demo builds the subjects of the wanted variants (a subset of DemoVariants) on the
	// demo's data and requests, with the method's settings in args. Its setup may be
	// long (SAFE trains and retrains exactly after every round): it stops when ctx is
	// done and returns ctx's error.
	Demo(ctx context.Context, setup DemoSetup, variants []string, args Args) ([]Audited, error)
}

// A Certifier is a method whose certificate is computed from declared constants ("audit
// bounds NAME").
type Certifier interface {
	Method
	Bounds() Bounds
}

// A Reproducer is a method with experiments of its paper that "audit reproduce" re-runs.
type Reproducer interface {
	Method
	// Experiments are the experiments; their names are unique across methods.
	Experiments() []Experiment
}

// UnprefixedParams is implemented by a method whose demo parameters predate the rule that
// they carry the method's name as a prefix (d2d's "iterations" and "schedule", which spec
// files and command lines name): it lists them, and Register accepts exactly those
// without the prefix. A new method does not implement it.
type UnprefixedParams interface {
	UnprefixedParams() []string
}

// DemoVariantsOf is m's demo variants; none when m has no demo.
func DemoVariantsOf(m Method) []Variant {
	if d, ok := m.(Demoer); ok {
		return d.DemoVariants()
	}
	return nil
}

// DemoParamsOf is m's demo parameters; none when m has no demo.
func DemoParamsOf(m Method) []Param {
	if d, ok := m.(Demoer); ok {
		return d.DemoParams()
	}
	return nil
}

// ExperimentsOf is m's experiments; none when m is no Reproducer.
func ExperimentsOf(m Method) []Experiment {
	if r, ok := m.(Reproducer); ok {
		return r.Experiments()
	}
	return nil
}

// BoundsOf is m's certificate, and false when m computes none.
func BoundsOf(m Method) (Bounds, bool) {
	if c, ok := m.(Certifier); ok {
		return c.Bounds(), true
	}
	return Bounds{}, false
}

// RunDemo builds the subjects of m's wanted demo variants (Demoer.Demo); an error when m
// has no demo.
func RunDemo(ctx context.Context, m Method, setup DemoSetup, variants []string, args Args) ([]Audited, error) {
	d, ok := m.(Demoer)
	if !ok {
		return nil, fmt.Errorf("method %s has no demo", m.Name())
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return d.Demo(ctx, setup, variants, args)
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
	// the parameter at fault, or ctx's error when ctx is done first (a deletion capacity
	// searches up to n).
	Compute func(ctx context.Context, variant string, args Args) ([]verdict.Row, error)
}

// An Experiment is a paper's experiment "audit reproduce NAME" re-runs. Run computes it
// and returns the result as report values — tables, curves, findings and the figures it
// asks for (reports.Reproduction.Plot) — and renders nothing: the front end dates it,
// renders it (reports.Reproduction.Render), writes the files and prints, so an experiment
// that fails leaves nothing behind.
type Experiment struct {
	Name    string
	Summary string // one line (or two) for the list of experiments
	About   string // a paragraph for the help
	Params  []Param
	Run     func(ctx context.Context, env ExperimentEnv, args Args) (*reports.Reproduction, error)
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
	Subject trials.Subject
	Check   func(ctx context.Context, results []trials.TrialResult) ([]verdict.Finding, error)
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
	Of  trials.Subject
	Bug string
	Run func(ctx context.Context, st reference.Streams) (reference.Release, error)
}

// Name is Of's name, "~", the bug.
func (m Mutant) Name() string { return m.Of.Name() + "~" + m.Bug }

// Params is Of's (0, unknown, when Of does not say): a control's models are the
// subject's, with a bug.
func (m Mutant) Params() int { return trials.ParamsOf(m.Of) }

// Claim is Of's.
func (m Mutant) Claim() verdict.Claim { return m.Of.Claim() }

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
	if f, ok := m.Of.(trials.Fingerprinter); ok {
		return f.Fingerprint() + "~" + m.Bug
	}
	return "~" + m.Bug
}

// NoiseStream is Of's (trials.NoiseStreamer; "" when Of names none): a mutant's runs call
// Of's, so they draw Of's noise, and its checkpoints must name that stream as Of's do, or
// a control's trials of an old stream would be resumed beside the new one's.
func (m Mutant) NoiseStream() string {
	stream, _ := trials.NoiseStreamOf(m.Of)
	return stream
}

// UnnamedNoiseStream is Of's.
func (m Mutant) UnnamedNoiseStream() string {
	_, unnamed := trials.NoiseStreamOf(m.Of)
	return unnamed
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

// CheckOptions are the options every method's check takes from the demo: its confidence,
// seed, power target and attacks.
func (s DemoSetup) CheckOptions() CheckOptions {
	return CheckOptions{Confidence: s.Confidence, Seed: s.Seed, PowerAgainst: s.PowerAgainst, Attacks: s.Attacks, Resamples: s.Resamples}
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Method{}
)

// Register makes a method known to the front ends. It refuses, with an error naming the
// method and what is at fault, a method of a name already registered; a variant,
// experiment or demo parameter name another method already has; a demo parameter not
// named "NAME-…" after the method (unless UnprefixedParams lists it); and a parameter
// whose declaration does not read (its range, its default).
func Register(m Method) error {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[m.Name()]; dup {
		return fmt.Errorf("audit: method %q registered twice", m.Name())
	}
	if err := checkPrefixes(m); err != nil {
		return err
	}
	bounds, _ := BoundsOf(m)
	params := slices.Concat(DemoParamsOf(m), bounds.Params)
	for _, e := range ExperimentsOf(m) {
		params = append(params, e.Params...)
	}
	for _, p := range params {
		if err := p.validate(); err != nil {
			return fmt.Errorf("audit: method %q: %v", m.Name(), err)
		}
	}
	for _, other := range registry {
		for _, v := range DemoVariantsOf(m) {
			if slices.ContainsFunc(DemoVariantsOf(other), func(o Variant) bool { return o.Name == v.Name }) {
				return fmt.Errorf("audit: variant %q of method %q is also %q's", v.Name, m.Name(), other.Name())
			}
		}
		for _, e := range ExperimentsOf(m) {
			if slices.ContainsFunc(ExperimentsOf(other), func(o Experiment) bool { return o.Name == e.Name }) {
				return fmt.Errorf("audit: experiment %q of method %q is also %q's", e.Name, m.Name(), other.Name())
			}
		}
		for _, p := range DemoParamsOf(m) {
			if slices.ContainsFunc(DemoParamsOf(other), func(o Param) bool { return o.Name == p.Name }) {
				return fmt.Errorf("audit: parameter %q of method %q is also %q's", p.Name, m.Name(), other.Name())
			}
		}
	}
	registry[m.Name()] = m
	return nil
}

// MustRegister is Register for a method package's init, where a refusal is a programmer
// error: it panics with Register's error.
func MustRegister(m Method) {
	if err := Register(m); err != nil {
		panic(err.Error())
	}
}

// checkPrefixes refuses a demo parameter not named after its method: the demo's flags and
// a spec's method.params share one namespace across methods, and the prefix is what keeps
// two methods' settings apart. The exceptions a method lists (UnprefixedParams) must be
// demo parameters of its own that lack the prefix, so that the list cannot go stale.
func checkPrefixes(m Method) error {
	prefix := m.Name() + "-"
	var legacy []string
	if u, ok := m.(UnprefixedParams); ok {
		legacy = u.UnprefixedParams()
	}
	params := DemoParamsOf(m)
	for _, name := range legacy {
		if !slices.ContainsFunc(params, func(p Param) bool { return p.Name == name }) || strings.HasPrefix(name, prefix) {
			return fmt.Errorf("audit: method %q lists %q as an unprefixed demo parameter; it is none", m.Name(), name)
		}
	}
	for _, p := range params {
		if !strings.HasPrefix(p.Name, prefix) && !slices.Contains(legacy, p.Name) {
			return fmt.Errorf("audit: method %q: demo parameter %q: want its name to begin with %q (the demo's flags are shared by every method)", m.Name(), p.Name, prefix)
		}
	}
	return nil
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
func MethodOfVariant(variant string) (Demoer, bool) {
	for _, m := range Methods() {
		if d, ok := m.(Demoer); ok && slices.ContainsFunc(d.DemoVariants(), func(v Variant) bool { return v.Name == variant }) {
			return d, true
		}
	}
	return nil, false
}

// DemoVariantNames lists every registered demo variant, method by method.
func DemoVariantNames() []string {
	var out []string
	for _, m := range Methods() {
		for _, v := range DemoVariantsOf(m) {
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
		out = append(out, ExperimentsOf(m)...)
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
		Kind: Integer, Range: fmt.Sprintf("[%d, %d]", checks.MinEmpiricalTrials, trials.MaxTrials)}
	ConfidenceParam   = Param{Name: "confidence", Usage: "confidence level of the statistical checks", Default: "0.95", Kind: Number, Range: "(0, 1)"}
	PowerAgainstParam = Param{Name: "power-against", Usage: "an empirical PASS must catch, with 80 % power, a Gaussian pair at this multiple F of the claimed ε",
		Default: strconv.FormatFloat(verdict.DefaultPowerAgainst, 'g', -1, 64), Kind: Number, Range: "(1, 1000]"}
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
