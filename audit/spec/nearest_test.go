package spec

import "testing"

// editDistance is Levenshtein's, by runes; nearestMethod the one method within two edits
// of a name (case aside), none where two tie or none is near. Planted and caught: a
// substitution costing nothing (every same-length name at distance 0), ties not refused.
func TestNearestMethod(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"kitten", "sitting", 3}, {"", "abc", 3}, {"abc", "", 3}, {"abc", "abc", 0}, {"ü", "u", 1}, {"d2dd", "d2d", 1}, {"flaw", "lawn", 2}} {
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	for _, c := range []struct{ name, want string }{
		{"D2D", "d2d"}, {"sgl", "sglu"}, {"sfe", "safe"}, {"HFF", "hf"}, {"olu2", "olu"},
		{"xyz", ""}, // nothing within two edits
		{"sfu", ""}, // safe and sglu both two edits away
		{"newton", ""},
	} {
		if got := nearestMethod(c.name); got != c.want {
			t.Errorf("nearestMethod(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}
