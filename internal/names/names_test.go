package names

import (
	"slices"
	"strings"
	"testing"
)

// Names are trimmed and kept in order; an unknown, empty or repeated one is named.
func TestParse(t *testing.T) {
	known := []string{"a", "b", "c"}
	got, err := Parse(" c, a ", known, "item", "a list of a, b, c")
	if err != nil || !slices.Equal(got, []string{"c", "a"}) {
		t.Fatalf("Parse = %v, %v", got, err)
	}
	for in, want := range map[string]string{"a,d": `item "d": want a list of a, b, c`, "b,b": `item "b" named twice`, "": `item "": want`} {
		if _, err := Parse(in, known, "item", "a list of a, b, c"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want %q", in, err, want)
		}
	}
}
