package reference

import (
	"fmt"
	"io"
)

// DefaultMaxValues is the cap a zero Limits applies: 1<<27 float64 values, 1 GiB per matrix.
const DefaultMaxValues = 1 << 27

// Limits are the caps a load applies, whatever a file claims. Every loader takes them (in
// its options, or as its last argument) and the audit's model stores check against them,
// so two loads with different caps may run side by side: the cap is the caller's, not the
// process's. The zero value is the default: the CLI passes its --max-values.
type Limits struct {
	// MaxValues is the one cap on what the toolkit holds: the float64 values of one dense
	// matrix — a dense dataset (rows × features), a matrix file, or the models an audit
	// keeps per side (trials × parameters) — and so also the dimension of any model.
	// 0 means DefaultMaxValues.
	//
	// Loaders grow with the bytes they read, never with what a header announces, so a
	// file that claims more than it holds costs only what it holds; MaxValues bounds what
	// a file that really holds that much may ask for.
	MaxValues int
}

// Values is the cap on one matrix's values: MaxValues, or DefaultMaxValues when it is 0
// or less.
func (l Limits) Values() int {
	if l.MaxValues <= 0 {
		return DefaultMaxValues
	}
	return l.MaxValues
}

// LimitError is a refusal by Limits.MaxValues: what asked for how many values, and the
// cap it passed.
type LimitError struct {
	What       string // e.g. "dense features", "stored trial models"
	Rows, Cols int
	Cap        int // the cap applied (Limits.Values)
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: %d × %d values exceed the cap of %d (reference.MaxValues, %.3g GB of float64; raise it with --max-values)",
		e.What, e.Rows, e.Cols, e.Cap, float64(e.Cap)*8/1e9)
}

// CheckValues returns a *LimitError when a rows × cols matrix of float64 would exceed the
// cap. It does not overflow for any non-negative counts.
func (l Limits) CheckValues(what string, rows, cols int) error {
	if c := l.Values(); rows < 0 || cols < 0 || (rows > 0 && cols > c/rows) {
		return &LimitError{What: what, Rows: rows, Cols: cols, Cap: c}
	}
	return nil
}

// Compressed inputs (gzip data files, .npz archives) are bounded twice before what they
// inflate to is parsed: by the value budget, at most InflatedBytesPerValue bytes a value
// (MaxInflatedBytes), and by the amplification, at most MaxInflation bytes out per byte
// in once past InflationGrace. Real files compress a few times (floats barely at all); a
// file inflating a thousandfold is a decompression bomb, refused by name as it starts, not
// after the gigabytes it would cost.
const (
	// MaxInflation is the largest ratio of inflated to compressed bytes read.
	MaxInflation = 100
	// InflationGrace is the inflated bytes allowed at any ratio: a small file of zeros
	// compresses far more than 100 to 1 and costs little. Past it, parsing what a bomb
	// inflates to (one endless CSV row of "0," costs 8 bytes a byte: a float64 a value, kept
	// twice) stays near 100 MB.
	InflationGrace = 1 << 20
	// InflatedBytesPerValue is the most bytes one value may take: a float64 written as
	// text in full (24 characters) with its separator, rounded up.
	InflatedBytesPerValue = 32
)

// MaxInflatedBytes is the value budget in inflated bytes: the cap's values of
// InflatedBytesPerValue bytes.
func (l Limits) MaxInflatedBytes() int64 { return InflatedBytesPerValue * int64(l.Values()) }

// An InflationError is a compressed input refused for what it inflates to.
type InflationError struct {
	File                 string
	Inflated, Compressed int64 // bytes, so far
	Limit                int64 // the bound passed
	Budget               bool  // the value budget (MaxInflatedBytes), else the ratio
	MaxValues            int   // the cap the budget came from (Limits.Values), when Budget
}

func (e *InflationError) Error() string {
	if e.Budget {
		return fmt.Sprintf("%s: inflates to more than %d bytes, the most that --max-values %d values may take (%d bytes a value); raise --max-values if the file is real",
			e.File, e.Limit, e.MaxValues, InflatedBytesPerValue)
	}
	return fmt.Sprintf("%s: inflates to %d bytes from %d compressed, more than %d to 1 (the limit for a compressed input past %d MiB): a decompression bomb, not a data or model file (a real one is read decompressed)",
		e.File, e.Inflated, e.Compressed, MaxInflation, InflationGrace>>20)
}

// CheckInflation refuses inflated bytes from compressed ones past either bound.
func (l Limits) CheckInflation(file string, inflated, compressed int64) error {
	if budget := l.MaxInflatedBytes(); inflated > budget {
		return &InflationError{File: file, Inflated: inflated, Compressed: compressed, Limit: budget, Budget: true, MaxValues: l.Values()}
	}
	if inflated > InflationGrace && inflated/MaxInflation > compressed {
		return &InflationError{File: file, Inflated: inflated, Compressed: compressed, Limit: MaxInflation * compressed}
	}
	return nil
}

// LimitInflation returns a reader of what z inflates, from compressed, the reader z reads
// its compressed bytes from (counted here): a read past either bound of CheckInflation
// returns its *InflationError, so a parser reading it stops at once.
func (l Limits) LimitInflation(file string, z io.Reader, compressed *CountingReader) io.Reader {
	return &inflationLimiter{lim: l, file: file, z: z, src: compressed}
}

type inflationLimiter struct {
	lim  Limits
	file string
	z    io.Reader
	src  *CountingReader
	n    int64
}

func (l *inflationLimiter) Read(p []byte) (int, error) {
	k, err := l.z.Read(p)
	l.n += int64(k)
	if e := l.lim.CheckInflation(l.file, l.n, l.src.N); e != nil {
		return 0, e
	}
	return k, err
}

// A CountingReader counts the bytes read through it.
type CountingReader struct {
	R io.Reader
	N int64
}

func (c *CountingReader) Read(p []byte) (int, error) {
	k, err := c.R.Read(p)
	c.N += int64(k)
	return k, err
}
