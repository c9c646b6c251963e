package ars

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// FillWideRows32's bad input panics before it writes anything, with a message that names
// it (a dst too short for the rows, a negative d) or the stream's limit (d beyond a
// stream's 2³⁴ normals, checkLen's, as for every fill).
// Planted and caught: the length check dropped (the runtime's slice bounds panic names
// neither), and the stream's limit not checked (the cases past it, with no rows, then
// do not panic).
func TestFillWideRows32PanicsNamed(t *testing.T) {
	past := uint64(4*MaxBlocks + 1) // as int at run time: a constant would not compile where int has 32 bits
	for _, c := range []struct {
		n, d, rows int
		want       string
	}{
		{10, 4, 3, "FillWideRows32: 3 rows of 4 values need 12, dst has 10"},
		{0, -1, 1, "FillWideRows32: 1 rows of -1"},
		{0, math.MaxInt, 0, "ars: 9223372036854775807 values from group 0 exceed a stream's 536870912 groups of 32"},
		{0, int(past), 0, "17179869185 values from group 0 exceed a stream's"}, // one past its end
	} {
		if strings.Contains(c.want, "exceed") && strconv.IntSize == 32 {
			continue // an int of 32 bits cannot reach a stream's end
		}
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, c.want) {
					t.Errorf("%d rows of %d into %d values: panic %q, want one containing %q", c.rows, c.d, c.n, msg, c.want)
				}
			}()
			FillWideRows32(make([]float32, c.n), c.d, make([]uint64, c.rows), 0, 0)
		}()
	}
}

// A row of exactly a stream's 2³⁴ normals is allowed (the limit is not one short): with
// no rows it writes nothing and does not panic. Planted: the limit checked with ≥ fails it.
func TestFillWideRows32AtAStreamsEnd(t *testing.T) {
	if strconv.IntSize == 32 {
		t.Skip("an int of 32 bits cannot reach a stream's end")
	}
	end := uint64(4 * MaxBlocks)
	FillWideRows32(nil, int(end), nil, 0, 0)
}
