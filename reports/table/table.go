package table

import (
	"fmt"
	"math"
	"strconv"
)

// Number is a float64 that survives JSON: finite values are numbers, ±Inf and NaN are the
// strings "+Inf", "-Inf" and "NaN".
type Number float64

// MarshalJSON writes finite values in Go's shortest round-trip form.
func (n Number) MarshalJSON() ([]byte, error) {
	f := float64(n)
	switch {
	case math.IsInf(f, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Inf"`), nil
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (n *Number) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"+Inf"`:
		*n = Number(math.Inf(1))
		return nil
	case `"-Inf"`:
		*n = Number(math.Inf(-1))
		return nil
	case `"NaN"`:
		*n = Number(math.NaN())
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("number %s: %w", b, err)
	}
	*n = Number(f)
	return nil
}

// Format formats a number for tables: six significant digits, ±∞ spelled out, "—" for NaN
// (a value that does not apply).
func Format(n Number) string {
	f := float64(n)
	switch {
	case math.IsInf(f, 1):
		return "+∞"
	case math.IsInf(f, -1):
		return "−∞"
	case math.IsNaN(f):
		return "—"
	}
	return fmt.Sprintf("%.6g", f)
}

// G10 formats a number to ten significant digits, +Inf as "+Inf": the precision of the
// command line's plain-text outputs.
func G10(v float64) string { return fmt.Sprintf("%.10g", v) }

// Value is a named number.
type Value struct {
	Name  string `json:"name"`
	Value Number `json:"value"`
}

// Row is a labelled row of cells.
type Row struct {
	Label string `json:"label"`
	Cells []Cell `json:"cells"`
}

// Cell is a computed value, shown as Text when set (else the value at full precision),
// with the paper's printed value and whether they agree as the caption says, and a list
// when the value summarises one (e.g. per-request epochs and their sum).
type Cell struct {
	Value Number `json:"value"`
	Text  string `json:"text,omitempty"`
	Paper string `json:"paper,omitempty"`
	Match *bool  `json:"match,omitempty"`
	List  []int  `json:"list,omitempty"`
}

// String is what the cell shows: its text, else its value.
func (c Cell) String() string {
	if c.Text != "" {
		return c.Text
	}
	return Format(c.Value)
}
