package audit

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/unlearnaudit/unlearnaudit/reference"
)

// A Method is one unlearning method's audit, as the toolkit's front ends drive it. Every
// method's audit package (d2daudit, sgluaudit, …) implements it and registers it with
// Register; the CLI looks methods up and holds no method-specific code, so a new method
// adds no file under cmd/.
type Method interface {
	// Name is the method's short name, e.g. "d2d"; subjects are named "name/…".
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
}

// A Variant is a named configuration of a method.
type Variant struct {
	Name    string
	Summary string
}

// A Param is a setting a method declares; front ends read it as text (a flag's value)
// and the method parses it with Args.
type Param struct {
	Name    string // the flag's name, unique across methods
	Usage   string // what it sets, with its unit
	Default string // as typed on a command line
}

// Args are a method's settings by parameter name, as text. Its getters parse a value and
// name the parameter in their errors.
type Args map[string]string

// Float parses the named setting as a number.
func (a Args) Float(name string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(a[name]), 64)
	if err != nil {
		return 0, fmt.Errorf("--%s %q: want a number", name, a[name])
	}
	return v, nil
}

// Int parses the named setting as an integer.
func (a Args) Int(name string) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(a[name]))
	if err != nil {
		return 0, fmt.Errorf("--%s %q: want an integer", name, a[name])
	}
	return v, nil
}

// String returns the named setting.
func (a Args) String(name string) string { return a[name] }

// Audited is a subject with the checks that judge its trials. Check has one signature
// for every method.
type Audited struct {
	Subject Subject
	Check   func(ctx context.Context, results []TrialResult) ([]Finding, error)
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
	for _, other := range registry {
		for _, v := range m.DemoVariants() {
			if slices.ContainsFunc(other.DemoVariants(), func(o Variant) bool { return o.Name == v.Name }) {
				panic(fmt.Sprintf("audit: variant %q of method %q is also %q's", v.Name, m.Name(), other.Name()))
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
