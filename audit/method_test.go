package audit_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	_ "github.com/unlearnaudit/unlearnaudit/audit/methods"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/retrain"
)

type stub struct {
	name        string
	variants    []audit.Variant
	params      []audit.Param
	experiments []audit.Experiment
	legacy      []string // UnprefixedParams
}

func (s stub) Name() string                  { return s.name }
func (s stub) Summary() string               { return "stub" }
func (s stub) DemoVariants() []audit.Variant { return s.variants }
func (s stub) DemoParams() []audit.Param     { return s.params }
func (s stub) Demo(context.Context, audit.DemoSetup, []string, audit.Args) ([]audit.Audited, error) {
	return nil, nil
}
func (s stub) Bounds() audit.Bounds            { return audit.Bounds{} }
func (s stub) Experiments() []audit.Experiment { return s.experiments }
func (s stub) UnprefixedParams() []string      { return s.legacy }

// core is a method with no capability: a name and a summary.
type core struct{}

func (core) Name() string    { return "core" }
func (core) Summary() string { return "a method with nothing but a name" }

// A method implements only the capabilities it has: one with none registers, offers no
// variant, parameter, certificate or experiment, and its demo is refused by name.
func TestCoreMethod(t *testing.T) {
	if err := audit.Register(core{}); err != nil {
		t.Fatal(err)
	}
	defer audit.Deregister("core")
	m, ok := audit.MethodNamed("core")
	if !ok {
		t.Fatal("core not registered")
	}
	if _, ok := m.(audit.Demoer); ok {
		t.Fatal("core is a Demoer")
	}
	if v, p, e := audit.DemoVariantsOf(m), audit.DemoParamsOf(m), audit.ExperimentsOf(m); v != nil || p != nil || e != nil {
		t.Errorf("core offers %v, %v, %v", v, p, e)
	}
	if _, ok := audit.BoundsOf(m); ok {
		t.Error("core computes a certificate")
	}
	if _, err := audit.RunDemo(context.Background(), m, audit.DemoSetup{}, nil, audit.Args{}); err == nil || !strings.Contains(err.Error(), "core has no demo") {
		t.Errorf("RunDemo(core): %v; want a refusal naming the method", err)
	}
	if d, ok := audit.MethodOfVariant("strongly-convex"); !ok || d.Name() != "d2d" {
		t.Errorf("MethodOfVariant(strongly-convex) = %v, %v", d, ok)
	}
}

// The demo's flags and a spec's method.params are one namespace shared by every method:
// Register refuses a demo parameter not named after its method, naming it, and an
// exception list (UnprefixedParams) that names anything but an unprefixed demo parameter
// of the method. (Planted bug seen caught: checkPrefixes returning nil fails the first
// three cases.)
func TestRegisterEnforcesThePrefix(t *testing.T) {
	for _, c := range []struct {
		m    stub
		want string
	}{
		{stub{name: "x", params: []audit.Param{{Name: "x-ok"}, {Name: "batch"}}}, `method "x": demo parameter "batch": want its name to begin with "x-"`},
		{stub{name: "x", params: []audit.Param{{Name: "xbatch"}}}, `demo parameter "xbatch"`},
		{stub{name: "x", params: []audit.Param{{Name: "x-batch"}}, legacy: []string{"x-batch"}}, `lists "x-batch" as an unprefixed demo parameter`},
		{stub{name: "x", legacy: []string{"gone"}}, `lists "gone" as an unprefixed demo parameter`},
		{stub{name: "x", params: []audit.Param{{Name: "iterations"}}, legacy: []string{"iterations"}}, `parameter "iterations" of method "x" is also "d2d"'s`},
	} {
		if err := audit.Register(c.m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Register(%s %v): %v, want %q", c.m.name, c.m.params, err, c.want)
		}
		audit.Deregister("x") // a case the check let through would otherwise refuse the next as a duplicate
	}
	// bounds and experiment parameters are flags of their own command: no prefix needed
	ok := stub{name: "y", params: []audit.Param{{Name: "y-batch"}}, experiments: []audit.Experiment{{Name: "y-e", Params: []audit.Param{{Name: "trials"}}}}}
	if err := audit.Register(ok); err != nil {
		t.Errorf("Register(y): %v", err)
	}
	audit.Deregister("y")
	for _, m := range audit.Methods() {
		for _, p := range audit.DemoParamsOf(m) {
			if !strings.HasPrefix(p.Name, m.Name()+"-") && m.Name() != "d2d" {
				t.Errorf("%s: demo parameter %q without the prefix", m.Name(), p.Name)
			}
		}
	}
}

func panics(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = r.(string)
		}
	}()
	f()
	return ""
}

func TestRegistry(t *testing.T) {
	var names []string
	for _, m := range audit.Methods() {
		names = append(names, m.Name())
	}
	if !slices.Equal(names, []string{"d2d", "hf", "olu", "safe", "sglu"}) {
		t.Fatalf("registered methods %v; want d2d, hf, olu, safe and sglu, in order of name", names)
	}
	if m, ok := audit.MethodOfVariant("distributed"); !ok || m.Name() != "d2d" {
		t.Errorf("variant distributed belongs to %v", m)
	}
	if _, ok := audit.MethodOfVariant("nope"); ok {
		t.Error("an unknown variant was found")
	}
	for _, c := range []struct {
		m    stub
		want string
	}{
		{stub{name: "d2d"}, `method "d2d" registered twice`},
		{stub{name: "x", variants: []audit.Variant{{Name: "perfect"}}}, `variant "perfect" of method "x" is also "d2d"'s`},
		{stub{name: "sglu", params: []audit.Param{{Name: "sglu-batch"}}}, `method "sglu" registered twice`},
		{stub{name: "x", experiments: []audit.Experiment{{Name: "sglu-table3"}}}, `experiment "sglu-table3" of method "x" is also "sglu"'s`},
		{stub{name: "x", params: []audit.Param{{Name: "x-p", Kind: audit.Integer, Range: "[1, 2"}}}, `parameter "x-p": interval "[1, 2"`},
		{stub{name: "x", params: []audit.Param{{Name: "x-p", Kind: audit.Integer, Default: "1.5"}}}, `its default "1.5": want an integer`},
		{stub{name: "x", params: []audit.Param{{Name: "x-p", Kind: audit.Choice}}}, `parameter "x-p": a choice without choices`},
		{stub{name: "x", params: []audit.Param{{Name: "x-p", Range: "[0, 1]"}}}, `a range on a parameter that is not a number`},
	} {
		if err := audit.Register(c.m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Register(%s): %v, want %q", c.m.name, err, c.want)
		}
	}
	if msg := panics(func() { audit.MustRegister(stub{name: "d2d"}) }); !strings.Contains(msg, "registered twice") {
		t.Errorf("MustRegister of a refused method: panic %q; want Register's error", msg)
	}
	if err := audit.Register(stub{name: "aaa", variants: []audit.Variant{{Name: "a1"}}}); err != nil {
		t.Fatal(err)
	}
	if got := audit.DemoVariantNames(); got[0] != "a1" {
		t.Errorf("variants %v; want the new method's first", got)
	}
	audit.Deregister("aaa")
	if len(audit.Methods()) != len(names) {
		t.Error("Deregister left the method registered")
	}
}

func TestArgsNameTheFlag(t *testing.T) {
	a := audit.DefaultArgs([]audit.Param{{Name: "n", Default: "12"}, {Name: "x", Default: "1e-3"}, {Name: "bad", Default: "twelve"}})
	if n, err := a.Int("n"); err != nil || n != 12 {
		t.Errorf("Int(n) = %v, %v", n, err)
	}
	if x, err := a.Float("x"); err != nil || x != 1e-3 {
		t.Errorf("Float(x) = %v, %v", x, err)
	}
	a.Set("ns", " 4, ,5 ")
	if ns, err := a.Ints("ns"); err != nil || !slices.Equal(ns, []int{4, 5}) {
		t.Errorf("Ints(ns) = %v, %v", ns, err)
	}
	a.Set("ns", "4,x")
	if _, err := a.Ints("ns"); err == nil || !strings.Contains(err.Error(), `--ns: "x"`) {
		t.Errorf("Ints(4,x): %v", err)
	}
	a.Set("ns", " , ")
	if _, err := a.Ints("ns"); err == nil {
		t.Error("Ints of an empty list: no error")
	}
	for _, f := range []func() error{
		func() error { _, err := a.Int("bad"); return err },
		func() error { _, err := a.Float("bad"); return err },
	} {
		if err := f(); err == nil || !strings.Contains(err.Error(), `--bad "twelve"`) {
			t.Errorf("error %v does not name the flag and its value", err)
		}
	}
}

// Args know which settings were given; Require names each missing one and what needs
// it; an ArgReader reports every bad value at once.
func TestArgsGivenAndRequired(t *testing.T) {
	a := audit.DefaultArgs([]audit.Param{{Name: "n", Default: "0"}, {Name: "on", Default: "false", Bool: true}, {Name: "list", Default: " a, ,b "}})
	if a.Given("n") {
		t.Error("a default counts as given")
	}
	a.Set("n", "5")
	if !a.Given("n") {
		t.Error("a set value is not given")
	}
	errs := a.Require("--variant v", "n", "on", "list")
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), "--on is required for --variant v") {
		t.Errorf("Require: %v", errs)
	}
	if l := a.List("list"); !slices.Equal(l, []string{"a", "b"}) {
		t.Errorf("List = %q", l)
	}
	if on, err := a.Bool("on"); err != nil || on {
		t.Errorf("Bool(on) = %v, %v", on, err)
	}
	a.Set("on", "maybe")
	a.Set("list", "x")
	r := audit.ArgReader{Args: a}
	r.Bool("on")
	r.Int("list")
	r.Float("n")
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "--on") || !strings.Contains(err.Error(), "--list") || strings.Contains(err.Error(), "--n ") {
		t.Errorf("ArgReader: %v; want both bad values named, and only those", err)
	}
	if _, err := a.Uint64("n"); err != nil {
		t.Error(err)
	}
	a.Set("n", "-1")
	if _, err := a.Uint64("n"); err == nil {
		t.Error("a negative seed was accepted")
	}
}

// A certificate is computed through its flags: --variant picks among the declared
// variants (the first by default, an unknown one refused with the choices), and BindFlags
// fills Args from flags, switches included.
func TestBoundsRun(t *testing.T) {
	b := audit.Bounds{
		Variants: []audit.Variant{{Name: "first"}, {Name: "second"}},
		Params:   []audit.Param{{Name: "k", Default: "2"}, {Name: "loud", Bool: true, Default: "false"}},
		Compute: func(_ context.Context, variant string, args audit.Args) ([]verdict.Row, error) {
			k, err := args.Int("k")
			if err != nil {
				return nil, err
			}
			loud, _ := args.Bool("loud")
			return []verdict.Row{{Key: "variant", Value: variant}, {Key: "k", Value: k}, {Key: "loud", Value: loud}, {Key: "k_given", Value: args.Given("k")}}, nil
		},
	}
	rows, err := b.Run(context.Background(), []string{"--loud", "--k", "7"})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"first", 7, true, true}
	for i, r := range rows {
		if r.Value != want[i] {
			t.Errorf("%s = %v, want %v", r.Key, r.Value, want[i])
		}
	}
	if rows, _ := b.Run(context.Background(), nil); rows[1].Value != 2 || rows[3].Value != false {
		t.Errorf("defaults: %v", rows)
	}
	if _, err := b.Run(context.Background(), []string{"--variant", "third"}); err == nil || !strings.Contains(err.Error(), "want one of first, second") {
		t.Errorf("unknown variant: %v", err)
	}
	if _, err := b.Run(context.Background(), []string{"--k", "x"}); err == nil || !strings.Contains(err.Error(), "--k") {
		t.Errorf("bad value: %v", err)
	}
}

// NewDemoSetup: three deletions and two additions, alternating; by default the first
// deletion is the record with the largest gradient at the exact minimiser; bad --delete
// values are refused with the ID named.
func TestNewDemoSetup(t *testing.T) {
	ds, err := reference.SyntheticClassification(60, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	cfg := audit.DemoConfig{Lambda: 0.1, Epsilon: 1, Delta: 1e-6, Seed: 3}
	s, err := audit.NewDemoSetup(ds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []reference.UpdateKind
	for _, u := range s.Updates {
		kinds = append(kinds, u.Kind)
	}
	want := []reference.UpdateKind{reference.Delete, reference.Add, reference.Delete, reference.Add, reference.Delete}
	if !slices.Equal(kinds, want) || len(s.Deletions) != 3 || s.Data.Len() != 58 {
		t.Fatalf("updates %v, deletions %v, 𝒟₀ of %d rows", s.Updates, s.Deletions, s.Data.Len())
	}
	loss := reference.Logistic{Lambda: 0.1}
	opt, err := retrain.Minimize(loss.Objective(s.Data), s.Radius, retrain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if row, _ := loss.Objective(s.Data).MostInfluential(opt.Theta); s.Data.ID(row) != s.Deletions[0] {
		t.Errorf("first deletion %d, the most influential record is %d", s.Deletions[0], s.Data.ID(row))
	}
	for _, c := range []struct {
		deletes []int64
		want    string
	}{{[]int64{999}, "record ID 999 is not in the dataset"}, {[]int64{4, 4}, "record ID 4 named twice"}} {
		cfg.Deletes = c.deletes
		if _, err := audit.NewDemoSetup(ds, cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--delete %v: %v, want %q", c.deletes, err, c.want)
		}
	}
}

// ConfigFingerprint changes with each part of a configuration, and only with them.
func TestConfigFingerprint(t *testing.T) {
	ds, err := reference.SyntheticClassification(10, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	other, err := reference.SyntheticClassification(10, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	ups := []reference.Update{reference.DeleteID(3)}
	recs := []reference.Record{{ID: 99, X: []float64{1, 0}, Y: 1}}
	base := trials.ConfigFingerprint("h", ds, ups, recs)
	if again := trials.ConfigFingerprint("h", ds, ups, recs); again != base {
		t.Fatal("the same configuration gave two fingerprints")
	}
	for name, fp := range map[string]string{
		"header":  trials.ConfigFingerprint("h2", ds, ups, recs),
		"data":    trials.ConfigFingerprint("h", other, ups, recs),
		"updates": trials.ConfigFingerprint("h", ds, []reference.Update{reference.DeleteID(4)}, recs),
		"records": trials.ConfigFingerprint("h", ds, ups, nil),
	} {
		if fp == base {
			t.Errorf("a different %s gave the same fingerprint", name)
		}
	}
}

// Choose maps a name to its value and lists the names when none matches.
func TestChoose(t *testing.T) {
	a := audit.DefaultArgs([]audit.Param{{Name: "pick", Default: "b"}})
	if v, err := audit.Choose(a, "pick", []string{"a", "b", "c"}, []int{1, 2, 3}); err != nil || v != 2 {
		t.Errorf("b → %v, %v", v, err)
	}
	a.Set("pick", "d")
	if _, err := audit.Choose(a, "pick", []string{"a", "b", "c"}, []int{1, 2, 3}); err == nil || err.Error() != `--pick "d": want a, b or c` {
		t.Errorf("d: %v", err)
	}
}

// Every demo subject and control says its models' dimension (trials.Dimensioned), which
// bounds its checkpoint lines (a sharded run records it, and a merge needs it), and says
// it right: no vector of a trial's releases is longer, and the published models have
// exactly that many coordinates.
func TestDemoSubjectsSayTheirDimension(t *testing.T) {
	ds, err := reference.SyntheticClassification(120, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	setup, err := audit.NewDemoSetup(ds, audit.DemoConfig{Lambda: 0.05, Epsilon: 1, Delta: 1e-6, Seed: 1, Confidence: 0.95, PowerAgainst: 2, Attacks: audit.Attacks{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, m := range audit.Methods() {
		var variants []string
		for _, v := range audit.DemoVariantsOf(m) {
			variants = append(variants, v.Name)
		}
		got, err := audit.RunDemo(ctx, m, setup, variants, audit.DefaultArgs(audit.DemoParamsOf(m)))
		if err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
		for _, a := range audit.WithControls(got, true) {
			s := a.Subject
			p := trials.ParamsOf(s)
			if p <= 0 {
				t.Errorf("%s: Params %d; want its dimension", s.Name(), p)
				continue
			}
			st := reference.Streams{Seed: 1, Trial: 0}
			u, err1 := s.Unlearned(ctx, st)
			r, err2 := s.Retrained(ctx, st)
			if err := errors.Join(err1, err2); err != nil {
				t.Fatalf("%s: %v", s.Name(), err)
			}
			for _, v := range [][]float64{u.Published, u.Secret, u.Coupled, r.Published, r.Secret, r.Coupled} {
				if len(v) > p {
					t.Errorf("%s: a release's vector of %d coordinates; Params says %d", s.Name(), len(v), p)
				}
			}
			if len(u.Published) != p || len(r.Published) != p {
				t.Errorf("%s: published %d and %d coordinates; Params says %d", s.Name(), len(u.Published), len(r.Published), p)
			}
		}
	}
}
