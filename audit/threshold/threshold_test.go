package threshold

import (
	"testing"
)

// The zero value is Split, the names read back as they print, and the strategies are
// distinct values (a fixed one carries its threshold).
func TestStrategies(t *testing.T) {
	if (Strategy{}) != Split {
		t.Error("the zero Strategy is not Split")
	}
	for _, s := range []Strategy{Split, Bonferroni} {
		got, err := Parse(s.String())
		if err != nil || got != s {
			t.Errorf("Parse(%q) = %v, %v; want %v", s.String(), got, err, s)
		}
		if _, fixed := s.Threshold(); fixed {
			t.Errorf("%v is fixed", s)
		}
	}
	if got, err := Parse(""); err != nil || got != Split {
		t.Errorf(`Parse("") = %v, %v; want split`, got, err)
	}
	if th, fixed := Fixed(3.5).Threshold(); !fixed || th != 3.5 || Fixed(3.5) == Fixed(2) || Fixed(0) == Split || Split == Bonferroni {
		t.Errorf("Fixed(3.5).Threshold() = %v, %v; or two strategies compare equal", th, fixed)
	}
	if s := Fixed(3.5).String(); s != "fixed threshold 3.5" {
		t.Errorf("Fixed(3.5).String() = %q", s)
	}
	if _, err := Parse("explicit"); err == nil || err.Error() != `unknown threshold strategy "explicit"; want split or bonferroni` {
		t.Errorf(`Parse("explicit"): %v`, err)
	}
}
