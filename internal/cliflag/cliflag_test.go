package cliflag

import (
	"bytes"
	"flag"
	"io"
	"strings"
	"testing"
)

type kindValue struct{ v string }

func (k *kindValue) String() string      { return k.v }
func (k *kindValue) Set(s string) error  { k.v = s; return nil }
func (k *kindValue) Placeholder() string { return "N" }

func newSet() *flag.FlagSet {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Float64("power-against", 2, "the violation: a true ε of `F` × the claim")
	fs.String("out", "audit-report", "the folder (default: the spec's outputs.dir, else audit-report)")
	fs.String("label", "x", "a label")
	fs.Bool("controls", true, "also the controls, as run does by default")
	fs.Bool("quiet", false, "no progress")
	fs.Var(&kindValue{}, "trials", "trials per side")
	Alias(fs, "factor", "power-against")
	return fs
}

func TestPrint(t *testing.T) {
	var b bytes.Buffer
	Print(&b, newSet())
	got := b.String()
	for _, want := range []string{
		"  --power-against F\n    \tthe violation: a true ε of F × the claim (default 2)\n", // the back-quoted word names the value
		"  --trials N\n", // the value's Placeholder
		"  --controls\n    \talso the controls, as run does by default (default true)\n", // "by default" is not a default
		"  --quiet\n    \tno progress\n",                                                 // a zero default is not printed
		"  --label string\n    \ta label (default \"x\")\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("help lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "factor") {
		t.Errorf("the alias is shown:\n%s", got)
	}
	for _, block := range strings.Split(got, "\n  --") {
		if strings.Count(block, "(default") > 1 {
			t.Errorf("a flag shows two defaults: %s", block)
		}
	}
}

func TestAliasParsesIntoTheFlag(t *testing.T) {
	fs := newSet()
	if err := fs.Parse([]string{"--factor", "3"}); err != nil {
		t.Fatal(err)
	}
	if v := fs.Lookup("power-against").Value.String(); v != "3" {
		t.Errorf("--factor 3 set --power-against to %s", v)
	}
	if c := Canonical(fs, "factor"); c != "power-against" {
		t.Errorf("Canonical(factor) = %q", c)
	}
	if c := Canonical(fs, "trials"); c != "trials" {
		t.Errorf("Canonical(trials) = %q", c)
	}
	if err := Conflicts(fs); err != nil {
		t.Errorf("one name given: %v", err)
	}
}

func TestConflicts(t *testing.T) {
	fs := newSet()
	if err := fs.Parse([]string{"--factor", "3", "--power-against", "4"}); err != nil {
		t.Fatal(err)
	}
	err := Conflicts(fs)
	if err == nil || !strings.Contains(err.Error(), "--factor and --power-against name the same setting") {
		t.Errorf("Conflicts: %v", err)
	}
}
