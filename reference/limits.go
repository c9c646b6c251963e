package reference

import "fmt"

// MaxValues is the one cap on what the toolkit holds, whatever a file claims: the float64
// values of one dense matrix — a dense dataset (rows × features), a matrix file, or the
// models an audit keeps per side (trials × parameters) — and so also the dimension of any
// model. The default, 1<<27, is 1 GiB per matrix. The CLI raises it with --max-values;
// library users may set it before loading (it is read, not locked: set it once, early).
//
// Loaders grow with the bytes they read, never with what a header announces, so a file
// that claims more than it holds costs only what it holds; MaxValues bounds what a file
// that really holds that much may ask for.
var MaxValues = 1 << 27

// LimitError is a refusal by MaxValues: what asked for how many values.
type LimitError struct {
	What       string // e.g. "dense features", "stored trial models"
	Rows, Cols int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: %d × %d values exceed the cap of %d (reference.MaxValues, %.3g GB of float64; raise it with --max-values)",
		e.What, e.Rows, e.Cols, MaxValues, float64(MaxValues)*8/1e9)
}

// CheckValues returns a *LimitError when a rows × cols matrix of float64 would exceed
// MaxValues. It does not overflow for any non-negative counts.
func CheckValues(what string, rows, cols int) error {
	if rows < 0 || cols < 0 || (rows > 0 && cols > MaxValues/rows) {
		return &LimitError{What: what, Rows: rows, Cols: cols}
	}
	return nil
}
