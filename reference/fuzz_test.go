package reference

import (
	"bytes"
	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"gonum.org/v1/gonum/mat"
	"math"
	"strings"
	"testing"
)

// checkParsed asserts the invariant every parser keeps: an error, or a dataset whose values
// are all finite with IDs 0..n−1.
func checkParsed(t *testing.T, ds *Dataset, err error) {
	t.Helper()
	if err != nil {
		if ds != nil {
			t.Fatal("a parser returned both a dataset and an error")
		}
		return
	}
	for i := range ds.Len() {
		if ds.ID(i) != int64(i) {
			t.Fatalf("row %d has ID %d", i, ds.ID(i))
		}
		var x []float64
		if sp := ds.Sparse(); sp != nil { // not Row: a sparse row may be 10⁸ wide
			_, x = sp.Row(i)
		} else {
			x = ds.Row(i)
		}
		for _, v := range append(x, ds.Label(i)) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite value %v accepted", v)
			}
		}
	}
}

// checkAllocation asserts that parsing k input bytes allocated O(k): at most perByte
// bytes per input byte above a fixed overhead (buffers of the readers). perByte is each
// format's worst case: a one-byte value ("1,") becomes an 8-byte float64, doubled by
// append's growth and once more by the final dataset's copy.
func checkAllocation(t *testing.T, k int, perByte int, bytes uint64) {
	t.Helper()
	const overhead = 1 << 20
	if limit := uint64(perByte*k + overhead); bytes > limit {
		t.Fatalf("parsing %d bytes allocated %d bytes; want at most %d·k + %d = %d", k, bytes, perByte, overhead, limit)
	}
}

func FuzzParseCSV(f *testing.F) {
	f.Add("1,2,1\n3,4,-1\n", true, -1)
	f.Add("a,b\n1,2\n", true, 0)
	f.Add("1,\"2\",3\n", false, 1)
	f.Fuzz(func(t *testing.T, in string, header bool, label int) {
		var (
			ds  *Dataset
			err error
		)
		n := testenv.Allocated(func() {
			ds, err = ParseCSV(strings.NewReader(in), "fuzz.csv", CSVOptions{Header: header, LabelColumn: label})
		})
		checkParsed(t, ds, err)
		checkAllocation(t, len(in), 64, n)
	})
}

func FuzzParseSklearnCSV(f *testing.F) {
	f.Add("2,2,a,b\n1,2,0\n3,4,1\n")
	f.Add("1,1\n5,0\n")
	f.Add("16777216,16\n1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,0\n") // a header claiming 2 GiB
	f.Fuzz(func(t *testing.T, in string) {
		var (
			ds  *Dataset
			err error
		)
		n := testenv.Allocated(func() { ds, err = ParseSklearnCSV(strings.NewReader(in), "fuzz.csv", Limits{}) })
		checkParsed(t, ds, err)
		checkAllocation(t, len(in), 64, n)
	})
}

func FuzzParseLIBSVM(f *testing.F) {
	f.Add("+1 1:0.5 3:-1\n-1 2:2\n")
	f.Add("1 1:1e308 2:-1e308\n")
	f.Add("+1 1:0.1 60000:0.5\n-1 1:0.2 60000:0.5\n")        // wide: kept sparse
	f.Add(strings.Repeat("+1 1048576:1\n-1 1048576:1\n", 2)) // the 3.3 KB file's lines
	f.Add("1 134217729:1\n")                                 // one past MaxValues
	f.Fuzz(func(t *testing.T, in string) {
		var (
			ds  *Dataset
			err error
		)
		n := testenv.Allocated(func() { ds, err = ParseLIBSVM(strings.NewReader(in), "fuzz", LIBSVMOptions{}) })
		checkParsed(t, ds, err)
		// an entry "1:1 " (4 bytes) is 12 bytes stored, doubled by append; the dense form is
		// chosen only when n·d ≤ 3·entries, so it is at most 6 bytes per input byte
		checkAllocation(t, len(in), 64, n)
	})
}

func FuzzParseIDX(f *testing.F) {
	im, lb := idx(2, 2, 2)
	f.Add(im, lb)
	f.Add(im[:10], lb)
	// a 24-byte file claiming 3,158,064 images of 48 × 2 (2.4 GB if allocated up front)
	claim := []byte{0, 0, 8, 3, 0, 0x30, 0x30, 0x30, 0, 0, 0, 0x30, 0, 0, 0, 2, 1, 2, 3, 4, 5, 6, 7, 8}
	f.Add(claim, []byte{0, 0, 8, 1, 0, 0x30, 0x30, 0x30})
	f.Fuzz(func(t *testing.T, images, labels []byte) {
		var (
			ds  *Dataset
			err error
		)
		n := testenv.Allocated(func() { ds, err = ParseIDX(bytes.NewReader(images), "i", bytes.NewReader(labels), "l", Limits{}) })
		checkParsed(t, ds, err)
		// one pixel byte becomes a float64, doubled by append and copied once more
		checkAllocation(t, len(images)+len(labels), 64, n)
	})
}

func FuzzParseMatrixCSV(f *testing.F) {
	f.Add("1,2\n3,4\n")
	f.Add("1e308,-1e308\n")
	f.Fuzz(func(t *testing.T, in string) {
		var (
			m   *mat.Dense
			err error
		)
		n := testenv.Allocated(func() { m, err = ParseMatrixCSV(strings.NewReader(in), "fuzz.csv", Limits{}) })
		checkAllocation(t, len(in), 64, n)
		if err != nil {
			return
		}
		r, c := m.Dims()
		for i := range r {
			for j := range c {
				if v := m.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("non-finite value %v accepted", v)
				}
			}
		}
	})
}
