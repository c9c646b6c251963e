package audit

import (
	"flag"
	"strings"
	"testing"
)

// A Given setting records whether its flag was given, and Require names the missing one by
// the flag its Param declares: the requirement is stated by the field, never by a second
// spelling of the name.
func TestGivenSettingRecordsWhatWasGiven(t *testing.T) {
	var s struct {
		Radius, Sigma Given[float64]
		N             Given[int]
	}
	ss := []Setting{
		GivenSetting(&s.Radius, FloatSetting, Param{Name: "radius", Default: "0", Kind: Number}),
		GivenSetting(&s.Sigma, FloatSetting, Param{Name: "sigma", Default: "0.5", Kind: Number}),
		GivenSetting(&s.N, IntSetting, Param{Name: "n", Default: "0", Kind: Integer}),
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	args := BindFlags(fs, SettingParams(ss))
	if err := ParseFlags(fs, []string{"--radius", "2", "--n", "0"}); err != nil {
		t.Fatal(err)
	}
	if err := ReadSettings(args, ss); err != nil {
		t.Fatal(err)
	}
	if s.Radius != (Given[float64]{Value: 2, IsSet: true, flag: "radius"}) || s.Sigma != (Given[float64]{Value: 0.5, flag: "sigma"}) ||
		s.N != (Given[int]{Value: 0, IsSet: true, flag: "n"}) {
		t.Errorf("read %+v; want radius and n given (n at its default value), sigma not", s)
	}
	got := Require("--variant x", s.Radius, s.Sigma, s.N)
	if len(got) != 1 || got[0].Error() != "--sigma is required for --variant x" {
		t.Errorf("Require = %v; want only --sigma named", got)
	}
	var unread Given[int]
	if errs := Require("--variant x", unread); len(errs) != 1 || !strings.Contains(errs[0].Error(), "never read") {
		t.Errorf("Require of an unread setting = %v; want it refused as never read, not as \"--\"", errs)
	}
}

// A choice reads as the value paired with its name; values that do not pair with the
// declared choices are refused at declaration.
func TestChoiceSetting(t *testing.T) {
	var v int
	p := Param{Name: "pick", Default: "b", Kind: Choice, Choices: []string{"a", "b"}}
	ss := []Setting{ChoiceSetting(&v, p, []int{10, 20})}
	args := DefaultArgs(SettingParams(ss))
	if err := ReadSettings(args, ss); err != nil || v != 20 {
		t.Errorf("default: %d, %v; want 20", v, err)
	}
	args.Set("pick", "c")
	if err := ReadSettings(args, ss); err == nil || err.Error() != `--pick "c": want a or b` {
		t.Errorf("an unknown name: %v; want it refused with the choices", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("three values for two choices were accepted")
		}
	}()
	ChoiceSetting(&v, p, []int{1, 2, 3})
}

// A seed reads as a non-negative integer, its refusal naming the flag; a list drops empty
// items, as Args.List does.
func TestUint64AndListSettings(t *testing.T) {
	var seed uint64
	var list []string
	ss := []Setting{Uint64Setting(&seed, Param{Name: "seed", Default: "7"}), ListSetting(&list, Param{Name: "formats", Default: "svg,,png"})}
	args := DefaultArgs(SettingParams(ss))
	if err := ReadSettings(args, ss); err != nil || seed != 7 || strings.Join(list, "|") != "svg|png" {
		t.Errorf("defaults: %d %q %v; want 7 [svg png]", seed, list, err)
	}
	args.Set("seed", "-1")
	if err := ReadSettings(args, ss); err == nil || err.Error() != `--seed "-1": want a non-negative integer` {
		t.Errorf("a negative seed: %v; want it refused by name", err)
	}
}
