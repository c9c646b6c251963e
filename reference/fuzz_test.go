package reference

import (
	"bytes"
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
		for _, v := range append(ds.Row(i), ds.Label(i)) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite value %v accepted", v)
			}
		}
	}
}

func FuzzParseCSV(f *testing.F) {
	f.Add("1,2,1\n3,4,-1\n", true, -1)
	f.Add("a,b\n1,2\n", true, 0)
	f.Add("1,\"2\",3\n", false, 1)
	f.Fuzz(func(t *testing.T, in string, header bool, label int) {
		ds, err := ParseCSV(strings.NewReader(in), "fuzz.csv", CSVOptions{Header: header, LabelColumn: label})
		checkParsed(t, ds, err)
	})
}

func FuzzParseSklearnCSV(f *testing.F) {
	f.Add("2,2,a,b\n1,2,0\n3,4,1\n")
	f.Add("1,1\n5,0\n")
	f.Fuzz(func(t *testing.T, in string) {
		ds, err := ParseSklearnCSV(strings.NewReader(in), "fuzz.csv")
		checkParsed(t, ds, err)
	})
}

func FuzzParseLIBSVM(f *testing.F) {
	f.Add("+1 1:0.5 3:-1\n-1 2:2\n")
	f.Add("1 1:1e308 2:-1e308\n")
	f.Fuzz(func(t *testing.T, in string) {
		ds, err := ParseLIBSVM(strings.NewReader(in), "fuzz", LIBSVMOptions{})
		checkParsed(t, ds, err)
	})
}

func FuzzParseIDX(f *testing.F) {
	im, lb := idx(2, 2, 2)
	f.Add(im, lb)
	f.Add(im[:10], lb)
	f.Fuzz(func(t *testing.T, images, labels []byte) {
		ds, err := ParseIDX(bytes.NewReader(images), "i", bytes.NewReader(labels), "l")
		checkParsed(t, ds, err)
	})
}

func FuzzParseMatrixCSV(f *testing.F) {
	f.Add("1,2\n3,4\n")
	f.Add("1e308,-1e308\n")
	f.Fuzz(func(t *testing.T, in string) {
		m, err := ParseMatrixCSV(strings.NewReader(in), "fuzz.csv")
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
