package cliflag

import (
	"flag"
	"slices"
	"testing"
)

// Set and Given name a flag typed by its old name as the flag it sets, list in name order
// and leave out what they are told to.
func TestSetAndGiven(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.Int("trials", 0, "")
	fs.String("out", "", "")
	fs.Float64("alpha", 0, "")
	Alias(fs, "n", "trials")
	if err := fs.Parse([]string{"--out=o", "--n=5", "--alpha=2"}); err != nil {
		t.Fatal(err)
	}
	if got := Set(fs); !got["trials"] || got["n"] || !got["out"] || len(got) != 3 {
		t.Errorf("Set = %v, want alpha, out and trials", got)
	}
	if got, want := Given(fs, "out"), []string{"--alpha=2", "--trials=5"}; !slices.Equal(got, want) {
		t.Errorf("Given = %q, want %q", got, want)
	}
}

// IfGiven points at the value of a flag given and is nil for one not given.
func TestIfGiven(t *testing.T) {
	eps := 2.0
	set := map[string]bool{"epsilon": true}
	if p := IfGiven(set, "epsilon", &eps); p != &eps {
		t.Errorf("IfGiven(given) = %v, want the value's pointer", p)
	}
	if p := IfGiven(set, "delta", &eps); p != nil {
		t.Errorf("IfGiven(not given) = %v, want nil", p)
	}
}
