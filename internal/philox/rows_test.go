package philox

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// FillScaledWideRows's bad input panics with a message that names it (a dst too short for
// the rows, a negative d) or the stream's limit (d beyond 2³⁴ normals), before it writes
// anything. Planted and caught: the length check dropped (the runtime's slice bounds panic
// names neither).
func TestFillScaledWideRowsPanicsNamed(t *testing.T) {
	for _, c := range []struct {
		n, d, rows int
		want       string
	}{
		{10, 4, 3, "FillScaledWideRows: 3 rows of 4 values need 12, dst has 10"},
		{0, -1, 1, "FillScaledWideRows: 1 rows of -1"},
		{0, math.MaxInt, 0, "exceed a stream's"}, // past 2³⁴ normals where int has 64 bits
	} {
		if c.d == math.MaxInt && strconv.IntSize == 32 {
			continue // an int of 32 bits cannot reach a stream's end
		}
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, c.want) {
					t.Errorf("%d rows of %d into %d values: panic %q, want one containing %q", c.rows, c.d, c.n, msg, c.want)
				}
			}()
			FillScaledWideRows(make([]float64, c.n), c.d, 1, make([]uint64, c.rows), 0, 0)
		}()
	}
}
