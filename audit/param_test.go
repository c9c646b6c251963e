package audit_test

import (
	"errors"
	"flag"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit"
)

func TestParamCheck(t *testing.T) {
	trials := audit.Param{Name: "trials", Kind: audit.Integer, Range: "[8, 1e6]"}
	sigma := audit.Param{Name: "sigma", Kind: audit.Number, Range: "(0, inf)"}
	radius := audit.Param{Name: "radius", Kind: audit.Number, Range: "[0, inf]"}
	free := audit.Param{Name: "x", Kind: audit.Number}
	pabi := audit.Param{Name: "pabi", Kind: audit.Choice, Choices: []string{"paper", "exact-shift"}}
	for _, c := range []struct {
		p     audit.Param
		value string
		want  string // "" accepts
	}{
		{trials, "8", ""},
		{trials, "1000000", ""},
		{trials, "7", "--trials 7: want an integer in [8, 1e6]"},
		{trials, "1000001", "want an integer in [8, 1e6]"},
		{trials, "-1", "want an integer in [8, 1e6]"},
		{trials, "1e3", `--trials 1e3: want an integer`},
		{trials, "99999999999999999999", "overflows a " + strconv.Itoa(strconv.IntSize) + "-bit integer"},
		{sigma, "0", "--sigma 0: want a number in (0, inf)"},
		{sigma, "1e-320", ""}, // a subnormal is a number
		{sigma, "1e400", "--sigma 1e400: overflows float64"},
		{sigma, "+Inf", "want a number in (0, inf)"},
		{sigma, "NaN", "--sigma NaN: want a number"},
		{sigma, "abc", `--sigma "abc": want a number`},
		{radius, "+Inf", ""}, // a closed end at inf accepts it
		{free, "-1e300", ""},
		{free, "inf", "want a number in"}, // no range: any finite value
		{pabi, "exact-shift", ""},
		{pabi, "nope", `--pabi "nope": want paper or exact-shift`},
	} {
		err := c.p.Check(c.value)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %q: refused: %v", c.p.Name, c.value, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %q: error %v, want %q", c.p.Name, c.value, err, c.want)
		}
	}
}

func TestParseRange(t *testing.T) {
	for _, c := range []struct {
		s        string
		in, out  []float64
		malforms bool
	}{
		{s: "[1, 2]", in: []float64{1, 1.5, 2}, out: []float64{0.999, 2.001}},
		{s: "(1, 2)", in: []float64{1.5}, out: []float64{1, 2}},
		{s: "(0, inf]", in: []float64{1e308, inf()}, out: []float64{0, -1}},
		{s: "[2, 1]", malforms: true},
		{s: "1, 2", malforms: true},
		{s: "[1; 2]", malforms: true},
		{s: "[a, 2]", malforms: true},
	} {
		r, err := audit.ParseRange(c.s)
		if c.malforms {
			if err == nil {
				t.Errorf("%q parsed as %v", c.s, r)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", c.s, err)
		}
		for _, x := range c.in {
			if !r.Contains(x) {
				t.Errorf("%q excludes %v", c.s, x)
			}
		}
		for _, x := range c.out {
			if r.Contains(x) {
				t.Errorf("%q contains %v", c.s, x)
			}
		}
	}
}

func inf() float64 { v, _ := strconv.ParseFloat("inf", 64); return v }

// A front end's own flags (Var) and a method's (BindFlags) are refused as they are
// parsed, with the parameter's error, and keep their defaults when not given.
func TestVarAndParseFlags(t *testing.T) {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		trials  int
		conf    float64
		formats string
	)
	audit.Var(fs, &trials, audit.Param{Name: "trials", Default: "200", Kind: audit.Integer, Range: "[8, 1e6]"})
	audit.Var(fs, &conf, audit.Param{Name: "confidence", Default: "0.95", Kind: audit.Number, Range: "(0, 1)"})
	audit.Var(fs, &formats, audit.Param{Name: "formats", Default: "svg"})
	args := audit.BindFlags(fs, []audit.Param{{Name: "schedule", Default: "fixed", Kind: audit.Choice, Choices: []string{"fixed", "paper"}},
		{Name: "rounds", Default: "4,5", List: true, Kind: audit.Integer, Range: "[1, 100]"}})
	if trials != 200 || conf != 0.95 || formats != "svg" || args.String("schedule") != "fixed" {
		t.Fatalf("defaults %d %v %q %q", trials, conf, formats, args.String("schedule"))
	}
	if err := audit.ParseFlags(fs, []string{"--trials", "12", "--confidence", "0.9", "--formats", "png", "--schedule", "paper"}); err != nil {
		t.Fatal(err)
	}
	if trials != 12 || conf != 0.9 || formats != "png" || !args.Given("schedule") || args.String("schedule") != "paper" {
		t.Fatalf("parsed %d %v %q %q", trials, conf, formats, args.String("schedule"))
	}
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"--trials", "0"}, "--trials 0: want an integer in [8, 1e6]"},
		{[]string{"--confidence", "1"}, "--confidence 1: want a number in (0, 1)"},
		{[]string{"--schedule", "bogus"}, `--schedule "bogus": want fixed or paper`},
		{[]string{"--rounds", "3,0"}, `--rounds "3,0": element 2: want an integer in [1, 100] (a comma-separated list)`},
		{[]string{"--rounds", "3,x"}, `--rounds "3,x": element 2: want an integer (a comma-separated list)`},
	} {
		err := audit.ParseFlags(fs, c.argv)
		var pe *audit.ParamError
		if !errors.As(err, &pe) || err.Error() != c.want {
			t.Errorf("%v: error %v, want %q", c.argv, err, c.want)
		}
	}
	// an error that is not a refusal is the flag package's own, not a stale refusal
	if err := audit.ParseFlags(fs, []string{"--nope"}); err == nil || strings.Contains(err.Error(), "want") {
		t.Errorf("unknown flag: %v", err)
	}
}

// Every numeric setting of every registered method declares its kind, so that its range
// is checked where it is given: a default that reads as a number on a Text parameter is a
// declaration someone forgot (the seed, a uint64, is the one exception).
func TestEveryNumericParamIsDeclared(t *testing.T) {
	for _, m := range audit.Methods() {
		b, _ := audit.BoundsOf(m)
		params := append(audit.DemoParamsOf(m), b.Params...)
		for _, e := range audit.ExperimentsOf(m) {
			params = append(params, e.Params...)
		}
		for _, p := range params {
			if _, err := strconv.ParseFloat(p.Default, 64); err == nil && p.Kind == audit.Text && !p.Bool && p.Name != "seed" {
				t.Errorf("%s: --%s (default %s) is declared as text; give it Kind and Range", m.Name(), p.Name, p.Default)
			}
		}
	}
}
