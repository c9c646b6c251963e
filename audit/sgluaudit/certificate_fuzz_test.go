package sgluaudit

import (
	"math"
	"strings"
	"testing"
)

// parseAlphaRange accepts exactly what it documents: "unbounded", or min:max with
// 1 < min ≤ max; anything it accepts round-trips through the range's fields, and every
// rejection names the flag.
func FuzzParseAlphaRange(f *testing.F) {
	for _, s := range []string{"2:1e5", "unbounded", "2:inf", "1:2", "0.5:2", "3:2", ":", "", "2:NaN", "1e308:inf"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := parseAlphaRange(s)
		if err != nil {
			if !strings.Contains(err.Error(), "--alpha-range") {
				t.Fatalf("%q: error does not name the flag: %v", s, err)
			}
			return
		}
		if s == "unbounded" {
			return
		}
		if !(r.Min > 1 && r.Max >= r.Min) || math.IsNaN(r.Min) || math.IsNaN(r.Max) {
			t.Fatalf("%q accepted as %+v", s, r)
		}
	})
}
