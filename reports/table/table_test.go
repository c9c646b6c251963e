package table

import (
	"encoding/json"
	"math"
	"testing"
)

// A Number survives JSON: finite values in Go's shortest round-trip form, ±Inf and NaN as
// strings, each read back to itself; anything else is refused, naming it.
func TestNumberJSON(t *testing.T) {
	for _, c := range []struct {
		n    Number
		want string
	}{
		{0.1, `0.1`}, {-3, `-3`}, {1e-300, `1e-300`}, {Number(math.Inf(1)), `"+Inf"`}, {Number(math.Inf(-1)), `"-Inf"`}, {Number(math.NaN()), `"NaN"`},
	} {
		b, err := json.Marshal(c.n)
		if err != nil || string(b) != c.want {
			t.Errorf("Marshal(%v) = %s, %v; want %s", float64(c.n), b, err, c.want)
			continue
		}
		var back Number
		if err := json.Unmarshal(b, &back); err != nil {
			t.Errorf("Unmarshal(%s): %v", b, err)
		} else if back != c.n && !(math.IsNaN(float64(back)) && math.IsNaN(float64(c.n))) {
			t.Errorf("Unmarshal(%s) = %v; want %v", b, float64(back), float64(c.n))
		}
	}
	var n Number
	if err := json.Unmarshal([]byte(`"Inf"`), &n); err == nil {
		t.Errorf(`"Inf" read as %v; want it refused`, float64(n))
	}
}

// A cell shows its text when it has one, else its value as tables print numbers: six
// significant digits, ±∞ spelled out and a dash for a value that does not apply.
func TestCellString(t *testing.T) {
	for _, c := range []struct {
		cell Cell
		want string
	}{
		{Cell{Value: 1.0 / 3}, "0.333333"}, {Cell{Value: 2, Text: "two"}, "two"}, {Cell{Value: Number(math.Inf(1))}, "+∞"},
		{Cell{Value: Number(math.Inf(-1))}, "−∞"}, {Cell{Value: Number(math.NaN())}, "—"},
	} {
		if got := c.cell.String(); got != c.want {
			t.Errorf("%+v shows %q; want %q", c.cell, got, c.want)
		}
	}
	if got := G10(math.Pi); got != "3.141592654" {
		t.Errorf("G10(π) = %q; want ten digits", got)
	}
}
